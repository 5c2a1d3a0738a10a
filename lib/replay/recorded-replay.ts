/** Replay modes that execute nothing: `recorded` and `none`. */
import type { ReplayOutcome, ReplayPort, ReplayRequest } from "./replay-port";

export function createRecordedReplay(): ReplayPort {
  return {
    mode: "recorded",
    verified: false,
    providesResponses: true,
    async replay({ groundTruth, prediction }: ReplayRequest): Promise<ReplayOutcome> {
      return {
        prediction: prediction.turns.map((t) => ({ turnId: t.turnId, responses: t.responses ?? [] })),
        groundTruth: groundTruth.turns.map((t) => ({ turnId: t.turnId, responses: t.responses ?? [] })),
      };
    },
    async close() {},
  };
}

export function createNoReplay(): ReplayPort {
  return {
    mode: "none",
    verified: false,
    providesResponses: false,
    async replay({ groundTruth, prediction }: ReplayRequest): Promise<ReplayOutcome> {
      return {
        prediction: prediction.turns.map((t) => ({ turnId: t.turnId, responses: [] })),
        groundTruth: groundTruth.turns.map((t) => ({ turnId: t.turnId, responses: [] })),
      };
    },
    async close() {},
  };
}
