/**
 * The files an evaluation writes, in NAT's shapes where NAT has one:
 * `<evaluator>_output.json` = `{average_score, eval_output_items: [{id, score, reasoning, error}]}`
 * plus our status, counts and evidence; `latency_summary.json` with per-item and per-turn
 * latencies, average, p50 and p95. Both carry a schema version.
 */
import type { LatencySummary } from "./latency";
import type { EvaluatorRun } from "./run-evaluation";

export const EVAL_OUTPUT_SCHEMA_VERSION = 1;

const round = (x: number | null, digits: number) => (x === null ? null : Number(x.toFixed(digits)));

export function evaluatorOutputFile(run: Pick<EvaluatorRun, "name">): string {
  return `${run.name}_output.json`;
}

export function evaluatorOutputDocument(run: EvaluatorRun): Record<string, unknown> {
  const s = run.summary;
  const subAverages = Object.fromEntries(Object.entries(s.subScores).map(([k, v]) => [`average_${k}_score`, round(v, 4)]));
  return {
    schema_version: EVAL_OUTPUT_SCHEMA_VERSION,
    evaluator: run.name,
    kind: run.kind,
    evaluation_method_id: run.methodId,
    judge: run.judge,
    average_score: round(s.averageScore, 4),
    ...subAverages,
    n_items: s.nItems,
    n_scored: s.nScored,
    n_skipped: s.nSkipped,
    n_error: s.nError,
    eval_output_items: run.items.map((r) => ({
      id: r.id,
      status: r.status,
      score: round(r.score, 4),
      reasoning: r.reasoning,
      error: r.error,
      ...Object.fromEntries(Object.entries(r.subScores).map(([k, v]) => [`${k}_score`, round(v, 4)])),
      ...(r.conversationId !== null ? { conversation_id: r.conversationId, turn_id: r.turnId } : {}),
      judge: r.judge,
      latency_ms: Math.round(r.latencyMs),
      details: r.details,
    })),
  };
}

export function latencySummaryDocument(l: LatencySummary): Record<string, unknown> {
  const r3 = (x: number | null) => round(x, 3);
  return {
    schema_version: EVAL_OUTPUT_SCHEMA_VERSION,
    average_latency_seconds: r3(l.perItem.average),
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
    items: l.items.map((i) => ({
      id: i.id,
      query: i.query,
      ...(i.conversationId !== null ? { conversation_id: i.conversationId, turn_id: i.turnId } : {}),
      latency_seconds: r3(i.latencySeconds),
      llm_seconds: r3(i.llmSeconds),
      tool_seconds: r3(i.toolSeconds),
      llm_calls: i.llmCalls,
      tool_calls: i.toolCalls,
    })),
  };
}
