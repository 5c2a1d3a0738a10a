/**
 * Failed sign-ins, counted per client key in a window, with a global count behind it so a
 * guesser with many addresses is slowed down too. The counts live in the database
 * (lib/submissions/admin-sessions.ts, which also bounds the table), so failures are counted
 * together across every web replica.
 */
import type { Db } from "@/db/client";
import { clearFailures, failureCount, FAILURE_LIMITS, lockedOut, recordFailure, type FailureLimits } from "@/lib/submissions/admin-sessions";

export { FAILURE_LIMITS, type FailureLimits };

export interface FailureLimiter {
  lockedOut(key: string, now?: number): Promise<boolean>;
  recordFailure(key: string, now?: number): Promise<void>;
  clear(key: string): Promise<void>;
  /** Failures held now (for tests and monitoring). */
  size(): Promise<number>;
}

/** `db` is a handle, or how to get one (the page database is opened on first use). */
export function createFailureLimiter(db: Db | (() => Promise<Db>), limits: FailureLimits = FAILURE_LIMITS): FailureLimiter {
  const handle = async () => (typeof db === "function" ? db() : db);
  return {
    lockedOut: async (key, now = Date.now()) => lockedOut(await handle(), key, now, limits),
    recordFailure: async (key, now = Date.now()) => recordFailure(await handle(), key, now, limits),
    clear: async (key) => clearFailures(await handle(), key),
    size: async () => failureCount(await handle()),
  };
}
