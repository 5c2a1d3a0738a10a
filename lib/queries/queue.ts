/**
 * The public queue: the submissions still in flight, in the order the worker takes them, and
 * the finished ones a page at a time. Agent names are cut to a length; which rows link to an
 * entry page is the page's business (only published ones, for the public).
 *
 * The worker (lib/submissions/worker.ts#claimNextJob) takes queued jobs by ascending job id,
 * one job per run; a rescore queues a newer run, and the older one is closed unscored when it
 * is reached. So the position of a queued submission is the rank of its latest run's job
 * among the queued jobs of queued submissions.
 */
import { count, desc, eq, inArray, max, sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { benchmarks, benchmarkVersions, jobs, scoringRuns, submissions, type SubmissionState } from "../../db/schema";
import { benchmarkColumns, benchmarkLabel, MAX_PAGE_SIZE, paging, type PageOpts, type Paged } from "./activity";
import { prefixOf } from "./sql-prefix";
import { createClipper, PUBLIC_RENDER_LIMITS } from "./render-limits";
import type { InFlightRow, QueueRow } from "./types";

/** States the worker has not finished with, in pipeline order. */
export const IN_FLIGHT_STATES = ["received", "validating", "queued", "scoring"] as const satisfies readonly SubmissionState[];
/** Every other state, for the finished list and its `?state=` filter. */
export const FINISHED_STATES = ["scored", "approved", "published", "invalid", "error", "rejected", "withdrawn"] as const satisfies readonly SubmissionState[];
export type FinishedState = (typeof FINISHED_STATES)[number];

/**
 * Time left for a running run, at its own pace so far: only for a run scored in one go (a
 * resumed one counts items judged before the stop) that has done at least a twentieth of its
 * items, ten or more, over ten seconds or more. Anything less says too little to estimate.
 */
export function remainingMs(run: { done: number; total: number; startedAt: Date | null; attempts: number }, now: Date): number | null {
  if (!run.startedAt || run.attempts !== 1 || run.total <= 0 || run.done >= run.total) return null;
  const elapsed = now.getTime() - run.startedAt.getTime();
  if (run.done < Math.max(10, run.total / 20) || elapsed < 10_000) return null;
  return Math.round((elapsed * (run.total - run.done)) / run.done);
}

const clipped = (clip: ReturnType<typeof createClipper>, r: { id: number; agent: { head: string; length: number }; state: SubmissionState; source: string; updatedAt: Date; isDemo: boolean; bench: string; version: string }) => ({
  id: r.id,
  agent: clip.prefix(r.agent, PUBLIC_RENDER_LIMITS.name),
  benchmark: clip.name(benchmarkLabel(r)),
  state: r.state,
  source: r.source,
  updatedAt: r.updatedAt.toISOString(),
  isDemo: r.isDemo,
});

const submissionColumns = {
  id: submissions.id,
  agent: prefixOf(submissions.agentName, PUBLIC_RENDER_LIMITS.name),
  state: submissions.state,
  source: submissions.source,
  updatedAt: submissions.updatedAt,
  createdAt: submissions.createdAt,
  isDemo: submissions.isDemo,
  ...benchmarkColumns,
};

/**
 * Every submission in flight (at most MAX_PAGE_SIZE): running ones first with their progress,
 * then those being validated, then the queued ones numbered 1, 2, … in the worker's order.
 */
export async function getInFlight(db: Db, now: Date): Promise<{ rows: InFlightRow[]; total: number }> {
  const clip = createClipper(PUBLIC_RENDER_LIMITS);
  const inFlight = inArray(submissions.state, [...IN_FLIGHT_STATES]);
  const [counted] = await db.select({ n: count() }).from(submissions).where(inFlight);
  const total = counted?.n ?? 0;
  const latestRun = db.select({ submissionId: scoringRuns.submissionId, runId: max(scoringRuns.id).as("latest_run_id") }).from(scoringRuns).groupBy(scoringRuns.submissionId).as("latest_run");
  const rows = await db
    .select({
      ...submissionColumns,
      run: { done: scoringRuns.progressDone, total: scoringRuns.progressTotal, startedAt: scoringRuns.startedAt, createdAt: scoringRuns.createdAt },
      job: { id: jobs.id, state: jobs.state, attempts: jobs.attempts },
    })
    .from(submissions)
    .innerJoin(benchmarkVersions, eq(benchmarkVersions.id, submissions.benchmarkVersionId))
    .innerJoin(benchmarks, eq(benchmarks.id, benchmarkVersions.benchmarkId))
    .leftJoin(latestRun, eq(latestRun.submissionId, submissions.id))
    .leftJoin(scoringRuns, eq(scoringRuns.id, latestRun.runId))
    .leftJoin(jobs, eq(jobs.runId, scoringRuns.id))
    .where(inFlight)
    // Running jobs, then submissions not yet queued, then queued jobs by id (the worker's order).
    // A submission with no job sorts by its id alone: NULLS FIRST says where SQLite puts a null job id.
    .orderBy(sql`CASE WHEN ${jobs.state} = 'running' THEN 0 WHEN ${jobs.id} IS NULL THEN 1 WHEN ${jobs.state} = 'queued' THEN 2 ELSE 3 END`, sql`${jobs.id} ASC NULLS FIRST`, submissions.id)
    .limit(MAX_PAGE_SIZE);
  let position = 0;
  return {
    total,
    rows: rows.map(({ run, job, ...sub }): InFlightRow => {
      const running = job?.state === "running";
      const waiting = job?.state === "queued" && sub.state === "queued";
      return {
        ...clipped(clip, sub),
        position: waiting ? ++position : null,
        running,
        progress: running && run ? { done: run.done, total: run.total } : null,
        waitingSince: (run?.createdAt ?? sub.createdAt).toISOString(),
        remainingMs: running && run && job ? remainingMs({ done: run.done, total: run.total, startedAt: run.startedAt, attempts: job.attempts }, now) : null,
      };
    }),
  };
}

/** Finished submissions (or those of one finished state), most recently updated first, with counts per state. */
export async function getFinishedPage(db: Db, opts: PageOpts & { state?: FinishedState } = {}): Promise<Paged<QueueRow> & { byState: Partial<Record<SubmissionState, number>> }> {
  const { page, pageSize, offset } = paging(opts, 50);
  const clip = createClipper(PUBLIC_RENDER_LIMITS);
  const counts = await db.select({ state: submissions.state, n: count() }).from(submissions).groupBy(submissions.state);
  const byState: Partial<Record<SubmissionState, number>> = Object.fromEntries(counts.map((r) => [r.state, r.n]));
  const states = opts.state ? [opts.state] : [...FINISHED_STATES];
  const total = states.reduce((a, s) => a + (byState[s] ?? 0), 0);
  const rows = await db
    .select(submissionColumns)
    .from(submissions)
    .innerJoin(benchmarkVersions, eq(benchmarkVersions.id, submissions.benchmarkVersionId))
    .innerJoin(benchmarks, eq(benchmarks.id, benchmarkVersions.benchmarkId))
    .where(inArray(submissions.state, states))
    .orderBy(desc(submissions.updatedAt), desc(submissions.id))
    .limit(pageSize)
    .offset(offset);
  return { byState, total, page, pageSize, rows: rows.map((r) => ({ ...clipped(clip, r), progress: null })) };
}

/** The submissions in flight, then the first MAX_PAGE_SIZE finished ones. */
export async function getQueue(db: Db): Promise<QueueRow[]> {
  return [...(await getInFlight(db, new Date())).rows, ...(await getFinishedPage(db, { pageSize: MAX_PAGE_SIZE })).rows];
}
