/**
 * The grader port: everything that judges goes through it. The waterfall's pass/fail
 * stages (correctness, groundedness), the evaluators' graded scores (qa, trajectory, report
 * fields) and report field discovery are requests of one union; every answer is one
 * `Grade`. A grader never throws for a judge fault: a judge that gave up after its retries,
 * or a reply nobody can read, is the first-class outcome `unjudged` (never a silent 0).
 *
 * Evidence has two halves. `reason` is public: it never quotes the ground truth (reference
 * answers, reference report values, expected calls), because leaderboards gate their test
 * sets. `detail` is private: it may quote them, and is shown only where a benchmark sets
 * `showGroundTruth`.
 */
import type { AnswerValue } from "../formats/dialogue";
import type { ChatMessage } from "./prompts";

/**
 * How a graded evaluator talks to its judge. `agentboard`: values fenced as data under a
 * system message, replies read for the judge's own verdict. `nat`: NAT's messages exactly
 * (the template filled in as Python's str.format fills it, as the only message) and NAT's
 * reply reading (the first number; for report fields the whole reply as one number).
 */
export type JudgeStyle = "agentboard" | "nat";

/** Graded requests: the evaluators' prompts, plus the texts a deterministic grader compares. */
export interface PromptFacts {
  question?: string;
  answer: string;
  reference: string;
  field?: string;
}

export type GradeRequest =
  | { kind: "correctness"; question: string; answer: string; answerValue: AnswerValue; reference: string; referenceValue: AnswerValue }
  | { kind: "groundedness"; question: string; answer: string; answerValue: AnswerValue; evidence: readonly string[] }
  | { kind: "qa" | "trajectory" | "report_field"; messages: ChatMessage[]; facts: PromptFacts; style?: JudgeStyle; thinking?: boolean }
  | {
      kind: "field_discovery";
      messages: ChatMessage[];
      style?: JudgeStyle;
      thinking?: boolean;
      /** Dotted path of the section. */
      section: string;
      /** The report's unlisted fields. */
      actual: Record<string, unknown>;
      /** The reference fields they may correspond to. */
      candidates: Record<string, unknown>;
    };

export type GradeKind = GradeRequest["kind"];

/** An unlisted report field mapped onto a reference field (or none), with its score. */
export interface FieldMatch {
  field: string;
  referenceField: string | null;
  score: number;
  reasoning: string;
}

export type GradeOutcome =
  /** A pass/fail stage passed (score 1). */
  | "pass"
  /** A pass/fail stage failed (score 0). */
  | "fail"
  /** A graded score in [0, 1]. */
  | "scored"
  /** The judge could not judge: no usable reply after its retries. No score. */
  | "unjudged";

export interface Grade {
  outcome: GradeOutcome;
  /** In [0, 1]; null when unjudged. */
  score: number | null;
  /** Public: why, without quoting the ground truth. */
  reason: string;
  /** Private: the judge's own words or the compared values; may quote the ground truth. */
  detail: string | null;
  promptHash: string | null;
  cacheHit: boolean;
  /** Field discovery: each unlisted field's match. */
  matches?: FieldMatch[];
  /** A panel's grade (panel-grader.ts): its request's decision key, whether its judges disagreed, whether a maintainer decided it. */
  panel?: PanelMark;
}

/** What a panel's grade says of itself; the members' grades are in the item's panel records. */
export interface PanelMark {
  key: string;
  disputed: boolean;
  decided: boolean;
}

export interface Grader {
  /** `rules`, or `openai:<model>`. */
  readonly id: string;
  /** Whether it reads prompts (an LLM), or only the facts beside them (rules). */
  readonly readsPrompts: boolean;
  /** The model an LLM grader asks: with the request's kind and the prompt hash, it keys the grade (grade-cache.ts `gradeKey`). */
  readonly model?: string;
  grade(req: GradeRequest): Promise<Grade>;
}

/** A reply the model gave that cannot be used (no verdict, a score out of range…): asked again. */
export class UnusableReplyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UnusableReplyError";
  }
}

/**
 * A reply that holds two different verdicts (or scores) of the judge's own: it may be the judge
 * quoting a verdict planted in the submission, so neither is taken. Asked again a bounded number
 * of times (chat-client.ts), then the grade is unjudged: never a pass.
 */
export class AmbiguousReplyError extends UnusableReplyError {
  constructor(message: string) {
    super(message);
    this.name = "AmbiguousReplyError";
  }
}

/** The judge gave up: its attempts are spent, or the endpoint refused the request. */
export class JudgeUnavailableError extends Error {
  constructor(message: string, readonly attempts: number) {
    super(message);
    this.name = "JudgeUnavailableError";
  }
}

/** The judge gave up because its replies stayed ambiguous after being asked again. */
export class AmbiguousJudgeError extends JudgeUnavailableError {
  constructor(message: string, attempts: number) {
    super(message, attempts);
    this.name = "AmbiguousJudgeError";
  }
}

/** The judge was stopped (a worker shutting down): no verdict, and nothing to store or cache. */
export class JudgeAbortedError extends JudgeUnavailableError {
  constructor(message: string, attempts: number) {
    super(message, attempts);
    this.name = "JudgeAbortedError";
  }
}

export function passFail(pass: boolean, reason: string, detail: string | null = null): Grade {
  return { outcome: pass ? "pass" : "fail", score: pass ? 1 : 0, reason, detail, promptHash: null, cacheHit: false };
}

export function scored(score: number, reason: string, detail: string | null = null): Grade {
  return { outcome: "scored", score, reason, detail, promptHash: null, cacheHit: false };
}

export function unjudged(reason: string, detail: string | null = null): Grade {
  return { outcome: "unjudged", score: null, reason, detail, promptHash: null, cacheHit: false };
}

/**
 * Runs a grader and makes anything it throws an `unjudged` grade: a bug in a grader fails
 * that item, never the run. The error's text may quote a prompt, so it stays private.
 */
export async function gradeSafely(grader: Grader, req: GradeRequest): Promise<Grade> {
  try {
    return await grader.grade(req);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    return unjudged(`the ${grader.id} judge failed`, message);
  }
}
