/**
 * The graded judge port the evaluators use: a score in [0, 1] with reasons, instead of the
 * pass/fail verdicts of `judge.ts`. An LLM judge reads the rendered prompt; the offline
 * `rules` judge reads the facts beside it. Both throw on failure (`JudgeError` after
 * retries); the evaluators turn that into an `error` item, never a score.
 */
import type { ChatMessage } from "./prompts";

export type GradePurpose = "qa" | "trajectory" | "report_field";

export interface GradeRequest {
  purpose: GradePurpose;
  messages: ChatMessage[];
  /** What a deterministic judge compares: the texts the prompt was rendered from. */
  facts: { question?: string; answer: string; reference: string; field?: string };
}

export interface Grade {
  score: number;
  reasoning: string;
  promptHash: string | null;
  cacheHit: boolean;
}

/** Unlisted report fields of one section, to map onto reference fields and score in one call. */
export interface DiscoveryRequest {
  messages: ChatMessage[];
  /** Dotted path of the section. */
  section: string;
  /** The report's unlisted fields. */
  actual: Record<string, unknown>;
  /** The reference fields they may correspond to. */
  candidates: Record<string, unknown>;
}

export interface FieldMatch {
  field: string;
  /** The reference field it corresponds to, or null when it has none. */
  referenceField: string | null;
  score: number;
  reasoning: string;
}

export interface DiscoveryResult {
  matches: FieldMatch[];
  promptHash: string | null;
  cacheHit: boolean;
}

export interface ScoreJudge {
  /** `rules`, or `openai:<model>`. */
  readonly id: string;
  /** Whether it reads prompts (an LLM), or only the facts (rules). */
  readonly readsPrompts: boolean;
  grade(req: GradeRequest): Promise<Grade>;
  discoverFields(req: DiscoveryRequest): Promise<DiscoveryResult>;
}
