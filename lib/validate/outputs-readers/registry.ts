/** The outputs readers by name: `capabilities[].scorer` in benchmark.yaml picks one. */
import type { ScorerName } from "../../benchmark/spec";
import { datasetReader } from "./dataset-reader";
import { dialogueRecords } from "./dialogue-records";
import type { OutputsReader } from "./outputs-reader";

const READERS: Record<ScorerName, OutputsReader> = {
  waterfall: { outputsNameFiles: false, records: dialogueRecords },
  qa: datasetReader("qa"),
  trajectory: datasetReader("trajectory"),
  report: datasetReader("report"),
};

export function readerOf(name: ScorerName): OutputsReader {
  return READERS[name];
}
