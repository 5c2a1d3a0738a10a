/** The judge port: one question at a time, a decision with its reasons. */
import type { AnswerValue } from "../../formats/dialogue";

export type JudgeTask = "correctness" | "groundedness";

export interface JudgeRequest {
  task: JudgeTask;
  question: string;
  /** The agent's answer as text, and as it was given. */
  answer: string;
  answerValue: AnswerValue;
  /** Correctness: the ground-truth answer. */
  reference?: string;
  referenceValue?: AnswerValue;
  /** Groundedness: what the agent could see (its tool responses), newest last. */
  evidence?: string[];
}

export interface JudgeDecision {
  pass: boolean;
  score: number;
  explanation: string;
  promptHash: string | null;
  cacheHit: boolean;
}

export interface Judge {
  /** `rules`, or `openai:<model>`. */
  readonly id: string;
  decide(req: JudgeRequest): Promise<JudgeDecision>;
}

/** A judge that could not decide (after its retries); the item becomes `judge_error`. */
export class JudgeError extends Error {
  constructor(message: string, readonly attempts: number) {
    super(message);
    this.name = "JudgeError";
  }
}
