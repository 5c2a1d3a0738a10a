/**
 * The worker: claims jobs from the durable job table and runs them. A job whose worker died
 * (its process is gone, or its heartbeat is stale) is claimed again and resumes. Any number
 * of workers, in any number of processes on any number of hosts, may share the database: a
 * claim is one statement that gives the job a new lease token (job-lease.ts), and every write a
 * worker makes is fenced by its token, so a worker whose job was taken over writes nothing.
 * A busy or briefly absent database is waited for, never a crash (db-busy.ts).
 */
import { hostname } from "node:os";
import { and, eq, lt, or, sql } from "drizzle-orm";
import { dialectOf, type Db } from "../../db/client";
import { jobs } from "../../db/schema";
import { isBusy, retryBusy, writeTx } from "./db-busy";
import { holdLease, newLeaseToken, type Lease } from "./job-lease";
import { failRun } from "./runs";
import { runScoringJob, type JobOutcome, type ScoringDeps } from "./score-job";

export type { Lease };

/**
 * A running job whose heartbeat is older than this is taken to be abandoned and claimed
 * again. Workers renew it every `ScoringDeps.heartbeatMs` (30 s) while a job runs. Change it
 * with `WorkerOptions.staleMs`.
 */
export const DEFAULT_STALE_MS = 120_000;

/** How many jobs one worker process may score at once (`worker --concurrency`). */
export const MAX_CONCURRENCY = 64;

export const workerId = () => `${hostname()}:${process.pid}`;

/** True unless the job's worker is a process on this host that no longer exists. */
export function workerAlive(id: string | null): boolean {
  if (!id) return false;
  const [host, pid] = id.split(":");
  if (host !== hostname()) return true;
  try {
    process.kill(Number(pid), 0);
    return true;
  } catch {
    return false;
  }
}

/** Puts jobs of dead workers (on this host) back in the queue, their leases void; returns how many. */
export function recoverAbandonedJobs(db: Db, now: Date): Promise<number> {
  return writeTx(db, async (tx) => {
    const running = await tx.select({ id: jobs.id, lockedBy: jobs.lockedBy, leaseToken: jobs.leaseToken }).from(jobs).where(eq(jobs.state, "running"));
    let n = 0;
    for (const j of running) {
      if (workerAlive(j.lockedBy)) continue;
      // Conditional on the lease read above: a job claimed again meanwhile (Postgres) is left alone.
      const same = j.leaseToken === null ? sql`${jobs.leaseToken} IS NULL` : eq(jobs.leaseToken, j.leaseToken);
      const back = await tx
        .update(jobs)
        .set({ state: "queued", lockedBy: null, leaseToken: null, updatedAt: now, lastError: `worker ${j.lockedBy} died; resumed` })
        .where(and(eq(jobs.id, j.id), eq(jobs.state, "running"), same))
        .returning({ id: jobs.id });
      n += back.length;
    }
    return n;
  });
}

/**
 * Takes the next queued (or abandoned) job for worker `id` with a new lease, in ONE statement.
 * On Postgres the candidate row is locked with SKIP LOCKED, so concurrent claimers pass over
 * each other's rows instead of queueing on them, and the outer UPDATE checks again that the
 * row is still claimable (it may have changed between the subquery's snapshot and the lock).
 */
export async function claimNextJob(db: Db, id: string, now: Date, staleMs = DEFAULT_STALE_MS): Promise<Lease | undefined> {
  const cutoff = new Date(now.getTime() - staleMs);
  const skipLocked = dialectOf(db) === "postgres" ? sql` FOR UPDATE SKIP LOCKED` : sql``;
  const next = sql`(SELECT j.id FROM jobs j WHERE j.state = 'queued' OR (j.state = 'running' AND j.heartbeat_at < ${cutoff.getTime()}) ORDER BY j.id LIMIT 1${skipLocked})`;
  const claimable = or(eq(jobs.state, "queued"), and(eq(jobs.state, "running"), lt(jobs.heartbeatAt, cutoff)));
  const token = newLeaseToken();
  const [row] = await writeTx(db, (tx) =>
    tx
      .update(jobs)
      .set({ state: "running", lockedBy: id, leaseToken: token, heartbeatAt: now, attempts: sql`${jobs.attempts} + 1`, updatedAt: now })
      .where(and(sql`${jobs.id} = ${next}`, claimable))
      .returning({ id: jobs.id, token: jobs.leaseToken }),
  );
  return row ? { id: row.id, token: row.token ?? token } : undefined;
}

export interface WorkerOptions {
  /** Stop when the queue is empty instead of polling. */
  untilIdle?: boolean;
  pollMs?: number;
  /** A running job with an older heartbeat is claimed as abandoned (default DEFAULT_STALE_MS). */
  staleMs?: number;
  /** Stops the worker: the jobs in hand are left to resume (see `ScoringDeps.signal`), none is claimed after. */
  signal?: AbortSignal;
  log?: (line: string) => void;
  /** Jobs scored at once, each by its own claim/score loop (default 1, at most MAX_CONCURRENCY). */
  concurrency?: number;
  /** Names this worker in `jobs.locked_by` (default `workerId()`, `host:pid`). */
  workerId?: string;
}

/** Waits, or less when the signal aborts. */
function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener("abort", done, { once: true });
  });
}

/** Runs `concurrency` claim/score loops until stopped (or, with untilIdle, until the queue is empty); returns the jobs run. */
export async function runWorker(db: Db, deps: ScoringDeps, opts: WorkerOptions = {}): Promise<number> {
  const me = opts.workerId ?? workerId();
  const concurrency = opts.concurrency ?? 1;
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > MAX_CONCURRENCY) throw new RangeError(`concurrency must be an integer from 1 to ${MAX_CONCURRENCY}`);
  const jobDeps: ScoringDeps = opts.signal && !deps.signal ? { ...deps, signal: opts.signal } : deps;
  const recovered = await retryBusy(() => recoverAbandonedJobs(db, deps.now()));
  if (recovered) opts.log?.(`resuming ${recovered} job(s) of a worker that stopped`);

  const loop = async (): Promise<number> => {
    let ran = 0;
    while (!opts.signal?.aborted) {
      let lease: Lease | undefined;
      try {
        lease = await retryBusy(() => claimNextJob(db, me, deps.now(), opts.staleMs));
      } catch (err) {
        // A database away for longer than the retries: the worker waits for it, it does not exit.
        if (!isBusy(err)) throw err;
        opts.log?.(`the database is unavailable (${err instanceof Error ? err.message : String(err)}); trying again`);
        await pause(opts.pollMs ?? 1000, opts.signal);
        continue;
      }
      if (lease === undefined) {
        if (opts.untilIdle) break;
        await pause(opts.pollMs ?? 1000, opts.signal);
        continue;
      }
      ran++;
      let outcome: JobOutcome;
      try {
        outcome = await runScoringJob(db, lease, jobDeps);
      } catch (err) {
        // The database stayed away past the retries: nothing can be written now, and the job
        // is not at fault. Its lease goes stale and a claim resumes it.
        if (isBusy(err)) {
          opts.log?.(`job ${lease.id}: the database is unavailable; left to resume`);
          continue;
        }
        // A job that throws fails alone; the next restart must not take it first and throw again.
        const message = `the job threw: ${err instanceof Error ? err.message : String(err)}`;
        const failed = await retryBusy(() =>
          writeTx(db, async (tx) => {
            const at = deps.now();
            if (!(await holdLease(tx, lease, at))) return false;
            await failRun(tx, lease.id, message, at);
            return true;
          }),
        );
        opts.log?.(`job ${lease.id}: ${failed ? `failed (${message})` : "lost"}`);
        continue;
      }
      opts.log?.(`job ${lease.id}: ${outcome}`);
    }
    return ran;
  };
  const counts = await Promise.all(Array.from({ length: concurrency }, loop));
  return counts.reduce((a, b) => a + b, 0);
}
