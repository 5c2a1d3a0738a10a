/**
 * One result shape for every evaluator. Each item ends `scored` (a score in [0, 1]),
 * `skipped` (not routed to this evaluator: no score, and why) or `error` (no score, and the
 * error): an evaluation fault is never a silent 0 or null. Averages are over scored items,
 * with the counts beside them.
 */
import type { EvalItem, EvalKind } from "../formats/eval-dataset";

export type EvalStatus = "scored" | "skipped" | "error";

export interface EvalItemResult {
  id: string;
  /** The id as the dataset wrote it when it is a number: the output files write it back as one, as NAT does. */
  numericId?: number;
  /** The evaluator's name in the config (its output file is `<evaluator>_output.json`). */
  evaluator: string;
  kind: EvalKind;
  status: EvalStatus;
  /** In [0, 1] when scored; null otherwise. */
  score: number | null;
  /** Why this score, or why skipped, in full: may quote the reference (NAT's `reasoning`). */
  reasoning: string;
  /** Public: why, without quoting the reference. */
  reason: string;
  error: string | null;
  /** Structured evidence: the comparison, the field tree, the judge's prompt hash… */
  details: Record<string, unknown> | null;
  /** Named sub-scores (the report's `vlm_field`), null where not applicable. */
  subScores: Record<string, number | null>;
  /** `program` for deterministic scores, else the judge id (`rules`, `openai:<model>`). */
  judge: string | null;
  /** Time spent evaluating the item. */
  latencyMs: number;
  /** For errors: what NAT would write instead (`compat: nat`). */
  nat?: { score: number | null; reasoning: unknown };
  conversationId: string | null;
  turnId: string | null;
}

/** What an evaluator says about an item it was routed. */
export type Outcome =
  | { status: "scored"; score: number; reasoning: string; reason: string; judge: string; details?: Record<string, unknown>; subScores?: Record<string, number | null> }
  | {
      status: "error";
      error: string;
      reasoning?: string;
      reason?: string;
      judge?: string | null;
      details?: Record<string, unknown>;
      /** What NAT writes for this case (`compat: nat`), when it is not its generic evaluator error. */
      nat?: { score: number | null; reasoning: unknown };
    };

/** What an error says in public when the evaluator's own message may quote the reference. */
export const PRIVATE_ERROR_REASON = "the evaluator could not score this item";

export interface EvalSummary {
  /** Mean score over scored items; null when none was scored. */
  averageScore: number | null;
  nItems: number;
  nScored: number;
  nSkipped: number;
  nError: number;
  /** Mean of each sub-score over the scored items that have it. */
  subScores: Record<string, number | null>;
}

export function resultFor(item: EvalItem, evaluator: { name: string; kind: EvalKind }, o: Outcome | { status: "skipped"; reasoning: string }, latencyMs: number): EvalItemResult {
  const base = {
    id: item.id,
    ...(item.numericId !== undefined ? { numericId: item.numericId } : {}),
    evaluator: evaluator.name,
    kind: evaluator.kind,
    latencyMs,
    conversationId: item.conversation?.id ?? null,
    turnId: item.conversation?.turnId ?? null,
  };
  if (o.status === "skipped") return { ...base, status: "skipped", score: null, reasoning: o.reasoning, reason: o.reasoning, error: null, details: null, subScores: {}, judge: null };
  if (o.status === "error") return { ...base, status: "error", score: null, reasoning: o.reasoning ?? "", reason: o.reason ?? PRIVATE_ERROR_REASON, error: o.error, details: o.details ?? null, subScores: {}, judge: o.judge ?? null, ...(o.nat ? { nat: o.nat } : {}) };
  return { ...base, status: "scored", score: o.score, reasoning: o.reasoning, reason: o.reason, error: null, details: o.details ?? null, subScores: o.subScores ?? {}, judge: o.judge };
}

export function summarize(results: readonly EvalItemResult[]): EvalSummary {
  const scored = results.filter((r) => r.status === "scored");
  const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null);
  const names = new Set(scored.flatMap((r) => Object.keys(r.subScores)));
  const subScores: Record<string, number | null> = {};
  for (const n of names) subScores[n] = mean(scored.map((r) => r.subScores[n]).filter((v): v is number => typeof v === "number"));
  return {
    averageScore: mean(scored.map((r) => r.score as number)),
    nItems: results.length,
    nScored: scored.length,
    nSkipped: results.filter((r) => r.status === "skipped").length,
    nError: results.filter((r) => r.status === "error").length,
    subScores,
  };
}
