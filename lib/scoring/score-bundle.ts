/**
 * The engine's one entry point: scores a bundle against a benchmark. Validate → replay and
 * score every item (each capability by its scorer) → results → aggregate. The CLI's
 * `score`, the worker, the main job and the benches all call it.
 */
import type { AggregateOptions } from "../aggregate/aggregate";
import type { Benchmark } from "../benchmark/load-benchmark";
import type { ReplayPort } from "../replay/replay-port";
import type { ValidationReport } from "../validate/report";
import { validateBundle, type Submission, type ValidateOptions } from "../validate/validate-bundle";
import type { Grader } from "./judges/grader";
import type { RecordedJudge } from "./judges/judge-settings";
import type { ItemResult } from "./item-result";
import type { AgentboardVersion } from "./manifest";
import { buildResults, type ScoreResults } from "./score-results";
import { scoreSubmission, type ScoreOptions } from "./score-submission";
import type { ScoreThreads } from "./score-threads";

export interface ScoreBundleDeps {
  grader: Grader;
  /** The judge as resolved, recorded in the results (defaults to the grader's id). */
  judge?: RecordedJudge;
  replay: ReplayPort;
  now?: () => Date;
  onProgress?: (done: number, total: number) => void;
  /** A resumed run's stored items, keyed `capability\0uuid`; and a hook to store new ones. */
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
}

export type ScoreBundleOutcome =
  | { kind: "scored"; report: ValidationReport; submission: Submission; results: ScoreResults }
  | { kind: "invalid"; report: ValidationReport }
  | { kind: "changed"; report: ValidationReport; sha256: string };

export async function scoreBundle(benchmark: Benchmark, bundle: string, deps: ScoreBundleDeps): Promise<ScoreBundleOutcome> {
  const { report, submission } = await validateBundle(bundle, benchmark, deps.validate);
  if (!report.valid || !submission) return { kind: "invalid", report };
  if (deps.expectSha256 !== undefined && submission.sha256 !== deps.expectSha256) return { kind: "changed", report, sha256: submission.sha256 };
  const items = await scoreSubmission(benchmark, submission, {
    grader: deps.grader,
    replay: deps.replay,
    ...(deps.onProgress ? { onProgress: deps.onProgress } : {}),
    ...(deps.done ? { done: deps.done } : {}),
    ...(deps.onItem ? { onItem: deps.onItem } : {}),
    ...(deps.threads ? { threads: deps.threads } : {}),
  });
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
