/**
 * The worker: claims jobs from the durable job table and runs them. A job whose worker died
 * (its process is gone, or its heartbeat is stale) is claimed again and resumes.
 */
import { hostname } from "node:os";
import { and, asc, eq, lt, or } from "drizzle-orm";
import type { Db } from "../../db/client";
import { jobs } from "../../db/schema";
import { failRun } from "./runs";
import { runScoringJob, type JobOutcome, type ScoringDeps } from "./score-job";

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
  const running = db.select().from(jobs).where(eq(jobs.state, "running")).all();
  let n = 0;
  for (const j of running) {
    if (!workerAlive(j.lockedBy)) {
      db.update(jobs).set({ state: "queued", lockedBy: null, updatedAt: now, lastError: `worker ${j.lockedBy} died; resumed` }).where(eq(jobs.id, j.id)).run();
      n++;
    }
  }
  return n;
}

export function claimNextJob(db: Db, id: string, now: Date, staleMs = 120_000): number | undefined {
  return db.transaction((tx) => {
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
  signal?: AbortSignal;
  log?: (line: string) => void;
}

export async function runWorker(db: Db, deps: ScoringDeps, opts: WorkerOptions = {}): Promise<number> {
  const me = workerId();
  const recovered = recoverAbandonedJobs(db, deps.now());
  if (recovered) opts.log?.(`resuming ${recovered} job(s) of a worker that stopped`);
  let ran = 0;
  while (!opts.signal?.aborted) {
    const jobId = claimNextJob(db, me, deps.now());
    if (jobId === undefined) {
      if (opts.untilIdle) break;
      await new Promise((r) => setTimeout(r, opts.pollMs ?? 1000));
      continue;
    }
    ran++;
    let outcome: JobOutcome;
    try {
      outcome = await runScoringJob(db, jobId, deps);
    } catch (err) {
      // A job that throws fails alone; the next restart must not take it first and throw again.
      const message = `the job threw: ${err instanceof Error ? err.message : String(err)}`;
      db.transaction((tx) => failRun(tx, jobId, message, deps.now()));
      opts.log?.(`job ${jobId}: failed (${message})`);
      continue;
    }
    opts.log?.(`job ${jobId}: ${outcome}`);
  }
  return ran;
}
