/**
 * The engine's one entry point: scores a bundle against a benchmark. Validate → replay and
 * score every item (each capability by its scorer) → results → aggregate. The CLI's
 * `score`, the worker, the main job and the benches all call it. A bundle of k trials has
 * every trial's items scored (each carries its trial) and aggregated as the mean over trials.
 */
import type { AggregateOptions } from "./aggregate";
import type { Benchmark } from "../benchmark/load-benchmark";
import type { ReplayPort } from "../replay/replay-port";
import type { ValidationReport } from "../validate/report";
import { trialsOf, trialSubmission, validateBundle, type Submission, type ValidateOptions } from "../validate/validate-bundle";
import type { Grader } from "../judges/grader";
import type { RecordedJudge } from "../judges/judge-settings";
import type { ItemResult } from "../scoring/item-result";
import type { AgentboardVersion } from "../scoring/manifest";
import { buildResults, type ScoreResults } from "./score-results";
import { scoreSubmission, type ScoreOptions } from "../scoring/score-submission";
import type { ScoreThreads } from "../scoring/score-threads";
import type { ItemDetail } from "../scoring/item-summary";

export interface ScoreBundleDeps {
  grader: Grader;
  /** The judge as resolved, recorded in the results (defaults to the grader's id). */
  judge?: RecordedJudge;
  replay: ReplayPort;
  now?: () => Date;
  onProgress?: (done: number, total: number) => void;
  /** A resumed run's stored items, keyed by trialItemKey (capability, uuid, trial); and a hook to store new ones. */
  done?: ScoreOptions["done"];
  onItem?: (item: ItemResult) => void;
  /** The sha256 the bundle must still have (a stored bundle re-read by the worker). */
  expectSha256?: string;
  validate?: ValidateOptions;
  aggregate?: AggregateOptions;
  /** Worker threads scoring shards beside this thread (score-threads.ts); closed by the caller. */
  threads?: ScoreThreads;
  /** What Agentboard is (the CLI's build, the worker's deps), for the run's manifest; the engine reads no git or environment. */
  agentboard?: AgentboardVersion;
  /** Collect garbage as items complete once the heap has grown (heap-bound.ts), for a caller that enabled a collector (the CLI). */
  boundHeap?: boolean;
  /** What each item keeps: `summary` for a caller that uses only the figures (item-summary.ts). */
  detail?: ItemDetail;
}

export type ScoreBundleOutcome =
  | { kind: "scored"; report: ValidationReport; submission: Submission; results: ScoreResults }
  | { kind: "invalid"; report: ValidationReport }
  | { kind: "changed"; report: ValidationReport; sha256: string };

export async function scoreBundle(benchmark: Benchmark, bundle: string, deps: ScoreBundleDeps): Promise<ScoreBundleOutcome> {
  const { report, submission } = await validateBundle(bundle, benchmark, deps.validate);
  if (!report.valid || !submission) return { kind: "invalid", report };
  if (deps.expectSha256 !== undefined && submission.sha256 !== deps.expectSha256) return { kind: "changed", report, sha256: submission.sha256 };
  const trials = trialsOf(submission).length;
  const items: ItemResult[] = [];
  for (let trial = 1; trial <= trials; trial++) {
    const onProgress = deps.onProgress;
    // Every trial scores the same items: progress counts all of them, trial after trial.
    const progress = onProgress ? (done: number, total: number) => onProgress((trial - 1) * total + done, trials * total) : undefined;
    const scored = await scoreSubmission(benchmark, trialSubmission(submission, trial), {
      grader: deps.grader,
      replay: deps.replay,
      trial,
      ...(progress ? { onProgress: progress } : {}),
      ...(deps.done ? { done: deps.done } : {}),
      ...(deps.onItem ? { onItem: deps.onItem } : {}),
      // The threads' shards are trial 1's (score-worker.ts); later trials are scored here.
      ...(deps.threads && trial === 1 ? { threads: deps.threads } : {}),
      ...(deps.boundHeap ? { boundHeap: true } : {}),
      ...(deps.detail ? { detail: deps.detail } : {}),
    });
    for (const it of scored) items.push(it);
  }
  const results = buildResults(
    benchmark,
    submission,
    items,
    {
      judge: deps.judge ?? { id: deps.grader.id },
      replay: deps.replay.mode,
      verified: deps.replay.verified,
      createdAt: deps.now?.() ?? new Date(),
      ...(deps.agentboard ? { agentboard: deps.agentboard } : {}),
      ...(deps.replay.groundTruthSource ? { groundTruthSource: deps.replay.groundTruthSource() } : {}),
    },
    deps.aggregate,
  );
  return { kind: "scored", report, submission, results };
}
