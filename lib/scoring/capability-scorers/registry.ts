/** The capability scorers by name: `capabilities[].scorer` in benchmark.yaml picks one. */
import type { ScorerName } from "../../benchmark/spec";
import type { CapabilityScorer } from "./capability-scorer";
import { evaluatorScorer } from "./evaluator-scorer";
import { waterfallScorer } from "./waterfall-scorer";

const SCORERS: Record<ScorerName, CapabilityScorer> = {
  waterfall: waterfallScorer,
  qa: evaluatorScorer("qa"),
  trajectory: evaluatorScorer("trajectory"),
  report: evaluatorScorer("report"),
};

export function scorerOf(name: ScorerName): CapabilityScorer {
  return SCORERS[name];
}
