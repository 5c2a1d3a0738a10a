/**
 * Capability 1 data tools: tables live in the server and are passed around by handle.
 * Handles are content-addressed — derived from the parent handle, the operation and its
 * arguments — so the same derivation always yields the same handle, however many other
 * calls came before (VAKRA numbers them by call order instead).
 */
import { createHash } from "node:crypto";
import { z } from "zod";
import { findTable, SCHEMAS } from "../domains";
import type { Cell, Row } from "../generate-rows";
import { round4 } from "../prng";
import { defineTool, ToolError, type DataTable, type SessionState, type ToolContext, type ToolSpec } from "./tool-spec";

const PEEK_ROWS = 3;

export type Peek = { handle: string; num_records: number; columns: string[]; first_rows: Row[] };

/** JSON with object keys sorted at every level, so equal arguments hash equally. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value && typeof value === "object") {
    const entries = Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

export function deriveHandle(parent: string, op: string, args: Record<string, unknown>): string {
  const digest = createHash("sha256").update(parent + op + canonicalJson(args)).digest("hex");
  return `${op}_${digest.slice(0, 8)}`;
}

function store(session: SessionState, handle: string, table: DataTable): Peek {
  session.tables.set(handle, table);
  return { handle, num_records: table.rows.length, columns: table.columns, first_rows: table.rows.slice(0, PEEK_ROWS) };
}

function lookup(session: SessionState, handle: string): DataTable {
  const table = session.tables.get(handle);
  if (!table) throw new ToolError(`unknown data_label "${handle}": no data with this handle in the current session (call get_data first)`);
  return table;
}

function requireColumn(table: DataTable, handle: string, column: string): void {
  if (!table.columns.includes(column)) throw new ToolError(`unknown key_name "${column}" in ${handle}; its columns are: ${table.columns.join(", ")}`);
}

/** Orders cells: numbers numerically, text by code point, nulls last. */
export function compareCells(a: Cell | undefined, b: Cell | undefined): number {
  if (a === b) return 0;
  if (a === null || a === undefined) return 1;
  if (b === null || b === undefined) return -1;
  if (typeof a === "number" && typeof b === "number") return a - b;
  const [x, y] = [String(a), String(b)];
  return x < y ? -1 : x > y ? 1 : 0;
}

const filterValue = z.union([z.string(), z.number(), z.boolean()]);
type FilterValue = z.infer<typeof filterValue>;
const OPERATORS = ["equals", "not_equals", "greater_than", "less_than", "contains"] as const;
type Operator = (typeof OPERATORS)[number];

function asNumber(value: FilterValue): number {
  if (typeof value === "number") return value;
  if (typeof value === "boolean") return value ? 1 : 0;
  return value.trim() === "" ? Number.NaN : Number(value);
}

function matches(cell: Cell | undefined, operator: Operator, value: FilterValue, column: string): boolean {
  if (operator === "not_equals") return !matches(cell, "equals", value, column);
  if (cell === null || cell === undefined) return false;
  if (operator === "contains") return String(cell).toLowerCase().includes(String(value).toLowerCase());
  if (typeof cell === "number") {
    const v = asNumber(value);
    if (Number.isNaN(v)) throw new ToolError(`value ${JSON.stringify(value)} is not a number, but column "${column}" is numeric`);
    return operator === "equals" ? cell === v : operator === "greater_than" ? cell > v : cell < v;
  }
  const v = String(value);
  // Text (including ISO dates) compares by code point.
  return operator === "equals" ? cell === v : operator === "greater_than" ? cell > v : cell < v;
}

const label = z.string().describe("Handle of a table returned by an earlier data tool, e.g. get_data_1a2b3c4d.");
const keyName = z.string().describe("Column name.");

export const dataTools: ToolSpec[] = [
  defineTool({
    name: "get_data",
    description: "Load the starting table of a dialogue universe. Returns a handle to the table, its size, columns and first rows.",
    input: { tool_universe_id: z.string().describe("The universe id given with the task.") },
    run: (ctx: ToolContext, { tool_universe_id }) => {
      const universe = ctx.universes.get(tool_universe_id);
      if (!universe) throw new ToolError(`unknown tool_universe_id "${tool_universe_id}"`);
      if (universe.domain !== ctx.domain) throw new ToolError(`universe "${tool_universe_id}" belongs to domain ${universe.domain}, but this server serves ${ctx.domain}`);
      const schema = findTable(ctx.domain, universe.table);
      if (!schema) throw new ToolError(`universe "${tool_universe_id}" names an unknown table "${universe.table}"`);
      const rows = ctx.db.prepare(`SELECT * FROM ${schema.name} ORDER BY id`).all() as Row[];
      return store(ctx.session, deriveHandle("", "get_data", { tool_universe_id }), { columns: schema.columns.map((c) => c.name), rows });
    },
  }),
  defineTool({
    name: "filter_data",
    description:
      "Keep the rows whose column satisfies a condition. equals/not_equals are exact (numbers compared numerically); greater_than/less_than compare numbers numerically and text or ISO dates alphabetically; contains is a case-insensitive substring test.",
    input: { data_label: label, key_name: keyName, operator: z.enum(OPERATORS), value: filterValue.describe("Value to compare with.") },
    run: ({ session }, args) => {
      const table = lookup(session, args.data_label);
      requireColumn(table, args.data_label, args.key_name);
      const rows = table.rows.filter((r) => matches(r[args.key_name], args.operator, args.value, args.key_name));
      const { data_label, ...rest } = args;
      return store(session, deriveHandle(data_label, "filter_data", rest), { columns: table.columns, rows });
    },
  }),
  defineTool({
    name: "sort_data",
    description: "Sort the rows by a column (stable; empty values last).",
    input: { data_label: label, key_name: keyName, ascending: z.boolean().describe("true for smallest first.") },
    run: ({ session }, args) => {
      const table = lookup(session, args.data_label);
      requireColumn(table, args.data_label, args.key_name);
      const sign = args.ascending ? 1 : -1;
      const rows = [...table.rows].sort((a, b) => {
        const [x, y] = [a[args.key_name], b[args.key_name]];
        // Nulls stay last in both directions.
        if (x === null || y === null) return compareCells(x, y);
        return sign * compareCells(x, y);
      });
      const { data_label, ...rest } = args;
      return store(session, deriveHandle(data_label, "sort_data", rest), { columns: table.columns, rows });
    },
  }),
  defineTool({
    name: "select_top",
    description: "Keep the first n rows.",
    input: { data_label: label, n: z.number().int().min(0).describe("Number of rows to keep.") },
    run: ({ session }, { data_label, n }) => {
      const table = lookup(session, data_label);
      return store(session, deriveHandle(data_label, "select_top", { n }), { columns: table.columns, rows: table.rows.slice(0, n) });
    },
  }),
  defineTool({
    name: "count_data",
    description: "Count the rows. Returns {count}.",
    input: { data_label: label },
    run: ({ session }, { data_label }) => ({ count: lookup(session, data_label).rows.length }),
  }),
  defineTool({
    name: "retrieve_column",
    description: "Return the values of one column as a list, for the first n rows or all rows when n is omitted.",
    input: { data_label: label, key_name: keyName, n: z.number().int().min(0).optional().describe("Number of rows; all when omitted.") },
    run: ({ session }, { data_label, key_name, n }) => {
      const table = lookup(session, data_label);
      requireColumn(table, data_label, key_name);
      return (n === undefined ? table.rows : table.rows.slice(0, n)).map((r) => r[key_name] ?? null);
    },
  }),
  defineTool({
    name: "aggregate_data",
    description: "Aggregate a numeric column: sum, mean (4 decimals), min or max. Returns {value}; value is null for min/max/mean of no rows.",
    input: { data_label: label, key_name: keyName, operation: z.enum(["sum", "mean", "min", "max"]) },
    run: ({ session }, { data_label, key_name, operation }) => {
      const table = lookup(session, data_label);
      requireColumn(table, data_label, key_name);
      const values = table.rows.map((r) => r[key_name] ?? null).filter((v) => v !== null);
      if (values.some((v) => typeof v !== "number")) throw new ToolError(`column "${key_name}" is not numeric; ${operation} needs numbers`);
      const nums = values as number[];
      const sum = nums.reduce((s, v) => s + v, 0);
      if (operation === "sum") return { value: round4(sum) };
      if (nums.length === 0) return { value: null };
      if (operation === "mean") return { value: round4(sum / nums.length) };
      return { value: operation === "min" ? Math.min(...nums) : Math.max(...nums) };
    },
  }),
  defineTool({
    name: "join_data",
    description:
      "Inner-join another table of the domain: keeps row pairs where this data's key_name equals the other table's foreign_key. The other table's columns are added as <table>.<column>.",
    input: {
      data_label: label,
      table: z.string().describe("Name of a table of this domain."),
      key_name: keyName.describe("Column of this data to match."),
      foreign_key: z.string().describe("Column of the other table to match."),
    },
    run: ({ session, db, domain }, args) => {
      const table = lookup(session, args.data_label);
      requireColumn(table, args.data_label, args.key_name);
      const other = findTable(domain, args.table);
      if (!other) throw new ToolError(`unknown table "${args.table}"; the ${domain} tables are: ${SCHEMAS[domain].map((t) => t.name).join(", ")}`);
      if (!other.columns.some((c) => c.name === args.foreign_key)) {
        throw new ToolError(`unknown foreign_key "${args.foreign_key}" in table ${other.name}; its columns are: ${other.columns.map((c) => c.name).join(", ")}`);
      }
      const added = other.columns.map((c) => `${other.name}.${c.name}`);
      if (added.some((c) => table.columns.includes(c))) throw new ToolError(`${args.data_label} already has the columns of ${other.name}`);
      const index = new Map<string, Row[]>();
      for (const r of db.prepare(`SELECT * FROM ${other.name} ORDER BY id`).all() as Row[]) {
        const k = r[args.foreign_key];
        if (k === null || k === undefined) continue;
        const bucket = index.get(String(k));
        if (bucket) bucket.push(r);
        else index.set(String(k), [r]);
      }
      const rows = table.rows.flatMap((left) => {
        const k = left[args.key_name];
        const partners = k === null || k === undefined ? [] : (index.get(String(k)) ?? []);
        return partners.map((right) => ({ ...left, ...Object.fromEntries(other.columns.map((c) => [`${other.name}.${c.name}`, right[c.name] ?? null])) }));
      });
      const { data_label, ...rest } = args;
      return store(session, deriveHandle(data_label, "join_data", rest), { columns: [...table.columns, ...added], rows });
    },
  }),
  defineTool({
    name: "group_count",
    description: "Count rows per distinct value of a column. Returns [[value, count], ...], most frequent first, ties by value.",
    input: { data_label: label, key_name: keyName },
    run: ({ session }, { data_label, key_name }) => {
      const table = lookup(session, data_label);
      requireColumn(table, data_label, key_name);
      const counts = new Map<Cell, number>();
      for (const r of table.rows) counts.set(r[key_name] ?? null, (counts.get(r[key_name] ?? null) ?? 0) + 1);
      return [...counts].sort((a, b) => b[1] - a[1] || compareCells(a[0], b[0]));
    },
  }),
];
