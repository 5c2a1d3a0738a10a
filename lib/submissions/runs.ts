/** Scoring runs and their durable jobs. A rescore is a new run; old runs are kept. */
import { and, desc, eq, inArray } from "drizzle-orm";
import type { Benchmark } from "../benchmark/load-benchmark";
import type { ReplayMode } from "../replay/replay-port";
import { auditLog, jobs, scoringRuns, submissions, type SubmissionState } from "../../db/schema";
import { transition, type Tx } from "./transitions";

export interface RunSpec {
  judgeKind: "rules" | "openai";
  judgeModel?: string;
  replayMode: ReplayMode;
}

/** The default run: the benchmark's judge, MCP replay where tool servers are declared. */
export function defaultRunSpec(benchmark: Benchmark): RunSpec {
  const replayMode: ReplayMode = benchmark.capabilities.some((c) => c.spec.environment) ? "mcp" : "recorded";
  return { judgeKind: benchmark.spec.judge.kind, ...(benchmark.spec.judge.model ? { judgeModel: benchmark.spec.judge.model } : {}), replayMode };
}

export function queueRun(tx: Tx, submissionId: number, benchmark: Benchmark, spec: Partial<RunSpec>, at: Date): number {
  const s = { ...defaultRunSpec(benchmark), ...spec };
  const run = tx
    .insert(scoringRuns)
    .values({ submissionId, judgeKind: s.judgeKind, judgeModel: s.judgeModel ?? null, replayMode: s.replayMode, verified: s.replayMode === "mcp", status: "queued", createdAt: at })
    .returning()
    .get();
  tx.insert(jobs).values({ kind: "score", runId: run.id, state: "queued", createdAt: at, updatedAt: at }).run();
  return run.id;
}

export interface RunRef {
  id: number;
  submissionId: number;
}

/**
 * Why a run no longer speaks for its submission, or null while it does: a newer run was
 * queued (a rescore), or the submission left the states the run may find it in (withdrawn,
 * rejected, re-queued, resubmitted). Call inside the transaction that acts on the answer.
 */
export function supersededBecause(tx: Tx, run: RunRef, live: readonly SubmissionState[]): string | null {
  const newer = tx.select({ id: scoringRuns.id }).from(scoringRuns).where(eq(scoringRuns.submissionId, run.submissionId)).orderBy(desc(scoringRuns.id)).limit(1).get();
  if (newer && newer.id > run.id) return `a newer run (${newer.id}) was queued for the submission`;
  const sub = tx.select({ state: submissions.state }).from(submissions).where(eq(submissions.id, run.submissionId)).get();
  if (!sub) return `submission ${run.submissionId} does not exist`;
  return live.includes(sub.state) ? null : `the submission is ${sub.state}`;
}

/**
 * Closes a run that no longer speaks for its submission: its item results are kept, nothing
 * is published, the submission's state is left alone, and the job is done (not retried).
 */
export function supersedeRun(tx: Tx, run: RunRef, jobId: number, why: string, at: Date): void {
  tx.update(scoringRuns).set({ status: "superseded", finishedAt: at }).where(eq(scoringRuns.id, run.id)).run();
  tx.update(jobs).set({ state: "done", updatedAt: at }).where(eq(jobs.id, jobId)).run();
  tx.insert(auditLog).values({ at, actor: "worker", action: "run:superseded", submissionId: run.submissionId, reason: `run ${run.id} superseded: ${why}`, details: { runId: run.id } }).run();
}

/**
 * Fails a job and its run. The submission goes to `error` only while it is still scoring for
 * this run; a withdrawn, re-queued or rescored one is left as it is.
 */
export function failRun(tx: Tx, jobId: number, message: string, at: Date): void {
  const job = tx.select({ runId: jobs.runId }).from(jobs).where(eq(jobs.id, jobId)).get();
  if (!job) return;
  tx.update(jobs).set({ state: "failed", lastError: message, updatedAt: at }).where(eq(jobs.id, jobId)).run();
  const run = tx.select({ id: scoringRuns.id, submissionId: scoringRuns.submissionId }).from(scoringRuns).where(eq(scoringRuns.id, job.runId)).get();
  if (!run) return;
  // A run already closed (completed, superseded) keeps its status.
  tx.update(scoringRuns)
    .set({ status: "failed", error: message, finishedAt: at })
    .where(and(eq(scoringRuns.id, run.id), inArray(scoringRuns.status, ["queued", "running"])))
    .run();
  if (supersededBecause(tx, run, ["scoring"]) === null) transition(tx, run.submissionId, "error", { actor: "worker", at, reason: message, details: { runId: run.id } });
}
