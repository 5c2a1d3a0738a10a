/**
 * Writes that survive a busy or briefly absent database. Several workers share one SQLite
 * file (a writer waits out the busy timeout, db/client.ts, and what still comes back
 * SQLITE_BUSY is tried again here), or one Postgres server, which may restart under them
 * (a dropped connection, a server shutting down or starting, a serialization failure or a
 * deadlock are tried again). A retried write is a whole transaction, rolled back when it failed.
 */
import { transaction, type Db, type Tx } from "../../db/client";

/** Tries after the first; each waits twice as long as the one before, at most MAX_BACKOFF_MS. */
export const BUSY_RETRIES = 8;
const BUSY_BACKOFF_MS = 100;
const MAX_BACKOFF_MS = 5_000;

const PG_TRANSIENT = new Set(["40001", "40P01", "57P01", "57P02", "57P03", "25P03", "08000", "08001", "08003", "08004", "08006", "53300"]);
const NET_TRANSIENT = new Set(["ECONNREFUSED", "ECONNRESET", "EPIPE", "ETIMEDOUT", "EHOSTUNREACH", "ENOTCONN"]);

/** Errors worth trying again: the database was busy or went away for a moment. */
export function isBusy(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === "string") {
    if (code.startsWith("SQLITE_BUSY") || code.startsWith("SQLITE_LOCKED")) return true;
    if (PG_TRANSIENT.has(code) || NET_TRANSIENT.has(code)) return true;
  }
  const message = err instanceof Error ? err.message : "";
  // node-postgres reports a connection cut mid-query by message only.
  if (/Connection terminated|connection timeout|Client has encountered a connection error/i.test(message)) return true;
  const cause = (err as { cause?: unknown } | null)?.cause;
  return cause !== undefined && cause !== err && isBusy(cause);
}

/** A write transaction (see db/client.ts `transaction`). */
export function writeTx<T>(db: Db, fn: (tx: Tx) => Promise<T>): Promise<T> {
  return transaction(db, fn);
}

/** Runs a write, trying it again while the database stays busy or unreachable. */
export async function retryBusy<T>(write: () => Promise<T> | T, retries = BUSY_RETRIES): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await write();
    } catch (err) {
      if (!isBusy(err) || attempt >= retries) throw err;
      await new Promise((r) => setTimeout(r, Math.min(MAX_BACKOFF_MS, BUSY_BACKOFF_MS * 2 ** attempt)));
    }
  }
}
