/**
 * Moving an embedded install to hosted mode: every row of a SQLite database copied into an
 * empty, migrated Postgres database (`agentboard db copy`).
 *
 * Rows are read and written through the same tables (db/schema.ts): the shared codecs decode
 * a SQLite row (times, booleans, JSON) and encode it again for Postgres, so nothing here knows
 * a column's type. Tables go parents first (foreign keys), a bounded batch at a time in rowid
 * order, so a table of millions of item results streams in bounded memory. The copy is one
 * Postgres transaction: it lands whole or not at all, and a failed copy can simply be run again.
 */
import { count, getTableColumns, gt, is, sql } from "drizzle-orm";
import { getTableConfig, SQLiteTable } from "drizzle-orm/sqlite-core";
import type { NodePgDatabase } from "drizzle-orm/node-postgres";
import { dialectOf, transaction, type Db, type Tx } from "../../db/client";
import * as schema from "../../db/schema";

/** Rows per batch at most; wide tables take fewer (see batchRows). */
export const COPY_BATCH_ROWS = 500;
/** Postgres takes at most 65535 parameters per statement; stay well under. */
const MAX_PARAMETERS = 30_000;

export interface TableProgress {
  table: string;
  copied: number;
  total: number;
  done: boolean;
}

export interface CopyOptions {
  batchRows?: number;
  /** Called after each batch and once when a table is done. */
  onProgress?: (p: TableProgress) => void;
}

export class TargetNotEmptyError extends Error {
  constructor(readonly tables: { table: string; rows: number }[]) {
    super(`the target database already holds data (${tables.map((t) => `${t.table}: ${t.rows} row(s)`).join(", ")}); copy into a new, empty database`);
    this.name = "TargetNotEmptyError";
  }
}

/** Every table of the schema, each after the tables its foreign keys point to. */
export function tablesInCopyOrder(): SQLiteTable[] {
  const all = (Object.values(schema) as unknown[]).filter((v): v is SQLiteTable => is(v, SQLiteTable));
  const ordered: SQLiteTable[] = [];
  const visit = (t: SQLiteTable, path: SQLiteTable[]) => {
    if (ordered.includes(t)) return;
    if (path.includes(t)) throw new Error(`foreign keys form a cycle through ${getTableConfig(t).name}`);
    for (const fk of getTableConfig(t).foreignKeys) {
      const parent = fk.reference().foreignTable as SQLiteTable;
      if (parent !== t) visit(parent, [...path, t]);
    }
    ordered.push(t);
  };
  for (const t of all) visit(t, []);
  return ordered;
}

export const tableName = (t: SQLiteTable) => getTableConfig(t).name;

/** Rows per insert: COPY_BATCH_ROWS, fewer for a table so wide the parameters would not fit. */
function batchRows(t: SQLiteTable, wanted: number): number {
  return Math.max(1, Math.min(wanted, Math.floor(MAX_PARAMETERS / Object.keys(getTableColumns(t)).length)));
}

/** Tables of the target that hold rows. */
async function nonEmpty(db: Db | Tx, tables: SQLiteTable[]): Promise<{ table: string; rows: number }[]> {
  const found: { table: string; rows: number }[] = [];
  for (const t of tables) {
    const [row] = await db.select({ n: count() }).from(t);
    if (row && row.n > 0) found.push({ table: tableName(t), rows: row.n });
  }
  return found;
}

/**
 * Copies every table of `from` (SQLite) into `to` (Postgres, migrated and empty), then moves
 * each identity sequence past the ids copied. Returns the rows copied per table.
 */
export async function copyDatabase(from: Db, to: Db, options: CopyOptions = {}): Promise<Record<string, number>> {
  if (dialectOf(from) !== "sqlite") throw new Error("the source must be a SQLite database");
  if (dialectOf(to) !== "postgres") throw new Error("the target must be a Postgres database");
  const tables = tablesInCopyOrder();
  const copied: Record<string, number> = {};
  await transaction(to, async (tx) => {
    // Checked inside the transaction, so nothing written meanwhile slips past.
    const held = await nonEmpty(tx, tables);
    if (held.length) throw new TargetNotEmptyError(held);
    for (const t of tables) copied[tableName(t)] = await copyTable(from, tx, t, options);
    for (const t of tables) await resetIdentity(tx, t);
  });
  return copied;
}

async function copyTable(from: Db, to: Tx, t: SQLiteTable, options: CopyOptions): Promise<number> {
  const name = tableName(t);
  const [{ n: total } = { n: 0 }] = await from.select({ n: count() }).from(t);
  const size = batchRows(t, options.batchRows ?? COPY_BATCH_ROWS);
  // Every table here is a rowid table: the rowid orders any primary key (composite, text)
  // and lets each batch start where the last ended, without an OFFSET scan.
  const rowid = sql<number>`rowid`.mapWith(Number);
  let last = 0;
  let done = 0;
  for (;;) {
    const batch = await from
      .select({ ...getTableColumns(t), _copyRowid: rowid })
      .from(t)
      .where(gt(rowid, last))
      .orderBy(rowid)
      .limit(size);
    if (!batch.length) break;
    last = batch[batch.length - 1]!._copyRowid;
    const values = batch.map(({ _copyRowid, ...row }) => row);
    await to.insert(t).values(values as never);
    done += batch.length;
    options.onProgress?.({ table: name, copied: done, total, done: false });
    if (batch.length < size) break;
  }
  options.onProgress?.({ table: name, copied: done, total, done: true });
  return done;
}

/**
 * Ids were copied explicitly, which leaves a Postgres identity sequence where it was: move it
 * past the largest id, so the next insert gets a fresh one.
 */
async function resetIdentity(tx: Tx, t: SQLiteTable): Promise<void> {
  const id = getTableConfig(t).columns.find((c) => c.primary && c.name === "id");
  if (!id) return;
  const name = tableName(t);
  // `rows()` asks the handle's dialect, which a transaction's handle does not carry: this one is Postgres.
  await (tx as unknown as NodePgDatabase).execute(sql`SELECT setval(pg_get_serial_sequence(${name}, 'id'), coalesce(max(id), 0) + 1, false) FROM ${sql.identifier(name)}`);
}
