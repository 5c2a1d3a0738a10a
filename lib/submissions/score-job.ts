/**
 * Runs one scoring job. Item results are stored as they are scored, so a job interrupted by
 * a crash resumes where it stopped; the run and its scores become visible in one
 * transaction at the end. While it runs, the job's heartbeat is renewed on a timer, so a
 * long item never lets the lease go stale. A worker told to stop (`signal`) leaves the job
 * queued to resume, keeping the items judged before the stop and none after it.
 */
import { and, eq, isNull } from "drizzle-orm";
import type { Db } from "../../db/client";
import { auditLog, capabilityScores, domainScores, itemResults, jobs, scoringRuns, submissions } from "../../db/schema";
import type { Benchmark } from "../benchmark/load-benchmark";
import type { ReplayPort } from "../replay/replay-port";
import type { Grader } from "../scoring/judges/grader";
import type { RecordedJudge } from "../scoring/judges/judge-settings";
import { isUnjudged, itemKey, trialItemKey, type ItemResult } from "../scoring/item-result";
import type { AgentboardVersion } from "../scoring/manifest";
import { scoreBundle } from "../scoring/score-bundle";
import { benchmarkOfVersion } from "./benchmarks";
import { isBusy, retryBusy, writeTx } from "./db-busy";
import { recordRunIntegrity } from "./run-integrity";
import { failRun, supersedeRun, supersededBecause, type RunSpec } from "./runs";
import { transition, type Tx } from "./transitions";

export interface ScoringDeps {
  now: () => Date;
  /** A replay port for the benchmark; the worker keeps them warm across jobs. */
  replayFor: (benchmark: Benchmark, mode: RunSpec["replayMode"]) => Promise<ReplayPort>;
  /** The run's judge, resolved by the one judge factory; throws when it cannot be built. */
  graderFor: (benchmark: Benchmark, spec: Pick<RunSpec, "judgeKind" | "judgeModel">) => { grader: Grader; judge: RecordedJudge };
  /** Items stored per write transaction. */
  flushEvery?: number;
  /**
   * Stops the job (a worker shutting down): judges stop waiting, the items judged after the
   * stop are dropped, and the job goes back to the queue to resume. The same signal should
   * reach the judge (createScoringDeps passes it on).
   */
  signal?: AbortSignal;
  /** How often a running job renews its heartbeat (default DEFAULT_HEARTBEAT_MS). */
  heartbeatMs?: number;
  /** Test seam for the heartbeat timer: calls `beat` every `ms` until the returned function is called. */
  every?: (beat: () => void, ms: number) => () => void;
  /** What Agentboard is, for each run's manifest (the package version, and the commit when the caller knows it). */
  agentboard?: AgentboardVersion;
}

/**
 * A running job renews its heartbeat this often; a heartbeat older than the worker's
 * `staleMs` (2 min) lets another worker take the job. Change it with `ScoringDeps.heartbeatMs`.
 */
export const DEFAULT_HEARTBEAT_MS = 30_000;

/**
 * `superseded`: the submission was withdrawn, rejected or re-queued under the run; nothing was published.
 * `interrupted`: the worker was stopped; the job is queued again and resumes where it stopped.
 * `lost`: another worker took the job over (this one's lease went stale); this one published nothing.
 */
export type JobOutcome = "completed" | "incomplete" | "failed" | "superseded" | "interrupted" | "lost";

function everyInterval(beat: () => void, ms: number): () => void {
  const timer = setInterval(beat, ms);
  timer.unref();
  return () => clearInterval(timer);
}

export async function runScoringJob(db: Db, jobId: number, deps: ScoringDeps): Promise<JobOutcome> {
  const job = db.select().from(jobs).where(eq(jobs.id, jobId)).get();
  if (!job) throw new Error(`job ${jobId} does not exist`);
  const run = db.select().from(scoringRuns).where(eq(scoringRuns.id, job.runId)).get();
  if (!run) throw new Error(`job ${jobId}: run ${job.runId} does not exist`);
  const sub = db.select().from(submissions).where(eq(submissions.id, run.submissionId)).get()!;
  const signal = deps.signal;
  // Our lease: the job is still running and still ours (no other worker took it as abandoned).
  const ours = and(eq(jobs.id, job.id), eq(jobs.state, "running"), job.lockedBy === null ? isNull(jobs.lockedBy) : eq(jobs.lockedBy, job.lockedBy));
  const stillOurs = (tx: Tx) => tx.select({ id: jobs.id }).from(jobs).where(ours).get() !== undefined;
  const fail = async (message: string): Promise<JobOutcome> => {
    if (signal?.aborted) return interrupt();
    return retryBusy(() => writeTx(db, (tx): JobOutcome => {
      if (!stillOurs(tx)) return "lost";
      failRun(tx, job.id, message, deps.now());
      return "failed";
    }));
  };
  // Stopped: back to the queue, to resume from the stored items.
  const interrupt = (): Promise<JobOutcome> =>
    retryBusy(() => {
      const at = deps.now();
      return writeTx(db, (tx): JobOutcome => {
        if (!stillOurs(tx)) return "lost";
        tx.update(jobs).set({ state: "queued", lockedBy: null, updatedAt: at, lastError: "the worker was stopped; the job resumes where it stopped" }).where(eq(jobs.id, job.id)).run();
        return "interrupted";
      });
    });

  const scoreJob = async (): Promise<JobOutcome> => {
    // A job still queued for a submission withdrawn, rejected or rescored since is closed unscored.
    const startedAt = deps.now();
    const stale = await retryBusy(() => writeTx(db, (tx) => {
      const why = supersededBecause(tx, run, ["queued", "scoring"]);
      if (why) {
        supersedeRun(tx, run, job.id, why, startedAt);
        return true;
      }
      tx.update(scoringRuns).set({ status: "running", startedAt: run.startedAt ?? startedAt }).where(eq(scoringRuns.id, run.id)).run();
      const state = tx.select({ state: submissions.state }).from(submissions).where(eq(submissions.id, sub.id)).get()!.state;
      if (state !== "scoring") transition(tx, sub.id, "scoring", { actor: "worker", at: startedAt, details: { runId: run.id } });
      return false;
    }));
    if (stale) return "superseded";

    let benchmark: Benchmark;
    try {
      benchmark = await benchmarkOfVersion(db, sub.benchmarkVersionId);
    } catch (err) {
      return fail(`benchmark unavailable: ${err instanceof Error ? err.message : String(err)}`);
    }
    let judge: ReturnType<ScoringDeps["graderFor"]>;
    try {
      judge = deps.graderFor(benchmark, { judgeKind: run.judgeKind, ...(run.judgeModel ? { judgeModel: run.judgeModel } : {}) });
    } catch (err) {
      return fail(`judge unavailable: ${err instanceof Error ? err.message : String(err)}`);
    }

    const stored = db.select({ result: itemResults.result, trial: itemResults.trial }).from(itemResults).where(eq(itemResults.runId, run.id)).all();
    // Keyed by trial too: a bundle of trials stores each item once per trial. A result stored before trials were kept reads as trial 1 (the column's default).
    const done = new Map(stored.map(({ result, trial }) => [trialItemKey(result.capability, result.uuid, trial), { ...result, trial }] as const));
    const buffer: ItemResult[] = [];
    let count = done.size;
    let total = 0;
    const flushEvery = deps.flushEvery ?? 25;
    // Writes the buffered items. With `tolerant`, a busy database puts the batch back for the next flush.
    const flush = (tolerant: boolean) => {
      if (buffer.length === 0) return;
      const batch = buffer.splice(0);
      const at = deps.now();
      try {
        writeTx(db, (tx) => {
          for (const r of batch) {
            tx.insert(itemResults)
              .values({ runId: run.id, capability: r.capability, domain: r.domain, uuid: r.uuid, trial: r.trial, weight: r.weight, score: r.score, status: r.status, stage: r.stage, scorer: r.scorer, bucket: r.bucket, exactPassed: r.scorer === "waterfall" && r.exactPassed, policy: r.scorer === "waterfall" ? r.policy : null, result: r, fingerprint: r.fingerprint ?? null })
              .onConflictDoNothing()
              .run();
          }
          tx.update(scoringRuns).set({ progressDone: count + batch.length, progressTotal: total }).where(eq(scoringRuns.id, run.id)).run();
          tx.update(jobs).set({ heartbeatAt: at, updatedAt: at }).where(ours).run();
        });
        count += batch.length;
      } catch (err) {
        buffer.unshift(...batch);
        if (!(tolerant && isBusy(err))) throw err;
      }
    };

    let outcome: Awaited<ReturnType<typeof scoreBundle>>;
    try {
      const replay = await deps.replayFor(benchmark, run.replayMode);
      outcome = await scoreBundle(benchmark, sub.bundlePath, {
        grader: judge.grader,
        judge: judge.judge,
        replay,
        now: deps.now,
        expectSha256: sub.bundleSha256,
        ...(deps.agentboard ? { agentboard: deps.agentboard } : {}),
        done,
        onProgress: (_d, t) => (total = t),
        onItem: (r) => {
          // An item judged after the stop may be "unjudged" only because the judge was stopped.
          if (signal?.aborted) return;
          buffer.push(r);
          if (buffer.length >= flushEvery) flush(true);
        },
      });
      if (!signal?.aborted) await retryBusy(() => flush(false));
    } catch (err) {
      return fail(`scoring failed: ${err instanceof Error ? err.message : String(err)}`);
    }
    if (signal?.aborted) {
      // What was judged before the stop is kept; what was not yet stored is judged again on resume.
      await retryBusy(() => flush(false));
      return interrupt();
    }
    if (outcome.kind === "invalid") return fail(`the bundle no longer validates (${outcome.report.summary.errors} errors)`);
    if (outcome.kind === "changed") return fail(`the bundle changed since it was received (sha256 ${outcome.sha256.slice(0, 12)} ≠ ${sub.bundleSha256.slice(0, 12)})`);
    const { results } = outcome;
    const items = results.items;
    const judgeId = judge.judge.id;
    const unjudged = items.filter(isUnjudged).length;
    const at = deps.now();
    return retryBusy(() => writeTx(db, (tx): JobOutcome => {
      // Another worker took the job over while this one was slow: it publishes, this one does not.
      if (!stillOurs(tx)) return "lost";
      // Decided in the transaction that writes: a withdraw or rescore landing mid-run wins, and
      // the run closes as superseded with nothing published and the submission left alone.
      const why = supersededBecause(tx, run, ["scoring"]);
      if (why) {
        supersedeRun(tx, run, job.id, why, at);
        return "superseded";
      }
      for (const [capability, c] of Object.entries(results.capabilities)) {
        tx.insert(capabilityScores)
          .values({ runId: run.id, capability, score: c.score, ciLow: c.ciLow, ciHigh: c.ciHigh, submitted: c.submitted, nItems: c.nItems, nMissing: c.nMissing, nError: c.nError, nPolicyUnchecked: c.nPolicyUnchecked, statusCounts: c.statusCounts })
          .onConflictDoNothing()
          .run();
        for (const [domain, d] of Object.entries(c.domains)) tx.insert(domainScores).values({ runId: run.id, capability, domain, score: d.score, nItems: d.nItems }).onConflictDoNothing().run();
      }
      tx.update(scoringRuns)
        .set({ status: "completed", judgeId, judge: judge.judge, progressDone: items.length, progressTotal: items.length, overallScore: results.overall.score, overallCiLow: results.overall.ciLow, overallCiHigh: results.overall.ciHigh, complete: results.overall.complete, cost: results.cost, manifest: results.manifest, trials: results.trials, trialStats: results.trialStats, finishedAt: at })
        .where(eq(scoringRuns.id, run.id))
        .run();
      tx.update(jobs).set({ state: "done", updatedAt: at }).where(eq(jobs.id, job.id)).run();
      tx.update(submissions).set({ currentRunId: run.id }).where(eq(submissions.id, sub.id)).run();
      recordRunIntegrity(tx, { id: run.id, submissionId: sub.id, versionId: sub.benchmarkVersionId, agent: sub.agentName }, { flags: results.flags, unsupportedAnswers: results.unsupportedAnswers }, at);
      const details = { runId: run.id, overall: Math.round(results.overall.score * 10) / 10, judge: judgeId, replay: run.replayMode };
      if (unjudged > 0) transition(tx, sub.id, "error", { actor: "worker", at, reason: `${unjudged} item(s) could not be judged or replayed; rescore before publishing`, details });
      else transition(tx, sub.id, "scored", { actor: "worker", at, details });
      tx.insert(auditLog).values({ at, actor: "worker", action: "run:completed", submissionId: sub.id, reason: `run ${run.id}`, details }).run();
      return unjudged > 0 ? "incomplete" : "completed";
    }));
  };

  const stopBeating = (deps.every ?? everyInterval)(() => {
    // Best effort: a busy database or a closed one only delays the next beat.
    try {
      const at = deps.now();
      db.update(jobs).set({ heartbeatAt: at }).where(ours).run();
    } catch {
      // next beat
    }
  }, deps.heartbeatMs ?? DEFAULT_HEARTBEAT_MS);
  try {
    return await scoreJob();
  } finally {
    stopBeating();
  }
}
