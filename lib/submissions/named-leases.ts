/**
 * Named leases: work that must run in one place at a time across any number of workers and
 * hosts (an intake pass over a repository, the handling of one issue) holds a row of `leases`.
 * A lease is taken by one conditional write (free, or expired), carries a random token, and is
 * renewed and released only with that token, so a holder that stalled past its expiry and was
 * overtaken can neither extend nor drop the new holder's lease. Both engines run the same SQL:
 * `INSERT … ON CONFLICT (name) DO UPDATE … WHERE leases.expires_at < now RETURNING`.
 *
 * Lease times are the wall clock of the process (not an injected test clock): every holder
 * compares its own clock with the others', so they must all be the same kind of clock.
 */
import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import { and, eq, lt, sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { leases } from "../../db/schema";
import { retryBusy, writeTx } from "./db-busy";

/** Who holds a lease, for people reading the table: host, process and a per-process nonce. */
export const LEASE_HOLDER = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;

/** How long a lease lasts unless renewed; a holder renews it every third of that. */
export const DEFAULT_LEASE_MS = 60_000;

export interface Lease {
  name: string;
  token: string;
  expiresAt: Date;
}

export interface LeaseOptions {
  ttlMs?: number;
  holder?: string;
  /** The clock; default the wall clock (see the header). */
  now?: () => Date;
}

const wallClock = () => new Date();

/** Takes the lease when it is free or expired; null while someone else holds it. */
export async function acquireLease(db: Db, name: string, options: LeaseOptions = {}): Promise<Lease | null> {
  const now = (options.now ?? wallClock)();
  const expiresAt = new Date(now.getTime() + (options.ttlMs ?? DEFAULT_LEASE_MS));
  const token = randomUUID();
  const taken = await retryBusy(() =>
    writeTx(db, (tx) =>
      tx
        .insert(leases)
        .values({ name, holder: options.holder ?? LEASE_HOLDER, token, expiresAt })
        .onConflictDoUpdate({
          target: leases.name,
          set: { holder: sql`excluded.holder`, token: sql`excluded.token`, expiresAt: sql`excluded.expires_at` },
          setWhere: lt(leases.expiresAt, now),
        })
        .returning({ token: leases.token }),
    ),
  );
  return taken.length === 1 && taken[0]!.token === token ? { name, token, expiresAt } : null;
}

/** Extends a lease still held with this token; false when it expired and was taken over (or released). */
export async function renewLease(db: Db, lease: Lease, options: LeaseOptions = {}): Promise<boolean> {
  const expiresAt = new Date((options.now ?? wallClock)().getTime() + (options.ttlMs ?? DEFAULT_LEASE_MS));
  const renewed = await retryBusy(() =>
    writeTx(db, (tx) =>
      tx
        .update(leases)
        .set({ expiresAt })
        .where(and(eq(leases.name, lease.name), eq(leases.token, lease.token)))
        .returning({ name: leases.name }),
    ),
  );
  if (renewed.length === 1) lease.expiresAt = expiresAt;
  return renewed.length === 1;
}

/** Gives the lease up (only ours: a lease taken over since is left to its new holder). */
export async function releaseLease(db: Db, lease: Lease): Promise<void> {
  await retryBusy(() => writeTx(db, (tx) => tx.delete(leases).where(and(eq(leases.name, lease.name), eq(leases.token, lease.token)))));
}

/** A held lease, renewed in the background while its work runs. */
export interface HeldLease extends Lease {
  /** True once a renewal found the lease taken over: the work must write nothing more that needs it. */
  lost: boolean;
  /** Renews now; false when the lease is lost. Call it right before a write that must happen once. */
  confirm(): Promise<boolean>;
}

/**
 * Runs `work` holding the named lease, renewing it every third of its ttl, and releases it
 * after. Returns `{ held: false }` at once, without running `work`, while another holds it.
 */
export async function withLease<T>(db: Db, name: string, work: (lease: HeldLease) => Promise<T>, options: LeaseOptions = {}): Promise<{ held: true; value: T } | { held: false }> {
  const lease = await acquireLease(db, name, options);
  if (!lease) return { held: false };
  const held: HeldLease = {
    ...lease,
    lost: false,
    async confirm() {
      if (held.lost) return false;
      const ok = await renewLease(db, held, options).catch(() => true); // a passing error is not a loss; the next renewal says
      if (!ok) held.lost = true;
      return ok;
    },
  };
  const every = Math.max(10, Math.floor((options.ttlMs ?? DEFAULT_LEASE_MS) / 3));
  let renewing: Promise<unknown> = Promise.resolve();
  const timer = setInterval(() => {
    renewing = renewing.then(() => held.confirm());
  }, every);
  timer.unref?.();
  try {
    return { held: true, value: await work(held) };
  } finally {
    clearInterval(timer);
    await renewing.catch(() => {});
    if (!held.lost) await releaseLease(db, held).catch(() => {}); // left to expire when the database is away
  }
}
