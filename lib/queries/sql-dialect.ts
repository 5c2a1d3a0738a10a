/**
 * The few SQL expressions the read models spell differently on SQLite and Postgres, one
 * function each, so every query is written once. JSON columns are TEXT on both engines; on
 * Postgres they are read through the `json` type, not `jsonb`: it keeps the stored text, so an
 * object's keys keep their order and a sub-value comes back as the same text json_extract gives.
 *
 * Postgres 15 has no json_valid: a JSON column is written by us, as JSON, so it is trusted to
 * parse there; the length guards that keep a page from parsing a huge value stay on both.
 */
import { sql, type SQL } from "drizzle-orm";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import { dialectOf, type Db } from "../../db/client";

/** A path into a JSON value: keys, and array indexes (negative ones count from the end). */
export type JsonPath = readonly (string | number)[];
type Expr = SQLiteColumn | SQL;

const KEY = /^[A-Za-z_][A-Za-z0-9_]*$/;

function checked(path: JsonPath): JsonPath {
  // Paths are constants of the code, spliced into the SQL: anything else is a mistake.
  for (const p of path) if (typeof p === "number" ? !Number.isInteger(p) : !KEY.test(p)) throw new Error(`bad JSON path part ${String(p)}`);
  return path;
}

/** `$.trace[#-1].query` */
function sqlitePath(path: JsonPath): SQL {
  return sql.raw(`'$${checked(path).map((p) => (typeof p === "number" ? (p < 0 ? `[#${p}]` : `[${p}]`) : `.${p}`)).join("")}'`);
}

/** `'{trace,-1,query}'` */
function pgPath(path: JsonPath): SQL {
  return sql.raw(`'{${checked(path).join(",")}}'`);
}

const isPg = (db: Db) => dialectOf(db) === "postgres";

/** The value at `path` as SQL text (objects and arrays as their JSON text); null when absent or JSON null. SQLite gives numbers as numbers. */
export function jsonText(db: Db, col: Expr, path: JsonPath): SQL {
  return isPg(db) ? sql`(${col}::json #>> ${pgPath(path)})` : sql`json_extract(${col}, ${sqlitePath(path)})`;
}

/** The first of `paths` that holds a value, as `jsonText`. */
export function jsonTextFirst(db: Db, col: Expr, paths: readonly JsonPath[]): SQL {
  if (paths.length === 1) return jsonText(db, col, paths[0]!);
  return sql`coalesce(${sql.join(paths.map((p) => jsonText(db, col, p)), sql`, `)})`;
}

/** The value at `path` as a number: a JSON number, or a boolean as 1 or 0 (as json_extract gives it); else null. */
export function jsonNumber(db: Db, col: Expr, path: JsonPath): SQL {
  if (!isPg(db)) return sql`json_extract(${col}, ${sqlitePath(path)})`;
  const p = pgPath(path);
  return sql`(CASE json_typeof(${col}::json #> ${p}) WHEN 'number' THEN (${col}::json #>> ${p})::double precision WHEN 'boolean' THEN CASE WHEN (${col}::json #>> ${p}) = 'true' THEN 1 ELSE 0 END END)`;
}

/**
 * The value at `path` as JSON (text on SQLite, json on Postgres; JSON null is the text `null`),
 * SQL NULL only when the path is absent: read a whole sub-object once, then its fields with
 * `jsonText`/`jsonNumber`, instead of parsing a large value once per field.
 */
export function jsonValue(db: Db, col: Expr, path: JsonPath): SQL {
  return isPg(db) ? sql`(${col}::json #> ${pgPath(path)})` : sql`(${col} -> ${sqlitePath(path)})`;
}

/** Whether `path` exists in the value (holding JSON null counts). */
export function jsonHas(db: Db, col: Expr, path: JsonPath): SQL {
  return isPg(db) ? sql`((${col}::json #> ${pgPath(path)}) IS NOT NULL)` : sql`(json_type(${col}, ${sqlitePath(path)}) IS NOT NULL)`;
}

/** Whether the column holds JSON that can be read (see the module comment for Postgres). */
export function jsonValid(db: Db, col: Expr): SQL {
  return isPg(db) ? sql`(${col} IS NOT NULL)` : sql`json_valid(${col})`;
}

/**
 * A FROM item: the elements of the array at `path`, as rows of `key` (their order) and `value`
 * (read fields of it with `jsonText(db, sql.raw(alias + ".value"), …)`). SQLite reads it with
 * json_each as it always has; Postgres gives no rows when it is no array.
 */
export function jsonArrayRows(db: Db, col: Expr, path: JsonPath, alias: string): SQL {
  if (!KEY.test(alias)) throw new Error(`bad alias ${alias}`);
  if (!isPg(db)) return sql`json_each(${col}, ${sqlitePath(path)}) AS ${sql.raw(alias)}`;
  const at = sql`(${col}::json #> ${pgPath(path)})`;
  return sql`json_array_elements(CASE WHEN json_typeof(${at}) = 'array' THEN ${at} ELSE '[]'::json END) WITH ORDINALITY AS ${sql.raw(alias)}(value, key)`;
}

/**
 * A FROM item: the members of the object at `path`, as rows of `key` and `value` (`value` a
 * number or text on SQLite, JSON on Postgres, which node-postgres parses). Postgres gives no
 * rows when it is no object.
 */
export function jsonObjectRows(db: Db, col: Expr, path: JsonPath, alias: string): SQL {
  if (!KEY.test(alias)) throw new Error(`bad alias ${alias}`);
  if (!isPg(db)) return sql`json_each(${col}, ${sqlitePath(path)}) AS ${sql.raw(alias)}`;
  const at = sql`(${col}::json #> ${pgPath(path)})`;
  return sql`json_each(CASE WHEN json_typeof(${at}) = 'object' THEN ${at} ELSE '{}'::json END) AS ${sql.raw(alias)}(key, value)`;
}

/** Distinct texts joined by commas (no order promised). */
export function distinctList(db: Db, expr: SQL): SQL {
  return isPg(db) ? sql`string_agg(DISTINCT ${expr}, ',')` : sql`group_concat(DISTINCT ${expr})`;
}

/** Text sorted by code point, as SQLite's default BINARY collation sorts it, whatever the Postgres database's collation. */
export function byCodePoint(db: Db, expr: SQL | SQLiteColumn): SQL {
  return isPg(db) ? sql`(${expr}) COLLATE "C"` : sql`${expr}`;
}
