/** Scoring runs and their durable jobs. A rescore is a new run; old runs are kept. */
import { and, desc, eq, inArray } from "drizzle-orm";
import type { Benchmark } from "../benchmark/load-benchmark";
import type { ReplayMode } from "../replay/replay-port";
import { auditLog, jobs, scoringRuns, submissions, type SubmissionState } from "../../db/schema";
import { transition, type Tx } from "./transitions";

export interface RunSpec {
  /** `panel`: the benchmark's judge.panel (lib/judges/panel-grader.ts). */
  judgeKind: "rules" | "literal" | "openai" | "panel";
  judgeModel?: string;
  replayMode: ReplayMode;
}

/** The default run: the benchmark's judge, MCP replay where tool servers are declared. */
export function defaultRunSpec(benchmark: Benchmark): RunSpec {
  const replayMode: ReplayMode = benchmark.capabilities.some((c) => c.spec.environment) ? "mcp" : "recorded";
  if (benchmark.spec.judge.panel) return { judgeKind: "panel", replayMode };
  return { judgeKind: benchmark.spec.judge.kind, ...(benchmark.spec.judge.model ? { judgeModel: benchmark.spec.judge.model } : {}), replayMode };
}

export async function queueRun(tx: Tx, submissionId: number, benchmark: Benchmark, spec: Partial<RunSpec>, at: Date): Promise<number> {
  const s = { ...defaultRunSpec(benchmark), ...spec };
  const [run] = await tx
    .insert(scoringRuns)
    .values({ submissionId, judgeKind: s.judgeKind, judgeModel: s.judgeModel ?? null, replayMode: s.replayMode, verified: s.replayMode === "mcp", status: "queued", createdAt: at })
    .returning({ id: scoringRuns.id });
  await tx.insert(jobs).values({ kind: "score", runId: run!.id, state: "queued", createdAt: at, updatedAt: at });
  return run!.id;
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
export async function supersededBecause(tx: Tx, run: RunRef, live: readonly SubmissionState[]): Promise<string | null> {
  const [newer] = await tx.select({ id: scoringRuns.id }).from(scoringRuns).where(eq(scoringRuns.submissionId, run.submissionId)).orderBy(desc(scoringRuns.id)).limit(1);
  if (newer && newer.id > run.id) return `a newer run (${newer.id}) was queued for the submission`;
  const [sub] = await tx.select({ state: submissions.state }).from(submissions).where(eq(submissions.id, run.submissionId)).limit(1);
  if (!sub) return `submission ${run.submissionId} does not exist`;
  return live.includes(sub.state) ? null : `the submission is ${sub.state}`;
}

/**
 * Closes a run that no longer speaks for its submission: its item results are kept, nothing
 * is published, the submission's state is left alone, and the job is done (not retried).
 * A worker calls it behind its lease fence (score-job.ts `holdLease`).
 */
export async function supersedeRun(tx: Tx, run: RunRef, jobId: number, why: string, at: Date): Promise<void> {
  await tx.update(scoringRuns).set({ status: "superseded", finishedAt: at }).where(eq(scoringRuns.id, run.id));
  await tx.update(jobs).set({ state: "done", updatedAt: at }).where(eq(jobs.id, jobId));
  await tx.insert(auditLog).values({ at, actor: "worker", action: "run:superseded", submissionId: run.submissionId, reason: `run ${run.id} superseded: ${why}`, details: { runId: run.id } });
}

/**
 * Fails a job and its run. The submission goes to `error` only while it is still scoring for
 * this run; a withdrawn, re-queued or rescored one is left as it is. A worker calls it behind
 * its lease fence (score-job.ts `holdLease`).
 */
export async function failRun(tx: Tx, jobId: number, message: string, at: Date): Promise<void> {
  const [job] = await tx.select({ runId: jobs.runId }).from(jobs).where(eq(jobs.id, jobId)).limit(1);
  if (!job) return;
  await tx.update(jobs).set({ state: "failed", lastError: message, updatedAt: at }).where(eq(jobs.id, jobId));
  const [run] = await tx.select({ id: scoringRuns.id, submissionId: scoringRuns.submissionId }).from(scoringRuns).where(eq(scoringRuns.id, job.runId)).limit(1);
  if (!run) return;
  // A run already closed (completed, superseded) keeps its status.
  await tx
    .update(scoringRuns)
    .set({ status: "failed", error: message, finishedAt: at })
    .where(and(eq(scoringRuns.id, run.id), inArray(scoringRuns.status, ["queued", "running"])));
  if ((await supersededBecause(tx, run, ["scoring"])) === null) await transition(tx, run.submissionId, "error", { actor: "worker", at, reason: message, details: { runId: run.id } });
}
