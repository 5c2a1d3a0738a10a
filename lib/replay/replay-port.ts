/**
 * The replay port: where the tool responses a dialogue is scored on come from. `recorded`
 * trusts the submission's own `tool_response` (unverified); `none` has no responses at all;
 * the MCP replay executes every call against the benchmark's environment (verified).
 * The scorer sees only this interface.
 */
import type { CapabilitySpec } from "../benchmark/spec";
import type { GroundTruthDialogue, PredictedDialogue } from "../formats/dialogue";

export type ReplayMode = "recorded" | "none" | "mcp";

/**
 * Where the ground-truth responses a run compared against came from: the stored replay file
 * (`replay-gt`), a replay in this run, both, or the environment without saying which (nothing
 * replayed here, e.g. a resumed run); the ground-truth files' own `tool_response` (recorded);
 * none at all.
 */
export type GroundTruthSource = "stored" | "replayed" | "stored+replayed" | "environment" | "files" | "none";

export interface ReplayedTurn {
  turnId: number;
  /** One response per tool call, in call order (shorter when calls were not executed). */
  responses: unknown[];
}

export interface ReplayOutcome {
  prediction: ReplayedTurn[];
  groundTruth: ReplayedTurn[];
}

export interface ReplayRequest {
  capability: CapabilitySpec;
  groundTruth: GroundTruthDialogue;
  prediction: PredictedDialogue;
}

export interface ReplayPort {
  readonly mode: ReplayMode;
  /** True when responses come from the benchmark's environment, not from the submitter. */
  readonly verified: boolean;
  /** False when there are no responses at all: exact match and groundedness cannot run. */
  readonly providesResponses: boolean;
  replay(req: ReplayRequest): Promise<ReplayOutcome>;
  /** Where the ground-truth responses came from so far, for the run's manifest. */
  groundTruthSource?(): GroundTruthSource;
  close(): Promise<void>;
}

/** A dialogue the replay could not complete (server died, transport failed). */
export class ReplayError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ReplayError";
  }
}
