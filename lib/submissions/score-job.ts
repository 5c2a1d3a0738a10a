/**
 * Runs one scoring job. Item results are stored as they are scored, so a job interrupted by
 * a crash resumes where it stopped; the run and its scores become visible in one
 * transaction at the end. While it runs, the job's heartbeat is renewed on a timer, so a
 * long item never lets the lease go stale. A worker told to stop (`signal`) leaves the job
 * queued to resume, keeping the items judged before the stop and none after it. A submission
 * withdrawn, rejected or rescored while its run is scoring stops the run at the next flush of
 * items: that flush closes the run as superseded instead of writing, and scoring ends.
 */
import { eq } from "drizzle-orm";
import type { Db, Tx } from "../../db/client";
import { auditLog, capabilityScores, domainScores, itemResults, jobs, scoringRuns, submissions } from "../../db/schema";
import type { Benchmark } from "../benchmark/load-benchmark";
import type { ReplayPort } from "../replay/replay-port";
import type { Grader } from "../judges/grader";
import type { RecordedJudge } from "../judges/judge-settings";
import { isUnjudged, type ItemResult } from "../scoring/item-result";
import { itemKey, trialItemKey } from "../benchmark/item-key";
import type { AgentboardVersion } from "../scoring/manifest";
import { calibrationRefFor } from "./publication-hold";
import { scoreBundle } from "../aggregate/score-bundle";
import type { ValidationLimits } from "../validate/limits";
import { storedOverallResamples } from "../queries/resampled-entries";
import { runItemSummary } from "../queries/submission";
import { benchmarkOfVersion } from "./benchmarks";
import { BundleLostError, localBundle, lostReason } from "./bundle-storage";
import { isBusy, retryBusy, writeTx } from "./db-busy";
import { holdLease, type Lease } from "./job-lease";
import { recordDisputes } from "./grade-disputes";
import { recordRunIntegrity } from "./run-integrity";
import { failRun, supersedeRun, supersededBecause, type RunSpec } from "./runs";
import type { HostedStorage } from "./storage-settings";
import { transition } from "./transitions";

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
  every?: (beat: () => Promise<void>, ms: number) => () => void;
  /** What Agentboard is, for each run's manifest (the package version, and the commit when the caller knows it). */
  agentboard?: AgentboardVersion;
  /**
   * The storage bundles and benchmarks are kept in by content, and this host's cache: a job
   * scores the bundle (and benchmark) laid out from it when this host lacks the original.
   * Without it a job reads the recorded paths, as before.
   */
  storage?: HostedStorage;
  /**
   * Overrides of validation's limits, the same intake validated the bundle with (the budgets an
   * operator set in the environment: lib/validate/limit-settings.ts). Default: the engine's.
   */
  validationLimits?: Partial<ValidationLimits>;
}

/**
 * A running job renews its heartbeat this often; a heartbeat older than the worker's
 * `staleMs` (2 min) lets another worker take the job. Change it with `ScoringDeps.heartbeatMs`.
 */
export const DEFAULT_HEARTBEAT_MS = 30_000;

/** Item rows per INSERT statement: 15 columns each, well under Postgres's 65,535 parameters. */
export const ROWS_PER_INSERT = 500;

/**
 * `superseded`: the submission was withdrawn, rejected or re-queued under the run (found when the
 *   job starts, at a flush of items, or when it publishes); nothing was published, and no item
 *   was stored after it was found.
 * `interrupted`: the worker was stopped; the job is queued again and resumes where it stopped.
 * `lost`: another worker took the job over (this one's lease went stale); this one published nothing.
 * `deferred`: the storage (or the database, past the retries) could not be reached; the job keeps
 *   its lease without a heartbeat, so any worker retries it once the lease goes stale (the
 *   worker's `staleMs`), a back-off that needs no new state; after MAX_STORAGE_ATTEMPTS claims of
 *   an unreachable storage it fails.
 */
export type JobOutcome = "completed" | "incomplete" | "failed" | "superseded" | "interrupted" | "lost" | "deferred";

/** Claims of one job the storage may fail for a passing reason before the job fails. */
export const MAX_STORAGE_ATTEMPTS = 10;

/** An error of the storage that may pass (unreachable, timed out, refused for now), not of the content. */
export function isPassingStorageError(err: unknown): boolean {
  for (let e = err as { message?: unknown; code?: unknown; cause?: unknown } | undefined, depth = 0; e && depth < 5; e = e.cause as typeof e, depth++) {
    if (typeof e.message === "string" && e.message.startsWith("object storage request failed")) return true;
    if (typeof e.code === "string" && ["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EAI_AGAIN", "ENOTFOUND", "EPIPE"].includes(e.code)) return true;
  }
  return false;
}

/** Ends the scoring of a run a flush found superseded (thrown from the item hook). */
class RunSuperseded extends Error {
  override readonly name = "RunSuperseded";
}

function everyInterval(beat: () => Promise<void>, ms: number): () => void {
  const timer = setInterval(() => void beat(), ms);
  timer.unref();
  return () => clearInterval(timer);
}

/**
 * Scores the job under `lease` (from worker.ts `claimNextJob`). Every transaction it writes in
 * begins with the lease fence (job-lease.ts `holdLease`): once another worker has taken the job
 * over, this one writes nothing more and its outcome is `lost`. Safe to run several at once
 * with one `deps` (the replay ports and judges are shared; each job keeps its own state here).
 */
export async function runScoringJob(db: Db, lease: Lease, deps: ScoringDeps): Promise<JobOutcome> {
  // Reads are tried again like writes: a database restarting under the worker must not fail the job.
  const [job] = await retryBusy(() => db.select().from(jobs).where(eq(jobs.id, lease.id)).limit(1));
  if (!job) throw new Error(`job ${lease.id} does not exist`);
  const [run] = await retryBusy(() => db.select().from(scoringRuns).where(eq(scoringRuns.id, job.runId)).limit(1));
  if (!run) throw new Error(`job ${lease.id}: run ${job.runId} does not exist`);
  const [sub] = await retryBusy(() => db.select().from(submissions).where(eq(submissions.id, run.submissionId)).limit(1));
  if (!sub) throw new Error(`job ${lease.id}: submission ${run.submissionId} does not exist`);
  const signal = deps.signal;
  // Set once a fence finds the lease gone: nothing more is written for this job.
  let lost = false;
  /** One write transaction behind the fence; `undefined` when the lease is gone (nothing written). */
  const fenced = <T>(write: (tx: Tx, at: Date) => Promise<T>): Promise<T | undefined> =>
    retryBusy(() =>
      writeTx(db, async (tx) => {
        const at = deps.now();
        if (!(await holdLease(tx, lease, at))) {
          lost = true;
          return undefined;
        }
        return write(tx, at);
      }),
    );
  /** An error's text for the public reason, without this host's paths or the storage's location. */
  const redact = (err: unknown): string => {
    let text = err instanceof Error ? err.message : String(err);
    const hidden = [deps.storage?.store.location, deps.storage?.cacheDir, sub.bundlePath, process.cwd()].filter((p): p is string => !!p && p.length > 1);
    for (const p of hidden.sort((a, b) => b.length - a.length)) text = text.split(p).join("…");
    return text;
  };
  // The storage failed for now: the job waits for its lease to run out (see `deferred`).
  const defer = async (what: string, err: unknown): Promise<JobOutcome> => {
    if (signal?.aborted) return interrupt();
    const reason = `${what} unavailable for now: ${redact(err)}`;
    if (job.attempts >= MAX_STORAGE_ATTEMPTS) return fail(`${reason} (tried ${job.attempts} times)`);
    const done = await fenced(async (tx, at) => {
      await tx.update(jobs).set({ lastError: `${reason}; retried when the lease runs out`, updatedAt: at }).where(eq(jobs.id, job.id));
      return "deferred" as const;
    });
    return done ?? "lost";
  };
  const fail = async (message: string): Promise<JobOutcome> => {
    if (signal?.aborted) return interrupt();
    const done = await fenced(async (tx, at) => {
      await failRun(tx, job.id, message, at);
      return "failed" as const;
    });
    return done ?? "lost";
  };
  // Stopped: back to the queue, to resume from the stored items.
  const interrupt = async (): Promise<JobOutcome> => {
    const done = await fenced(async (tx, at) => {
      await tx.update(jobs).set({ state: "queued", lockedBy: null, leaseToken: null, updatedAt: at, lastError: "the worker was stopped; the job resumes where it stopped" }).where(eq(jobs.id, job.id));
      return "interrupted" as const;
    });
    return done ?? "lost";
  };

  const scoreJob = async (): Promise<JobOutcome> => {
    // A job still queued for a submission withdrawn, rejected or rescored since is closed unscored.
    const startedAt = deps.now();
    const stale = await fenced(async (tx) => {
      const why = await supersededBecause(tx, run, ["queued", "scoring"]);
      if (why) {
        await supersedeRun(tx, run, job.id, why, startedAt);
        return true;
      }
      await tx.update(scoringRuns).set({ status: "running", startedAt: run.startedAt ?? startedAt }).where(eq(scoringRuns.id, run.id));
      const [now] = await tx.select({ state: submissions.state }).from(submissions).where(eq(submissions.id, sub.id)).limit(1);
      if (now!.state !== "scoring") await transition(tx, sub.id, "scoring", { actor: "worker", at: startedAt, details: { runId: run.id } });
      return false;
    });
    if (stale === undefined) return "lost";
    if (stale) return "superseded";

    let benchmark: Benchmark;
    try {
      benchmark = await retryBusy(() => benchmarkOfVersion(db, sub.benchmarkVersionId, deps.storage));
    } catch (err) {
      if (deps.storage && isPassingStorageError(err)) return defer("benchmark", err);
      const lost = deps.storage ? lostReason(err) : undefined;
      return fail(`benchmark unavailable: ${lost ?? (err instanceof Error ? err.message : String(err))}`);
    }
    // The bundle as received, on this host: laid out or fetched from the storage, outside any transaction.
    let bundlePath = sub.bundlePath;
    if (deps.storage) {
      try {
        bundlePath = await localBundle(deps.storage, sub);
      } catch (err) {
        if (err instanceof BundleLostError) return fail(`bundle unavailable: ${err.message}`);
        if (isPassingStorageError(err)) return defer("bundle", err);
        return fail(`bundle unavailable: ${redact(err)}`);
      }
    }
    let judge: ReturnType<ScoringDeps["graderFor"]>;
    try {
      judge = deps.graderFor(benchmark, { judgeKind: run.judgeKind, ...(run.judgeModel ? { judgeModel: run.judgeModel } : {}) });
    } catch (err) {
      return fail(`judge unavailable: ${err instanceof Error ? err.message : String(err)}`);
    }

    const stored = await retryBusy(() => db.select({ result: itemResults.result, trial: itemResults.trial }).from(itemResults).where(eq(itemResults.runId, run.id)));
    // Keyed by trial too: a bundle of trials stores each item once per trial. A result stored before trials were kept reads as trial 1 (the column's default).
    const done = new Map(stored.map(({ result, trial }) => [trialItemKey(result.capability, result.uuid, trial), { ...result, trial }] as const));
    const buffer: ItemResult[] = [];
    // Set once a flush finds the run superseded (and closes it): nothing more is written, and
    // the next item scored stops the scoring (RunSuperseded) rather than judging on for nothing.
    let superseded = false;
    let count = done.size;
    let total = 0;
    const flushEvery = deps.flushEvery ?? 25;
    // Writes the buffered items. With `tolerant`, a busy database puts the batch back for the next flush.
    const flushNow = async (tolerant: boolean): Promise<void> => {
      if (lost || superseded || buffer.length === 0) return;
      const batch = buffer.splice(0);
      try {
        const wrote = await writeTx(db, async (tx): Promise<"lost" | "superseded" | "wrote"> => {
          const at = deps.now();
          if (!(await holdLease(tx, lease, at))) return "lost";
          // Decided in the transaction that would write: a withdrawal committed before it stops the run here.
          const why = await supersededBecause(tx, run, ["scoring"]);
          if (why) {
            await supersedeRun(tx, run, job.id, why, at);
            return "superseded";
          }
          // Items arrive faster than they are written, so a batch may hold thousands: one INSERT
          // per ROWS_PER_INSERT (Postgres refuses a statement of more than 65,535 parameters).
          for (let i = 0; i < batch.length; i += ROWS_PER_INSERT) {
            await tx
              .insert(itemResults)
              .values(batch.slice(i, i + ROWS_PER_INSERT).map((r) => ({ runId: run.id, capability: r.capability, domain: r.domain, uuid: r.uuid, trial: r.trial, weight: r.weight, score: r.score, status: r.status, stage: r.stage, scorer: r.scorer, bucket: r.bucket, exactPassed: r.scorer === "waterfall" && r.exactPassed, policy: r.scorer === "waterfall" ? r.policy : null, result: r, fingerprint: r.fingerprint ?? null })))
              .onConflictDoNothing();
          }
          await tx.update(scoringRuns).set({ progressDone: count + batch.length, progressTotal: total }).where(eq(scoringRuns.id, run.id));
          await tx.update(jobs).set({ updatedAt: at }).where(eq(jobs.id, job.id));
          return "wrote";
        });
        if (wrote === "lost") lost = true;
        else if (wrote === "superseded") superseded = true;
        else count += batch.length;
      } catch (err) {
        buffer.unshift(...batch);
        if (!(tolerant && isBusy(err))) throw err;
      }
    };
    // Items arrive from a synchronous callback: their writes are chained, one at a time, in order.
    let writing: Promise<void> = Promise.resolve();
    let writeError: unknown;
    const flush = () => {
      writing = writing.then(() => flushNow(true)).catch((err) => void (writeError ??= err));
    };
    const flushRest = async () => {
      await writing;
      if (writeError !== undefined) throw writeError;
      await retryBusy(() => flushNow(false));
    };

    let outcome: Awaited<ReturnType<typeof scoreBundle>>;
    try {
      const replay = await deps.replayFor(benchmark, run.replayMode);
      outcome = await scoreBundle(benchmark, bundlePath, {
        grader: judge.grader,
        judge: judge.judge,
        replay,
        now: deps.now,
        expectSha256: sub.bundleSha256,
        ...(deps.validationLimits ? { validate: { limits: deps.validationLimits } } : {}),
        ...(deps.agentboard ? { agentboard: deps.agentboard } : {}),
        done,
        onProgress: (_d, t) => (total = t),
        onItem: (r) => {
          // Thrown into the scoring, which ends it: the items in hand finish, no new one starts.
          if (superseded) throw new RunSuperseded();
          // An item judged after the stop may be "unjudged" only because the judge was stopped.
          if (signal?.aborted) return;
          buffer.push(r);
          if (buffer.length >= flushEvery) flush();
        },
      });
      if (!signal?.aborted) await flushRest();
    } catch (err) {
      await writing;
      if (lost) return "lost";
      if (superseded) return "superseded";
      // The database stayed away past the retries: the job is left to resume (see `deferred`).
      if (isBusy(err)) return "deferred";
      return fail(`scoring failed: ${err instanceof Error ? err.message : String(err)}`);
    }
    if (lost) return "lost";
    // Closed by a flush (also when the worker was stopped meanwhile: a closed run is not resumed).
    if (superseded) return "superseded";
    if (signal?.aborted) {
      // What was judged before the stop is kept; what was not yet stored is judged again on resume.
      await flushRest();
      return lost ? "lost" : interrupt();
    }
    if (outcome.kind === "invalid") return fail(`the bundle no longer validates (${outcome.report.summary.errors} errors)`);
    if (outcome.kind === "changed") return fail(`the bundle changed since it was received (sha256 ${outcome.sha256.slice(0, 12)} ≠ ${sub.bundleSha256.slice(0, 12)})`);
    const { results } = outcome;
    const items = results.items;
    const judgeId = judge.judge.id;
    const unjudged = items.filter(isUnjudged).length;
    // What the run's items add up to (funnel, trajectory and evaluator means), stored with the
    // run: its items never change once it completes, so its page reads one value, not every item.
    const itemSummary = await retryBusy(() => runItemSummary(db, run.id, benchmark.spec));
    // Likewise its overall resampled on the version's plan: the board ranks runs by these.
    const submitted = new Set(Object.entries(results.capabilities).filter(([, c]) => c.submitted).map(([id]) => id));
    const overallResamples = await retryBusy(() => storedOverallResamples(db, run.id, benchmark.spec.capabilities.map((c) => c.id), submitted));
    const at = deps.now();
    // Another worker took the job over while this one was slow: it publishes, this one does not.
    const published = await fenced(async (tx): Promise<JobOutcome> => {
      // Decided in the transaction that writes: a withdraw or rescore landing mid-run wins, and
      // the run closes as superseded with nothing published and the submission left alone.
      const why = await supersededBecause(tx, run, ["scoring"]);
      if (why) {
        await supersedeRun(tx, run, job.id, why, at);
        return "superseded";
      }
      // The manifest names the calibration the run's judge had on this version when it completed.
      const calibration = await calibrationRefFor(tx, sub.benchmarkVersionId, judgeId, results.manifest.judge.promptHashes);
      const manifest = { ...results.manifest, judge: { ...results.manifest.judge, calibration } };
      for (const [capability, c] of Object.entries(results.capabilities)) {
        await tx
          .insert(capabilityScores)
          .values({ runId: run.id, capability, score: c.score, ciLow: c.ciLow, ciHigh: c.ciHigh, submitted: c.submitted, nItems: c.nItems, nMissing: c.nMissing, nError: c.nError, nPolicyUnchecked: c.nPolicyUnchecked, statusCounts: c.statusCounts })
          .onConflictDoNothing();
        const domains = Object.entries(c.domains).map(([domain, d]) => ({ runId: run.id, capability, domain, score: d.score, nItems: d.nItems }));
        if (domains.length) await tx.insert(domainScores).values(domains).onConflictDoNothing();
      }
      await tx
        .update(scoringRuns)
        .set({ status: "completed", judgeId, judge: judge.judge, progressDone: items.length, progressTotal: items.length, overallScore: results.overall.score, overallCiLow: results.overall.ciLow, overallCiHigh: results.overall.ciHigh, complete: results.overall.complete, cost: results.cost, manifest, trials: results.trials, trialStats: results.trialStats, itemSummary, overallResamples, finishedAt: at })
        .where(eq(scoringRuns.id, run.id));
      await tx.update(jobs).set({ state: "done", updatedAt: at }).where(eq(jobs.id, job.id));
      await tx.update(submissions).set({ currentRunId: run.id }).where(eq(submissions.id, sub.id));
      // A panel's disputed grades, for /admin/disputes (settled at once with any decision made meanwhile).
      await recordDisputes(tx, { id: run.id, versionId: sub.benchmarkVersionId }, items, benchmark.spec, at);
      await recordRunIntegrity(tx, { id: run.id, submissionId: sub.id, versionId: sub.benchmarkVersionId, agent: sub.agentName }, { flags: results.flags, unsupportedAnswers: results.unsupportedAnswers }, at);
      const details = { runId: run.id, overall: Math.round(results.overall.score * 10) / 10, judge: judgeId, replay: run.replayMode };
      if (unjudged > 0) await transition(tx, sub.id, "error", { actor: "worker", at, reason: `${unjudged} item(s) could not be judged or replayed; rescore before publishing`, details });
      else await transition(tx, sub.id, "scored", { actor: "worker", at, details });
      await tx.insert(auditLog).values({ at, actor: "worker", action: "run:completed", submissionId: sub.id, reason: `run ${run.id}`, details });
      return unjudged > 0 ? "incomplete" : "completed";
    });
    return published ?? "lost";
  };

  // The heartbeat: a small committed write behind the fence, never a transaction held open.
  const stopBeating = (deps.every ?? everyInterval)(async () => {
    if (lost) return;
    try {
      await writeTx(db, async (tx) => {
        if (!(await holdLease(tx, lease, deps.now()))) lost = true;
      });
    } catch {
      // Best effort: a busy database or a closed one only delays the next beat.
    }
  }, deps.heartbeatMs ?? DEFAULT_HEARTBEAT_MS);
  try {
    return await scoreJob();
  } finally {
    stopBeating();
  }
}
