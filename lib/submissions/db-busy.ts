/**
 * Several workers share one SQLite file. Writes that read first run in IMMEDIATE
 * transactions (the write lock is taken up front, so a reader never has to upgrade and
 * fail with "database is locked"); the connection's busy timeout (db/client.ts) makes a
 * writer wait for another; and what still comes back SQLITE_BUSY is tried again here.
 */
import type { Db } from "../../db/client";
import type { Tx } from "./transitions";

/** Tries after the busy timeout ran out; each waits twice as long as the one before. */
export const BUSY_RETRIES = 5;
const BUSY_BACKOFF_MS = 100;

export function isBusy(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === "string" && (code.startsWith("SQLITE_BUSY") || code.startsWith("SQLITE_LOCKED"));
}

/** A transaction that takes the write lock when it begins. */
export function writeTx<T>(db: Db, fn: (tx: Tx) => T): T {
  return db.transaction(fn, { behavior: "immediate" });
}

/** Runs a write, trying it again while the database stays busy. */
export async function retryBusy<T>(write: () => T, retries = BUSY_RETRIES): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return write();
    } catch (err) {
      if (!isBusy(err) || attempt >= retries) throw err;
      await new Promise((r) => setTimeout(r, BUSY_BACKOFF_MS * 2 ** attempt));
    }
  }
}
