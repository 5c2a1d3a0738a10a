/**
 * Read models change only when a submission changes state, and every change appends to the
 * audit log: its highest id is a data version that costs one indexed lookup. Results are
 * memoised per key until that version moves.
 */
import type { Statement } from "better-sqlite3";
import type { Db } from "../../db/client";

const statements = new WeakMap<Db, Statement>();
/** Each database connection's own key space: two databases in one process never share an entry. */
const dbIds = new WeakMap<Db, number>();
let nextDbId = 0;
const memo = new Map<string, { version: string; value: unknown }>();
/** Memoised keys, at most; the least recently used goes first (one at a time, so a flood of new keys cannot empty it). */
export const MEMO_MAX_KEYS = 1000;

export function dataVersion(db: Db): string {
  let st = statements.get(db);
  if (!st) {
    st = db.$client.prepare("SELECT (SELECT coalesce(max(id), 0) FROM audit_log) || ':' || (SELECT coalesce(max(id), 0) FROM benchmark_versions) AS v");
    statements.set(db, st);
  }
  return (st.get() as { v: string }).v;
}

export function memoByDataVersion<T>(db: Db, name: string, compute: () => T): T {
  const version = dataVersion(db);
  let dbId = dbIds.get(db);
  if (dbId === undefined) dbIds.set(db, (dbId = nextDbId++));
  const key = `${dbId}\0${name}`;
  const hit = memo.get(key);
  if (hit && hit.version === version) {
    memo.delete(key);
    memo.set(key, hit);
    return hit.value as T;
  }
  const value = compute();
  memo.delete(key);
  while (memo.size >= MEMO_MAX_KEYS) memo.delete(memo.keys().next().value!);
  memo.set(key, { version, value });
  return value;
}
