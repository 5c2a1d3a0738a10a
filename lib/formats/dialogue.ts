/** Normalised dialogue shapes, the same for predictions and ground truth once read. */
import type { JsonNumber } from "./lossless-json";
import type { Usage } from "./usage";

/**
 * An answer as it appears in the file: a string, a number, or nested lists of them. A number
 * JavaScript cannot hold as Python does (`25.0`, a big integer) is a `JsonNumber`.
 */
export type AnswerValue = string | number | boolean | null | JsonNumber | AnswerValue[];

export interface ToolCall {
  name: string;
  arguments: Record<string, unknown>;
  /** Ground-truth calls name their result so later calls can refer to it as `$LABEL.data_path$`. */
  label?: string;
}

export interface Turn {
  turnId: number;
  query: string;
  answer: AnswerValue;
  calls: ToolCall[];
  /** Tool responses stored in the file (ground truth, or a submission's own record of them). */
  responses?: unknown[];
}

export interface PredictedDialogue {
  uuid: string;
  domain: string;
  status: "success" | "error";
  error: string;
  durationS: number | null;
  /** Tokens and cost the agent reported for this dialogue (`usage`), when it did. */
  usage?: Usage | null;
  turns: Turn[];
}

/** Structured tool-use policy: globs over tool names (`*` is a wildcard). */
export interface ToolPolicy {
  allowTools?: string[];
  denyTools?: string[];
}

export interface GroundTruthDialogue {
  uuid: string;
  domain: string;
  /** Free-text instructions (capability 4 carries its tool-use policy here). */
  instructions: string;
  policy?: ToolPolicy;
  turns: Turn[];
}
