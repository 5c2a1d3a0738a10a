/**
 * The evaluator capabilities' outputs files: each read whole into the submission's outputs
 * (reports inline or in files of the bundle; dataset-outputs.ts).
 */
import { datasetCapability } from "../../benchmark/capability-data";
import type { AgentOutput, EvalKind } from "../../formats/eval-dataset";
import { readDatasetOutputs } from "../dataset-outputs";
import type { OutputsReader } from "./outputs-reader";

export function datasetReader(kind: EvalKind): OutputsReader {
  return {
    outputsNameFiles: true,
    async readOutputs({ cap, domain, file, value, sink, source, submission }) {
      const data = datasetCapability(cap);
      const bucket = submission.outputs.get(data.spec.id) ?? new Map<string, AgentOutput>();
      submission.outputs.set(data.spec.id, bucket);
      return readDatasetOutputs({ cap: data, kind, domain, file, value, sink, source, bucket });
    },
    predicted(submission, capability) {
      const m = submission.outputs.get(capability);
      return m ? new Set(m.keys()) : undefined;
    },
  };
}
