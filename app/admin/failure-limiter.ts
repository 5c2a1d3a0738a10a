/**
 * Failed sign-ins, counted per client key in a window: a key that failed too often is refused
 * until its failures age out, and no other key is. Guesses from many addresses are slowed down
 * address by address; they never lock the right token out for everyone. The counts live in the
 * database (lib/submissions/admin-sessions.ts, which also bounds the table), so failures are
 * counted together across every web replica.
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

/** Each limit's variable, range, and the unit it is written in (× scale = the value). */
const SETTINGS: readonly { limit: keyof FailureLimits; env: string; min: number; max: number; scale: number }[] = [
  { limit: "maxFailures", env: "AGENTBOARD_SIGNIN_MAX_FAILURES", min: 1, max: 1_000, scale: 1 },
  { limit: "windowMs", env: "AGENTBOARD_SIGNIN_WINDOW_MINUTES", min: 1, max: 24 * 60, scale: 60_000 },
  { limit: "maxStoredFailures", env: "AGENTBOARD_SIGNIN_MAX_STORED_FAILURES", min: 100, max: 10_000_000, scale: 1 },
];

/** The sign-in limits from the environment, FAILURE_LIMITS where unset; throws naming the variable on a bad value. */
export function signInLimitsFromEnv(env: Record<string, string | undefined>): FailureLimits {
  const out = { ...FAILURE_LIMITS };
  for (const s of SETTINGS) {
    const raw = env[s.env]?.trim();
    if (!raw) continue;
    const n = /^\d{1,9}$/.test(raw) ? Number(raw) : NaN;
    if (!Number.isInteger(n) || n < s.min || n > s.max) throw new Error(`${s.env} must be a whole number from ${s.min} to ${s.max}, not ${JSON.stringify(raw)}`);
    out[s.limit] = n * s.scale;
  }
  return out;
}

/**
 * `db` is a handle, or how to get one (the page database is opened on first use); `limits` are
 * given, or read from the environment at first use (signInLimitsFromEnv).
 */
export function createFailureLimiter(db: Db | (() => Promise<Db>), limits?: Partial<FailureLimits>): FailureLimiter {
  const handle = async () => (typeof db === "function" ? db() : db);
  let resolved: FailureLimits | undefined;
  const current = () => (resolved ??= limits ? { ...FAILURE_LIMITS, ...limits } : signInLimitsFromEnv(process.env));
  return {
    lockedOut: async (key, now = Date.now()) => lockedOut(await handle(), key, now, current()),
    recordFailure: async (key, now = Date.now()) => recordFailure(await handle(), key, now, current()),
    clear: async (key) => clearFailures(await handle(), key),
    size: async () => failureCount(await handle()),
  };
}
