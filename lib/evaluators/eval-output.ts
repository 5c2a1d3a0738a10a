/**
 * The files an evaluation writes, in the shapes NAT and VSS write them, field for field:
 * `<evaluator>_output.json` = `{average_score, [average_vlm_field_score], eval_output_items:
 * [{id, score, reasoning, error, [vlm_field_score]}]}` (a numeric id stays a number, as NAT
 * writes it) with each evaluator's own `reasoning`
 * object, and `latency_summary.json` = `{average_latency_seconds, items: [{id, query,
 * latency_seconds}]}`. Agentboard's additions follow NAT's fields and never replace them:
 * each item's `status`, judge and timing, and an `agentboard` block with the counts.
 *
 * By default an item the evaluator could not score has `score: null` and its `error`, and
 * averages are over scored items to 4 decimals. With `compat: nat` the numbers are NAT's:
 * such an item scores 0.0 with NAT's "Error…" reasoning (a report evaluator's null), and the
 * average is NAT's, to 2 decimals.
 */
import type { EvalItem } from "../formats/eval-dataset";
import type { LatencySummary } from "./latency";
import { natEvaluationScore, type FieldScore } from "./report-tree";
import type { EvalItemResult } from "./result";
import type { EvaluatorRun } from "./run-evaluation";

export const EVAL_OUTPUT_SCHEMA_VERSION = 2;

export type OutputCompat = "nat" | null;

const round = (x: number | null, digits: number) => (x === null || !Number.isFinite(x) ? x : Number(x.toFixed(digits)));
const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null);

export function evaluatorOutputFile(run: Pick<EvaluatorRun, "name">): string {
  return `${run.name}_output.json`;
}

/** NAT's `reasoning` for a result that has evidence: the evaluator's own object. */
function reasoningObject(r: EvalItemResult): unknown {
  const d = r.details;
  if (!d) return r.status === "error" ? { error: r.error } : r.reasoning;
  if (r.kind === "report" && d.sections) {
    const tree = d.sections as FieldScore;
    return { sections: natEvaluationScore(tree).field_scores, metadata: d.metadata };
  }
  return d;
}

interface NatItem {
  score: number | null;
  reasoning: unknown;
  error: string | null;
}

function natItem(r: EvalItemResult, compat: OutputCompat, attempts: number): NatItem {
  if (r.status === "skipped") return { score: null, reasoning: r.reasoning, error: null };
  if (r.status === "scored") return { score: r.score, reasoning: reasoningObject(r), error: null };
  if (compat !== "nat") return { score: null, reasoning: reasoningObject(r), error: r.error };
  if (r.nat) return { score: r.nat.score, reasoning: r.nat.reasoning, error: null };
  if (r.kind === "report") return { score: null, reasoning: r.details?.sections ? reasoningObject(r) : { error: r.error }, error: null };
  if (r.judge && r.judge !== "program") return { score: 0, reasoning: `Error evaluating after ${attempts} attempts. Last error: ${r.error}. Last response: ${r.error}`, error: null };
  return { score: 0, reasoning: { error: `Evaluator error: ${r.error}` }, error: null };
}

export interface OutputOptions {
  compat?: OutputCompat;
  /** Judge attempts per item (NAT's max_retries + 1), for NAT's error text. */
  attempts?: number;
}

export function evaluatorOutputDocument(run: EvaluatorRun, opts: OutputOptions = {}): Record<string, unknown> {
  const compat = opts.compat ?? null;
  const items = run.items.map((r) => ({ r, nat: natItem(r, compat, opts.attempts ?? 3) }));
  const numeric = items.map((i) => i.nat.score).filter((s): s is number => typeof s === "number");
  const average = compat === "nat" ? round(mean(numeric), 2) : round(run.summary.averageScore, 4);
  const isReport = run.kind === "report";
  const vlmOn = isReport && items.some((i) => "vlm_field" in i.r.subScores);
  let vlmAverage: number | null = null;
  if (vlmOn) {
    // NAT averages every item's VLM score, a skipped or failed one as 0.
    vlmAverage = compat === "nat" ? mean(items.map((i) => i.r.subScores.vlm_field ?? 0)) : round(run.summary.subScores.vlm_field ?? null, 4);
  }
  const s = run.summary;
  return {
    average_score: average,
    ...(isReport ? { average_vlm_field_score: vlmAverage } : {}),
    eval_output_items: items.map(({ r, nat }) => ({
      id: r.numericId ?? r.id,
      score: compat === "nat" ? nat.score : round(nat.score, 4),
      reasoning: nat.reasoning,
      error: nat.error,
      ...(isReport ? { vlm_field_score: vlmOn ? round(r.subScores.vlm_field ?? null, 4) : null } : {}),
      status: r.status,
      ...(r.conversationId !== null ? { conversation_id: r.conversationId, turn_id: r.turnId } : {}),
      judge: r.judge,
      latency_ms: Math.round(r.latencyMs),
    })),
    agentboard: {
      schema_version: EVAL_OUTPUT_SCHEMA_VERSION,
      evaluator: run.name,
      kind: run.kind,
      evaluation_method_id: run.methodId,
      judge: run.judge,
      compat: compat ?? "none",
      average_over: compat === "nat" ? "every item with a number (errors as 0.0), 2 decimals" : "scored items, 4 decimals",
      n_items: s.nItems,
      n_scored: s.nScored,
      n_skipped: s.nSkipped,
      n_error: s.nError,
    },
  };
}

export function latencySummaryDocument(l: LatencySummary): Record<string, unknown> {
  const r3 = (x: number | null) => round(x, 3);
  return {
    average_latency_seconds: r3(l.perItem.average),
    items: l.items.map((i) => ({
      id: i.numericId ?? i.id,
      query: i.query,
      latency_seconds: r3(i.latencySeconds),
      ...(i.conversationId !== null ? { conversation_id: i.conversationId, turn_id: i.turnId } : {}),
      llm_seconds: r3(i.llmSeconds),
      tool_seconds: r3(i.toolSeconds),
      llm_calls: i.llmCalls,
      tool_calls: i.toolCalls,
    })),
    schema_version: EVAL_OUTPUT_SCHEMA_VERSION,
    p50_latency_seconds: r3(l.perItem.p50),
    p95_latency_seconds: r3(l.perItem.p95),
    n_measured: l.perItem.n,
    n_items: l.items.length,
    conversations: {
      average_latency_seconds: r3(l.perConversation.average),
      p50_latency_seconds: r3(l.perConversation.p50),
      p95_latency_seconds: r3(l.perConversation.p95),
      items: l.conversations.map((c) => ({ id: c.id, turns: c.turns, latency_seconds: r3(c.latencySeconds), sum_of_turns_seconds: r3(c.sumOfTurnsSeconds) })),
    },
  };
}

/**
 * NAT's `workflow_output.json`: each item's dataset record with the question, reference,
 * the agent's answer and its trajectory under the configured keys.
 */
export function workflowOutputDocument(items: readonly EvalItem[], keys: { question: string; answer: string; generatedAnswer: string; trajectory: string; id: string }): unknown[] {
  return items.map((it) => ({
    ...(it.record ?? {}),
    [keys.id]: it.numericId ?? it.id,
    [keys.question]: it.query,
    [keys.answer]: it.groundTruthRaw ?? it.groundTruth ?? "",
    [keys.generatedAnswer]: it.output?.answer ?? null,
    [keys.trajectory]: it.output?.rawTrajectory ?? [],
    expected_intermediate_steps: [],
  }));
}
