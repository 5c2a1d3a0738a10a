/**
 * A capability scorer: how one kind of capability's items are scored. The waterfall scores
 * VAKRA-style dialogues; the evaluators (qa, trajectory, report) score NVIDIA-style dataset
 * items. Scoring dispatches through `registry.ts` by `capabilities[].scorer`; the same kind's
 * ground truth is loaded by benchmark/capability-loaders and its outputs read by
 * validate/outputs-readers, each layer's registry keyed alike. No other module branches on
 * the kind of a capability.
 */
import type { Benchmark, CapabilityData } from "../../benchmark/load-benchmark";
import type { ScorerName } from "../../benchmark/spec";
import type { ReplayPort } from "../../replay/replay-port";
import type { Submission } from "../../validate/validate-bundle";
import type { Grader } from "../../judges/grader";
import type { ItemResult } from "../item-result";

export interface ScoreContext {
  benchmark: Benchmark;
  /** The predictions of the trial being scored (a plain bundle's own). */
  submission: Submission;
  /** Which trial (1-based) its items belong to. */
  trial: number;
  grader: Grader;
  replay: ReplayPort;
  now: () => number;
}

/** One ground-truth item to score. */
export interface ItemTask {
  capability: string;
  uuid: string;
  /**
   * Items that can be scored apart, on a worker thread (score-threads.ts), share a shard: the
   * ground-truth file (domain) they come from. Absent: scored on the calling thread.
   */
  shard?: string;
  run(): Promise<ItemResult>;
}

export interface CapabilityScorer {
  readonly name: ScorerName;
  /** The capability's items to score, in ground-truth order. */
  tasks(cap: CapabilityData, ctx: ScoreContext): ItemTask[];
}
