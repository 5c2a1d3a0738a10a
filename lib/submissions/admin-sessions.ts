/**
 * Maintainer sessions and failed sign-ins, kept in the database so that every web replica sees
 * the same ones: a session begun on one replica is valid on another, a sign-out on one ends it
 * on all, and failures from one client are counted together wherever they land.
 *
 * Failures slow guessing down per client key (an address behind a trusted proxy): a key that
 * failed `maxFailures` times in the window is refused until its failures age out. There is no
 * lockout of everyone: failures from many addresses must not keep the right token out (a
 * guesser would only need enough addresses to lock the maintainers out).
 *
 * Both tables are bounded. admin_sessions holds at most `maxSessions` live rows (expired rows
 * go at the next sign-in, and past the limit the oldest session ends). sign_in_failures holds
 * only the window's failures, and at most `maxStoredFailures` of them, the newest: a refused
 * key adds none, so each key holds at most `maxFailures`, and flushing one key's failures out
 * takes `maxStoredFailures` failures from other addresses.
 */
import { and, asc, count, desc, eq, gt, inArray, lt, lte, or, type SQL } from "drizzle-orm";
import type { Db } from "../../db/client";
import { adminSessions, signInFailures } from "../../db/schema";
import { retryBusy, writeTx } from "./db-busy";

/** At most 1,000 live sessions; change it here. */
export const MAX_SESSIONS = 1000;

export interface FailureLimits {
  /** Failures per key in the window before that key is refused. */
  maxFailures: number;
  windowMs: number;
  /** Failure rows kept, all keys together (the newest). */
  maxStoredFailures: number;
}

/** Five per key per quarter hour; 10,000 rows. The web server reads them from the environment (app/admin/failure-limiter.ts). */
export const FAILURE_LIMITS: FailureLimits = { maxFailures: 5, windowMs: 15 * 60 * 1000, maxStoredFailures: 10_000 };

/** Registers a session until `expiresAt`, ending expired ones and, past `maxSessions`, the oldest. */
export async function addSession(db: Db, nonce: string, expiresAt: number, now = Date.now(), maxSessions = MAX_SESSIONS): Promise<void> {
  await retryBusy(() =>
    writeTx(db, async (tx) => {
      await tx.delete(adminSessions).where(lte(adminSessions.expiresAt, new Date(now)));
      const excess = (await sessionCount(tx)) - maxSessions + 1;
      if (excess > 0) {
        const oldest = await tx
          .select({ nonce: adminSessions.nonce })
          .from(adminSessions)
          .orderBy(asc(adminSessions.createdAt), asc(adminSessions.expiresAt), asc(adminSessions.nonce))
          .limit(excess);
        await tx.delete(adminSessions).where(inArray(adminSessions.nonce, oldest.map((r) => r.nonce)));
      }
      await tx.insert(adminSessions).values({ nonce, expiresAt: new Date(expiresAt), createdAt: new Date(now) }).onConflictDoNothing();
    }),
  );
}

/** Whether the session is registered and unexpired. A read: expired rows are left to addSession. */
export async function hasSession(db: Db, nonce: string, now = Date.now()): Promise<boolean> {
  const [row] = await db
    .select({ nonce: adminSessions.nonce })
    .from(adminSessions)
    .where(and(eq(adminSessions.nonce, nonce), gt(adminSessions.expiresAt, new Date(now))))
    .limit(1);
  return row !== undefined;
}

export async function revokeSession(db: Db, nonce: string): Promise<void> {
  await retryBusy(() => writeTx(db, async (tx) => void (await tx.delete(adminSessions).where(eq(adminSessions.nonce, nonce)))));
}

/** Rows held now, expired or not (for tests and monitoring). */
export async function sessionCount(db: Db): Promise<number> {
  const [row] = await db.select({ n: count() }).from(adminSessions);
  return Number(row?.n ?? 0);
}

const windowStart = (now: number, limits: FailureLimits) => new Date(now - limits.windowMs);

/** Whether this key failed too often in the window (other keys' failures never count against it). */
export async function lockedOut(db: Db, key: string, now = Date.now(), limits: FailureLimits = FAILURE_LIMITS): Promise<boolean> {
  return (await failuresWhere(db, and(eq(signInFailures.clientKey, key), gt(signInFailures.at, windowStart(now, limits))))) >= limits.maxFailures;
}

async function failuresWhere(db: Db, where: SQL | undefined): Promise<number> {
  const [row] = await db.select({ n: count() }).from(signInFailures).where(where);
  return Number(row?.n ?? 0);
}

/** Counts a failure of this key, and keeps the table to the window's newest `maxStoredFailures` rows. */
export async function recordFailure(db: Db, key: string, now = Date.now(), limits: FailureLimits = FAILURE_LIMITS): Promise<void> {
  await retryBusy(() =>
    writeTx(db, async (tx) => {
      await tx.insert(signInFailures).values({ clientKey: key, at: new Date(now) });
      await tx.delete(signInFailures).where(lte(signInFailures.at, windowStart(now, limits)));
      // The newest row past the limit: it and everything older go.
      const [edge] = await tx
        .select({ id: signInFailures.id, at: signInFailures.at })
        .from(signInFailures)
        .orderBy(desc(signInFailures.at), desc(signInFailures.id))
        .limit(1)
        .offset(limits.maxStoredFailures);
      if (edge) {
        await tx
          .delete(signInFailures)
          .where(or(lt(signInFailures.at, edge.at), and(eq(signInFailures.at, edge.at), lte(signInFailures.id, edge.id))));
      }
    }),
  );
}

/** Forgets a key's failures (a successful sign-in). */
export async function clearFailures(db: Db, key: string): Promise<void> {
  await retryBusy(() => writeTx(db, async (tx) => void (await tx.delete(signInFailures).where(eq(signInFailures.clientKey, key)))));
}

/** Failure rows held now (for tests and monitoring). */
export function failureCount(db: Db): Promise<number> {
  return failuresWhere(db, undefined);
}
