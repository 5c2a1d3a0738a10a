/** The results document of one scoring run (`results.json`). */
import { summarizeCost, type CostSummary } from "./cost";
import { aggregateTrials, BOOTSTRAP_SEED, type AggregateOptions, type CapabilityScore, type OverallScore } from "./aggregate";
import type { TrialStats } from "./trials";
import type { Benchmark } from "../benchmark/load-benchmark";
import type { GroundTruthSource, ReplayMode } from "../replay/replay-port";
import { submittedCapabilities, trialsOf, type Submission } from "../validate/validate-bundle";
import type { RecordedJudge } from "../judges/judge-settings";
import { checkIntegrity } from "../scoring/integrity-check";
import type { IntegrityFlag, UnsupportedAnswers } from "../scoring/integrity-flags";
import type { ItemResult } from "../scoring/item-result";
import { buildManifest, type AgentboardVersion, type RunManifest } from "../scoring/manifest";

export interface ScoreResults {
  schema: "agentboard.results/1";
  benchmark: { slug: string; title: string; version: string; compat: "strict" | "vakra" };
  bundle: { sha256: string };
  /** The judge as resolved (never its key). */
  judge: RecordedJudge | { id: string };
  replay: ReplayMode;
  /** True only when every tool response came from the benchmark's environment. */
  verified: boolean;
  createdAt: string;
  /** Trials in the bundle (`trial_1/ … trial_k/`); 1 for a plain bundle. Scores are the mean over them. */
  trials: number;
  overall: OverallScore;
  capabilities: Record<string, CapabilityScore & { label: string }>;
  /** Latency, tokens and dollars as the bundle reports them; never part of a score. */
  cost: CostSummary;
  /** Integrity flags the engine raised (unsupported answers, canaries); each says what triggered it. */
  flags: IntegrityFlag[];
  /** Per capability, the share of scored items whose correct answer the replayed calls do not support. */
  unsupportedAnswers: UnsupportedAnswers;
  /** What decides these numbers, for `agentboard verify` (manifest.ts). */
  manifest: RunManifest;
  /** Each trial's scores, their spread (sd) and pass^k (lib/aggregate/trials.ts). */
  trialStats: TrialStats;
  /** Every trial's items, each carrying its `trial`. */
  items: ItemResult[];
}

export function buildResults(
  benchmark: Benchmark,
  submission: Submission,
  items: ItemResult[],
  run: { judge: RecordedJudge | { id: string }; replay: ReplayMode; verified: boolean; createdAt: Date; agentboard?: AgentboardVersion; groundTruthSource?: GroundTruthSource },
  opts: AggregateOptions = {},
): ScoreResults {
  const ids = benchmark.capabilities.map((c) => c.spec.id);
  const trials = trialsOf(submission).length;
  const agg = aggregateTrials(ids, submittedCapabilities(submission), items, trials, opts);
  const capabilities: ScoreResults["capabilities"] = {};
  for (const c of benchmark.capabilities) capabilities[c.spec.id] = { label: c.spec.label, ...agg.capabilities[c.spec.id]! };
  const integrity = checkIntegrity(benchmark, submission, items);
  return {
    schema: "agentboard.results/1",
    benchmark: { slug: benchmark.spec.slug, title: benchmark.spec.title, version: benchmark.spec.version, compat: benchmark.spec.compat },
    bundle: { sha256: submission.sha256 },
    judge: run.judge,
    replay: run.replay,
    verified: run.verified,
    createdAt: run.createdAt.toISOString(),
    trials,
    overall: agg.overall,
    capabilities,
    cost: summarizeCost(submission),
    flags: integrity.flags,
    unsupportedAnswers: integrity.unsupportedAnswers,
    manifest: buildManifest({
      benchmark,
      bundleSha256: submission.sha256,
      items,
      judge: run.judge,
      replay: { mode: run.replay, ...(run.groundTruthSource ? { source: run.groundTruthSource } : {}) },
      seed: opts.seed ?? BOOTSTRAP_SEED,
      ...(run.agentboard ? { agentboard: run.agentboard } : {}),
    }),
    trialStats: agg.trials,
    items,
  };
}
