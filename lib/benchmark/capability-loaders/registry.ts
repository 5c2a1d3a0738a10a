/** The capability loaders by name: `capabilities[].scorer` in benchmark.yaml picks one. */
import type { ScorerName } from "../spec";
import type { CapabilityLoader } from "./capability-loader";
import { datasetLoader } from "./dataset-loader";
import { dialogueLoader } from "./dialogue-loader";

const LOADERS: Record<ScorerName, CapabilityLoader> = {
  waterfall: dialogueLoader,
  qa: datasetLoader("qa"),
  trajectory: datasetLoader("trajectory"),
  report: datasetLoader("report"),
};

export function loaderOf(name: ScorerName): CapabilityLoader {
  return LOADERS[name];
}
