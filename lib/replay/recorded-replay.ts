/**
 * Replay modes that execute nothing. `recorded` takes the tool responses stored in the
 * files (the submitter's own, so unverified); `none` has no responses at all.
 */
import type { Turn } from "../formats/dialogue";
import type { ReplayPort } from "./replay-port";

function fromFiles(mode: "recorded" | "none"): ReplayPort {
  const responses = (t: Turn) => (mode === "recorded" ? (t.responses ?? []) : []);
  const replayTurns = (turns: Turn[]) => turns.map((t) => ({ turnId: t.turnId, responses: responses(t) }));
  return {
    mode,
    verified: false,
    providesResponses: mode === "recorded",
    async replay({ groundTruth, prediction }) {
      return { prediction: replayTurns(prediction.turns), groundTruth: replayTurns(groundTruth.turns) };
    },
    groundTruthSource: () => (mode === "recorded" ? "files" : "none"),
    async close() {},
  };
}

export const createRecordedReplay = (): ReplayPort => fromFiles("recorded");
export const createNoReplay = (): ReplayPort => fromFiles("none");
