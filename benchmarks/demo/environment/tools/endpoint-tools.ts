/**
 * Capability 2/3 endpoint tools, generated from the table metadata: REST-style lookups,
 * listings, statistics and rankings for every table, plus the hand-written joins. Many
 * near-synonymous names make choosing the right endpoint part of the task.
 */
import { z } from "zod";
import { SCHEMAS, type Column, type Domain, type TableSchema } from "../domains";
import { round4 } from "../prng";
import { joinEndpoints } from "./join-endpoints";
import { queryAll, queryOne } from "./query-rows";
import { defineTool, ToolError, type ToolSpec } from "./tool-spec";

/** Text matches ignore case: names are unique regardless of case, so answers stay exact. */
const equalsSql = (c: Column) => (c.type === "text" ? `${c.name} = ? COLLATE NOCASE` : `${c.name} = ?`);

function valueSchema(c: Column) {
  if (c.type === "integer") return z.number().int();
  if (c.type === "real") return z.number();
  return c.role === "date" ? z.string().describe("ISO date, YYYY-MM-DD.") : z.string();
}

const limit = z.number().int().min(1).optional().describe("Maximum number of rows; all when omitted.");
// SQLite treats a negative LIMIT as no limit.
const limitOf = (n: number | undefined) => n ?? -1;

function tableTools(t: TableSchema): ToolSpec[] {
  const tools: ToolSpec[] = [
    defineTool({
      name: `get_${t.name}_count`,
      description: `Number of ${t.name}. Returns {count}.`,
      input: {},
      run: ({ db }) => ({ count: Number(queryOne(db, `SELECT COUNT(*) AS count FROM ${t.name}`)?.count ?? 0) }),
    }),
    defineTool({
      name: `get_${t.name}_by_id`,
      description: `One record of ${t.name} by its numeric id, with all its columns.`,
      input: { id: z.number().int().describe(`Id of the ${t.name} record.`) },
      run: ({ db }, { id }) => {
        const row = queryOne(db, `SELECT * FROM ${t.name} WHERE id = ?`, id);
        if (!row) throw new ToolError(`no ${t.name} record with id ${id}`);
        return row;
      },
    }),
  ];
  for (const c of t.columns) {
    if (c.role === "name") {
      tools.push(
        defineTool({
          name: `get_${t.name}_by_${c.name}`,
          description: `One record of ${t.name} by its exact ${c.name} (case-insensitive), with all its columns.`,
          input: { [c.name]: z.string().describe(`The ${c.name}.`) },
          run: ({ db }, args) => {
            const value = args[c.name];
            const row = queryOne(db, `SELECT * FROM ${t.name} WHERE ${equalsSql(c)}`, value);
            if (!row) throw new ToolError(`no ${t.name} record with ${c.name} ${JSON.stringify(value)}`);
            return row;
          },
        }),
      );
    }
    if (c.role === "category" || c.role === "reference") {
      tools.push(
        defineTool({
          name: `list_${t.name}_by_${c.name}`,
          description: `List ${t.name} whose ${c.name} equals the value${c.references ? ` (an id of ${c.references})` : ""}, ordered by id.`,
          input: { value: valueSchema(c).describe(`The ${c.name} to match.`), limit },
          run: ({ db }, args) => queryAll(db, `SELECT * FROM ${t.name} WHERE ${equalsSql(c)} ORDER BY id LIMIT ?`, args.value, limitOf(args.limit)),
        }),
      );
    }
    if (c.role === "category") {
      tools.push(
        defineTool({
          name: `count_${t.name}_by_${c.name}`,
          description: `Number of ${t.name} per ${c.name}. Returns [{${c.name}, count}], most frequent first.`,
          input: {},
          run: ({ db }) => queryAll(db, `SELECT ${c.name}, COUNT(*) AS count FROM ${t.name} GROUP BY ${c.name} ORDER BY count DESC, ${c.name}`),
        }),
      );
    }
    if (c.role === "measure") {
      tools.push(
        defineTool({
          name: `get_${t.name}_${c.name}_stats`,
          description: `Minimum, maximum and mean (4 decimals) of ${c.name} over all ${t.name}. Returns {min, max, mean}.`,
          input: {},
          run: ({ db }) => {
            const row = queryOne(db, `SELECT MIN(${c.name}) AS min, MAX(${c.name}) AS max, AVG(${c.name}) AS mean FROM ${t.name}`);
            return { min: row?.min ?? null, max: row?.max ?? null, mean: typeof row?.mean === "number" ? round4(row.mean) : null };
          },
        }),
        defineTool({
          name: `top_${t.name}_by_${c.name}`,
          description: `The n ${t.name} with the highest ${c.name} (lowest when ascending is true); ties by id.`,
          input: { n: z.number().int().min(1).describe("Number of rows."), ascending: z.boolean().optional().describe("true for the lowest values; default false.") },
          run: ({ db }, { n, ascending }) => queryAll(db, `SELECT * FROM ${t.name} ORDER BY ${c.name} ${ascending ? "ASC" : "DESC"}, id LIMIT ?`, n),
        }),
      );
    }
    if (c.role === "measure" || c.role === "date") {
      tools.push(
        defineTool({
          name: `list_${t.name}_with_${c.name}_between`,
          description: `List ${t.name} whose ${c.name} lies between min and max (inclusive), ordered by ${c.name} then id.`,
          input: { min: valueSchema(c).describe("Lower bound (inclusive)."), max: valueSchema(c).describe("Upper bound (inclusive)."), limit },
          run: ({ db }, args) => queryAll(db, `SELECT * FROM ${t.name} WHERE ${c.name} BETWEEN ? AND ? ORDER BY ${c.name}, id LIMIT ?`, args.min, args.max, limitOf(args.limit)),
        }),
      );
    }
  }
  return tools;
}

export function endpointTools(domain: Domain): ToolSpec[] {
  return [...SCHEMAS[domain].flatMap(tableTools), ...joinEndpoints[domain]];
}
