/**
 * Read models change only when a submission changes state, and every change appends to the
 * audit log: its highest id is a data version that costs one indexed lookup. Results are
 * memoised per key until that version moves.
 */
import { sql } from "drizzle-orm";
import { rows, type Db } from "../../db/client";

/** Each database handle's own key space: two databases in one process never share an entry. */
const dbIds = new WeakMap<Db, number>();
let nextDbId = 0;
const memo = new Map<string, { version: string; value: Promise<unknown> }>();
/** Memoised keys, at most; the least recently used goes first (one at a time, so a flood of new keys cannot empty it). */
export const MEMO_MAX_KEYS = 1000;

// Valid on both engines (Postgres casts the integers for `||`).
const VERSION = sql`SELECT (SELECT coalesce(max(id), 0) FROM audit_log) || ':' || (SELECT coalesce(max(id), 0) FROM benchmark_versions) AS v`;

export async function dataVersion(db: Db): Promise<string> {
  const [row] = await rows<{ v: string }>(db, VERSION);
  return String(row!.v);
}

/**
 * The value of `compute` at the current data version. The pending promise is what is kept, so
 * requests arriving together while it is computed share one computation; a failure is not kept.
 */
export async function memoByDataVersion<T>(db: Db, name: string, compute: () => Promise<T>): Promise<T> {
  const version = await dataVersion(db);
  let dbId = dbIds.get(db);
  if (dbId === undefined) dbIds.set(db, (dbId = nextDbId++));
  const key = `${dbId}\0${name}`;
  const hit = memo.get(key);
  if (hit && hit.version === version) {
    memo.delete(key);
    memo.set(key, hit);
    return hit.value as Promise<T>;
  }
  const value = compute();
  const entry = { version, value };
  memo.delete(key);
  while (memo.size >= MEMO_MAX_KEYS) memo.delete(memo.keys().next().value!);
  memo.set(key, entry);
  value.catch(() => {
    if (memo.get(key) === entry) memo.delete(key);
  });
  return value;
}
