/**
 * A worker's lease on a job: the random token its claim wrote (worker.ts `claimNextJob`).
 * Every write a worker makes for the job begins with `holdLease` in the same transaction, so
 * a worker whose lease was taken over (its heartbeat went stale and another worker claimed
 * the job) writes nothing: no item rows, no run state, no publishing, no audit rows.
 */
import { randomBytes } from "node:crypto";
import { and, eq } from "drizzle-orm";
import type { Tx } from "../../db/client";
import { jobs } from "../../db/schema";

export interface Lease {
  /** The job's id. */
  id: number;
  token: string;
}

export function newLeaseToken(): string {
  return randomBytes(16).toString("hex");
}

/**
 * The fence: renews the heartbeat when the job is still running under this lease, and says
 * whether it is. Call it FIRST in a transaction: on Postgres the UPDATE also takes the job's
 * row lock until commit, so no claim can take the job over between the check and the writes
 * after it (on SQLite the transaction holds the write lock already). False: write nothing.
 */
export async function holdLease(tx: Tx, lease: Lease, at: Date): Promise<boolean> {
  const held = await tx
    .update(jobs)
    .set({ heartbeatAt: at })
    .where(and(eq(jobs.id, lease.id), eq(jobs.state, "running"), eq(jobs.leaseToken, lease.token)))
    .returning({ id: jobs.id });
  return held.length > 0;
}
