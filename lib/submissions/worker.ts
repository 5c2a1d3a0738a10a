/**
 * The worker: claims jobs from the durable job table and runs them. A job whose worker died
 * (its process is gone, or its heartbeat is stale) is claimed again and resumes. Several
 * workers may share the database: a claim is one IMMEDIATE write transaction, so two never
 * take the same job, and a busy database is waited for, never a crash (db-busy.ts).
 */
import { hostname } from "node:os";
import { and, asc, eq, lt, or } from "drizzle-orm";
import type { Db } from "../../db/client";
import { jobs } from "../../db/schema";
import { retryBusy, writeTx } from "./db-busy";
import { failRun } from "./runs";
import { runScoringJob, type JobOutcome, type ScoringDeps } from "./score-job";

/**
 * A running job whose heartbeat is older than this is taken to be abandoned and claimed
 * again. Workers renew it every `ScoringDeps.heartbeatMs` (30 s) while a job runs. Change it
 * with `WorkerOptions.staleMs`.
 */
export const DEFAULT_STALE_MS = 120_000;

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

/** Puts jobs of dead workers back in the queue; returns how many. */
export function recoverAbandonedJobs(db: Db, now: Date): number {
  return writeTx(db, (tx) => {
    const running = tx.select().from(jobs).where(eq(jobs.state, "running")).all();
    let n = 0;
    for (const j of running) {
      if (!workerAlive(j.lockedBy)) {
        tx.update(jobs).set({ state: "queued", lockedBy: null, updatedAt: now, lastError: `worker ${j.lockedBy} died; resumed` }).where(eq(jobs.id, j.id)).run();
        n++;
      }
    }
    return n;
  });
}

/** Takes the next queued (or abandoned) job for worker `id`, in one write transaction. */
export function claimNextJob(db: Db, id: string, now: Date, staleMs = DEFAULT_STALE_MS): number | undefined {
  return writeTx(db, (tx) => {
    const job = tx
      .select()
      .from(jobs)
      .where(or(eq(jobs.state, "queued"), and(eq(jobs.state, "running"), lt(jobs.heartbeatAt, new Date(now.getTime() - staleMs)))))
      .orderBy(asc(jobs.id))
      .limit(1)
      .get();
    if (!job) return undefined;
    tx.update(jobs).set({ state: "running", lockedBy: id, heartbeatAt: now, attempts: job.attempts + 1, updatedAt: now }).where(eq(jobs.id, job.id)).run();
    return job.id;
  });
}

export interface WorkerOptions {
  /** Stop when the queue is empty instead of polling. */
  untilIdle?: boolean;
  pollMs?: number;
  /** A running job with an older heartbeat is claimed as abandoned (default DEFAULT_STALE_MS). */
  staleMs?: number;
  /** Stops the worker: the job in hand is left to resume (see `ScoringDeps.signal`), none is claimed after. */
  signal?: AbortSignal;
  log?: (line: string) => void;
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

export async function runWorker(db: Db, deps: ScoringDeps, opts: WorkerOptions = {}): Promise<number> {
  const me = workerId();
  const jobDeps: ScoringDeps = opts.signal && !deps.signal ? { ...deps, signal: opts.signal } : deps;
  const recovered = await retryBusy(() => recoverAbandonedJobs(db, deps.now()));
  if (recovered) opts.log?.(`resuming ${recovered} job(s) of a worker that stopped`);
  let ran = 0;
  while (!opts.signal?.aborted) {
    const jobId = await retryBusy(() => claimNextJob(db, me, deps.now(), opts.staleMs));
    if (jobId === undefined) {
      if (opts.untilIdle) break;
      await pause(opts.pollMs ?? 1000, opts.signal);
      continue;
    }
    ran++;
    let outcome: JobOutcome;
    try {
      outcome = await runScoringJob(db, jobId, jobDeps);
    } catch (err) {
      // A job that throws fails alone; the next restart must not take it first and throw again.
      const message = `the job threw: ${err instanceof Error ? err.message : String(err)}`;
      await retryBusy(() => writeTx(db, (tx) => failRun(tx, jobId, message, deps.now())));
      opts.log?.(`job ${jobId}: failed (${message})`);
      continue;
    }
    opts.log?.(`job ${jobId}: ${outcome}`);
  }
  return ran;
}
