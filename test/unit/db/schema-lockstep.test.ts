/**
 * One database design, two dialects: db/schema.ts (SQLite, the typing schema every query is
 * written against) and db/schema-pg.ts (Postgres) must hold the same tables, columns
 * (nullability, default, key, a type that stores what the shared codec writes), indexes,
 * unique constraints and foreign keys. And each migration folder must already say everything
 * its schema says: drizzle-kit, run against a copy, finds nothing to generate.
 */
import { execFileSync } from "node:child_process";
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { is } from "drizzle-orm";
import { bigint, getTableConfig as pgConfig, index, integer, PgTable, pgTable, text } from "drizzle-orm/pg-core";
import { getTableConfig as sqliteConfig, SQLiteTable } from "drizzle-orm/sqlite-core";
import { afterAll, describe, expect, it } from "vitest";
import * as pgSchema from "@/db/schema-pg";
import * as sqliteSchema from "@/db/schema";

const REPO = path.resolve(import.meta.dirname, "../../..");

/** The Postgres types that store what a SQLite column's codec writes. */
const COMPATIBLE: Record<string, string[]> = {
  SQLiteTimestamp: ["PgBigInt53"],
  SQLiteBoolean: ["PgBoolean"],
  SQLiteReal: ["PgDoublePrecision"],
  SQLiteText: ["PgText"],
  SQLiteTextJson: ["PgText"],
  SQLiteInteger: ["PgInteger", "PgBigInt53"],
};

/** A table as both dialects can describe it; `type` is the dialect's own column type. */
interface Shape {
  name: string;
  columns: Record<string, { type: string; notNull: boolean; default: unknown; primary: boolean; generatedId: boolean; unique: string | null }>;
  primaryKeys: string[];
  indexes: string[];
  uniques: string[];
  foreignKeys: string[];
}

type Config = ReturnType<typeof sqliteConfig> | ReturnType<typeof pgConfig>;

function shapeOf(c: Config, generatedId: (col: Config["columns"][number]) => boolean, tableNameOf: (t: unknown) => string): Shape {
  const names = (cols: { name: string }[]) => cols.map((x) => x.name).join(",");
  return {
    name: c.name,
    columns: Object.fromEntries(
      c.columns.map((col) => [col.name, { type: col.columnType, notNull: col.notNull, default: col.default, primary: col.primary, generatedId: generatedId(col), unique: col.isUnique ? (col.uniqueName ?? "") : null }]),
    ),
    primaryKeys: c.primaryKeys.map((k) => `${k.getName()}(${names(k.columns)})`).sort(),
    indexes: c.indexes.map((i) => `${i.config.unique ? "unique " : ""}${i.config.name}(${names(i.config.columns as { name: string }[])})`).sort(),
    uniques: c.uniqueConstraints.map((u) => `${u.getName()}(${names(u.columns)})`).sort(),
    foreignKeys: c.foreignKeys
      .map((fk) => {
        const r = fk.reference();
        return `${fk.getName()}: (${names(r.columns)}) → ${tableNameOf(r.foreignTable)}(${names(r.foreignColumns)}) on delete ${fk.onDelete ?? "no action"} on update ${fk.onUpdate ?? "no action"}`;
      })
      .sort(),
  };
}

const sqliteShape = (t: SQLiteTable) => shapeOf(sqliteConfig(t), (col) => (col as { autoIncrement?: boolean }).autoIncrement === true, (x) => sqliteConfig(x as SQLiteTable).name);
const pgShape = (t: PgTable) => shapeOf(pgConfig(t), (col) => (col as { generatedIdentity?: unknown }).generatedIdentity !== undefined, (x) => pgConfig(x as PgTable).name);

/** Every difference between the two designs, one line each; empty when they are in lockstep. */
function differences(sqliteTables: SQLiteTable[], pgTables: PgTable[]): string[] {
  const out: string[] = [];
  const lite = new Map(sqliteTables.map((t) => [sqliteConfig(t).name, sqliteShape(t)]));
  const pg = new Map(pgTables.map((t) => [pgConfig(t).name, pgShape(t)]));
  for (const name of lite.keys()) if (!pg.has(name)) out.push(`table ${name}: only in SQLite`);
  for (const name of pg.keys()) if (!lite.has(name)) out.push(`table ${name}: only in Postgres`);
  for (const [name, a] of lite) {
    const b = pg.get(name);
    if (!b) continue;
    for (const col of Object.keys(a.columns)) if (!(col in b.columns)) out.push(`${name}.${col}: only in SQLite`);
    for (const col of Object.keys(b.columns)) if (!(col in a.columns)) out.push(`${name}.${col}: only in Postgres`);
    for (const [col, x] of Object.entries(a.columns)) {
      const y = b.columns[col];
      if (!y) continue;
      if (!COMPATIBLE[x.type]?.includes(y.type)) out.push(`${name}.${col}: type ${x.type} against ${y.type}`);
      for (const key of ["notNull", "default", "primary", "generatedId", "unique"] as const) {
        if (JSON.stringify(x[key]) !== JSON.stringify(y[key])) out.push(`${name}.${col}: ${key} ${JSON.stringify(x[key])} against ${JSON.stringify(y[key])}`);
      }
    }
    for (const key of ["primaryKeys", "indexes", "uniques", "foreignKeys"] as const) {
      for (const v of a[key]) if (!b[key].includes(v)) out.push(`${name} ${key}: ${v} only in SQLite`);
      for (const v of b[key]) if (!a[key].includes(v)) out.push(`${name} ${key}: ${v} only in Postgres`);
    }
  }
  return out;
}

const sqliteTables = (Object.values(sqliteSchema) as unknown[]).filter((v): v is SQLiteTable => is(v, SQLiteTable));
const pgTables = (Object.values(pgSchema) as unknown[]).filter((v): v is PgTable => is(v, PgTable));
const replacing = (name: string, table: PgTable) => pgTables.map((t) => (pgConfig(t).name === name ? table : t));

describe("db/schema.ts and db/schema-pg.ts", () => {
  it("describe the same tables", () => {
    expect(sqliteTables.length).toBeGreaterThan(10);
    expect(pgTables.map((t) => pgConfig(t).name).sort()).toEqual(sqliteTables.map((t) => sqliteConfig(t).name).sort());
  });

  it("are in lockstep: columns, types, keys, indexes, unique constraints and foreign keys", () => {
    expect(differences(sqliteTables, pgTables)).toEqual([]);
  });

  // The comparison itself must be able to fail: each mutated copy of a Postgres table is caught.
  it("catches a missing table or column, a changed type, nullability or default", () => {
    expect(differences(sqliteTables, pgTables.filter((t) => pgConfig(t).name !== "leases"))).toEqual(["table leases: only in SQLite"]);
    const leases = (cols: Record<string, ReturnType<typeof text> | ReturnType<typeof bigint>>) => pgTable("leases", { name: text().primaryKey(), ...cols });
    const base = { holder: text().notNull(), token: text().notNull(), expiresAt: bigint({ mode: "number" }).notNull() };
    expect(differences(sqliteTables, replacing("leases", leases(base)))).toEqual([]);
    const { token: _token, ...noToken } = base;
    expect(differences(sqliteTables, replacing("leases", leases(noToken)))).toEqual(["leases.token: only in SQLite"]);
    expect(differences(sqliteTables, replacing("leases", leases({ ...base, expiresAt: text().notNull() })))).toEqual(["leases.expiresAt: type SQLiteTimestamp against PgText"]);
    expect(differences(sqliteTables, replacing("leases", leases({ ...base, holder: text() })))).toEqual(["leases.holder: notNull true against false"]);
    expect(differences(sqliteTables, replacing("leases", leases({ ...base, holder: text().notNull().default("nobody") })))).toEqual(['leases.holder: default undefined against "nobody"']);
    expect(differences(sqliteTables, replacing("leases", leases({ ...base, token: text().notNull().unique() })))).toEqual(['leases.token: unique null against "leases_token_unique"']);
  });

  it("catches a changed index, identity or foreign key", () => {
    /** sign_in_failures on Postgres with these indexes (name → columns). */
    const failures = (indexes: Record<string, ("clientKey" | "at")[]>) =>
      pgTable("sign_in_failures", { id: integer().primaryKey().generatedByDefaultAsIdentity(), clientKey: text().notNull(), at: bigint({ mode: "number" }).notNull() }, (t) =>
        Object.entries(indexes).map(([name, cols]) => index(name).on(...(cols.map((c) => t[c]) as [typeof t.at]))),
      );
    expect(differences(sqliteTables, replacing("sign_in_failures", failures({ sign_in_failures_key: ["clientKey", "at"], sign_in_failures_at: ["at"] })))).toEqual([]);
    expect(differences(sqliteTables, replacing("sign_in_failures", failures({ sign_in_failures_key: ["clientKey"], sign_in_failures_at: ["at"] })))).toEqual([
      "sign_in_failures indexes: sign_in_failures_key(clientKey,at) only in SQLite",
      "sign_in_failures indexes: sign_in_failures_key(clientKey) only in Postgres",
    ]);
    expect(differences(sqliteTables, replacing("sign_in_failures", failures({ sign_in_failures_key: ["clientKey", "at"] })))).toEqual(["sign_in_failures indexes: sign_in_failures_at(at) only in SQLite"]);
    const noIdentity = pgTable("sign_in_failures", { id: integer().primaryKey(), clientKey: text().notNull(), at: bigint({ mode: "number" }).notNull() }, (t) => [index("sign_in_failures_key").on(t.clientKey, t.at), index("sign_in_failures_at").on(t.at)]);
    expect(differences(sqliteTables, replacing("sign_in_failures", noIdentity))).toEqual(["sign_in_failures.id: generatedId true against false"]);
    const auditNoFk = pgTable(
      "audit_log",
      {
        id: integer().primaryKey().generatedByDefaultAsIdentity(),
        at: bigint({ mode: "number" }).notNull(),
        actor: text().notNull(),
        action: text().notNull(),
        submissionId: integer(),
        fromState: text(),
        toState: text(),
        reason: text().notNull().default(""),
        details: text(),
      },
      (t) => [index("audit_log_submission").on(t.submissionId)],
    );
    expect(differences(sqliteTables, replacing("audit_log", auditNoFk))).toEqual(["audit_log foreignKeys: audit_log_submissionId_submissions_id_fk: (submissionId) → submissions(id) on delete no action on update no action only in SQLite"]);
    // Booleans are booleans on Postgres, not integers.
    const benchmarks = pgTable("benchmarks", {
      id: integer().primaryKey().generatedByDefaultAsIdentity(),
      slug: text().notNull().unique(),
      title: text().notNull(),
      description: text().notNull().default(""),
      isDefault: integer().notNull().default(0),
      createdAt: bigint({ mode: "number" }).notNull(),
    });
    expect(differences(sqliteTables, replacing("benchmarks", benchmarks))).toEqual(["benchmarks.isDefault: type SQLiteBoolean against PgInteger", "benchmarks.isDefault: default false against 0"]);
  });
});

describe("the migration folders", () => {
  const work = mkdtempSync(path.join(tmpdir(), "agentboard-lockstep-"));
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  /** Runs `drizzle-kit generate` into a copy of a migration folder; returns the files it added. */
  function generate(dialect: "sqlite" | "postgresql", schema: string, folder: string, edit?: (dir: string) => void): { added: string[]; output: string } {
    const dir = path.join(work, `${dialect}-${Math.random().toString(36).slice(2)}`);
    cpSync(path.join(REPO, folder), dir, { recursive: true });
    edit?.(dir);
    const list = (d: string) => [...readdirSync(d), ...readdirSync(path.join(d, "meta")).map((f) => `meta/${f}`)];
    const before = new Set(list(dir));
    // drizzle-kit takes the output folder relative to the working directory.
    const output = execFileSync(process.execPath, [path.join(REPO, "node_modules/drizzle-kit/bin.cjs"), "generate", "--dialect", dialect, "--schema", schema, "--out", path.relative(REPO, dir), "--casing", "snake_case"], { cwd: REPO, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
    return { added: list(dir).filter((f) => !before.has(f)), output };
  }

  it.each([
    ["sqlite", "db/schema.ts", "db/migrations"],
    ["postgresql", "db/schema-pg.ts", "db/migrations-pg"],
  ] as const)("%s: the committed migrations reproduce the schema (drizzle-kit generates nothing)", (dialect, schema, folder) => {
    const r = generate(dialect, schema, folder);
    expect(r.added).toEqual([]);
    expect(r.output).toContain("No schema changes");
  });

  it("would notice a schema change the migrations lack (the latest migration taken away)", () => {
    const r = generate("sqlite", "db/schema.ts", "db/migrations", (dir) => {
      const journalFile = path.join(dir, "meta/_journal.json");
      const journal = JSON.parse(readFileSync(journalFile, "utf8")) as { entries: { idx: number; tag: string }[] };
      const last = journal.entries.pop()!;
      rmSync(path.join(dir, `${last.tag}.sql`));
      rmSync(path.join(dir, `meta/${String(last.idx).padStart(4, "0")}_snapshot.json`));
      writeFileSync(journalFile, JSON.stringify(journal, null, 2));
    });
    expect(r.added.some((f) => f.endsWith(".sql"))).toBe(true);
  });
});
