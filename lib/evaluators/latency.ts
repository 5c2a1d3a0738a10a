/**
 * Latency from the agent's own event timestamps. An item's latency is the span from its
 * first to its last event; a conversation's is the span over all its turns (wall clock) and
 * the sum of its turns. LLM and tool time pair each *_START with the *_END of the same span
 * UUID (or an END's own span start), never with the previous START, so parallel calls are
 * counted right. Percentiles interpolate linearly between ranks.
 */
import type { AgentOutput, EvalItem } from "../formats/eval-dataset";

export interface ItemLatency {
  id: string;
  /** The id as the dataset wrote it when it is a number (written back as one). */
  numericId?: number;
  query: string;
  conversationId: string | null;
  turnId: string | null;
  /** Seconds from first to last event; null without timestamps. */
  latencySeconds: number | null;
  /** Summed span time of LLM calls and tool calls; null when no span could be paired. */
  llmSeconds: number | null;
  toolSeconds: number | null;
  llmCalls: number;
  toolCalls: number;
}

export interface ConversationLatency {
  id: string;
  turns: number;
  latencySeconds: number | null;
  sumOfTurnsSeconds: number | null;
}

export interface LatencyStats {
  /** How many had a latency. */
  n: number;
  average: number | null;
  p50: number | null;
  p95: number | null;
}

export interface LatencySummary {
  items: ItemLatency[];
  conversations: ConversationLatency[];
  perItem: LatencyStats;
  perConversation: LatencyStats;
}

/** The q-quantile (0..1) of ascending values, interpolating between ranks. */
export function percentile(sorted: readonly number[], q: number): number | null {
  if (sorted.length === 0) return null;
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (pos - lo);
}

export function latencyStats(values: readonly (number | null)[]): LatencyStats {
  const xs = values.filter((v): v is number => v !== null).sort((a, b) => a - b);
  return {
    n: xs.length,
    average: xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null,
    p50: percentile(xs, 0.5),
    p95: percentile(xs, 0.95),
  };
}

function timestampsOf(output: Pick<AgentOutput, "timestamps" | "events"> | null): number[] {
  const out = [...(output?.timestamps ?? [])];
  for (const e of output?.events ?? []) {
    if (e.timestamp !== null) out.push(e.timestamp);
    if (e.spanStart !== null) out.push(e.spanStart);
  }
  return out;
}

/** Seconds from the first to the last timestamp; null without any. A loop, not a spread: the list may be long. */
function span(ts: readonly number[]): number | null {
  if (ts.length === 0) return null;
  let lo = Infinity;
  let hi = -Infinity;
  for (const t of ts) {
    if (t < lo) lo = t;
    if (t > hi) hi = t;
  }
  return hi - lo;
}

/** An output's latency: the span of its own timestamps and its trajectory's event times. */
export function outputLatency(output: Pick<AgentOutput, "timestamps" | "events"> | null): number | null {
  return span(timestampsOf(output));
}

function spanSeconds(item: EvalItem): { llm: number | null; tool: number | null; llmCalls: number; toolCalls: number } {
  const starts = new Map<string, number>();
  const totals = { LLM: { s: 0, n: 0 }, TOOL: { s: 0, n: 0 } };
  for (const e of item.output?.events ?? []) {
    const m = /^(LLM|TOOL)_(START|END)$/.exec(e.type);
    if (!m) continue;
    const kind = m[1] as "LLM" | "TOOL";
    if (m[2] === "START") {
      if (e.uuid !== null && e.timestamp !== null) starts.set(`${kind}:${e.uuid}`, e.timestamp);
      continue;
    }
    if (e.timestamp === null) continue;
    const start = (e.uuid !== null ? starts.get(`${kind}:${e.uuid}`) : undefined) ?? e.spanStart ?? undefined;
    if (start === undefined) continue;
    totals[kind].s += Math.max(0, e.timestamp - start);
    totals[kind].n++;
  }
  return { llm: totals.LLM.n ? totals.LLM.s : null, tool: totals.TOOL.n ? totals.TOOL.s : null, llmCalls: totals.LLM.n, toolCalls: totals.TOOL.n };
}

export function summarizeLatency(items: readonly EvalItem[]): LatencySummary {
  const perItem: ItemLatency[] = [];
  const conv = new Map<string, { turns: number; times: number[]; sum: number | null }>();
  for (const it of items) {
    const ts = timestampsOf(it.output);
    const latency = span(ts);
    const spans = spanSeconds(it);
    perItem.push({
      id: it.id,
      ...(it.numericId !== undefined ? { numericId: it.numericId } : {}),
      query: it.query,
      conversationId: it.conversation?.id ?? null,
      turnId: it.conversation?.turnId ?? null,
      latencySeconds: latency,
      llmSeconds: spans.llm,
      toolSeconds: spans.tool,
      llmCalls: spans.llmCalls,
      toolCalls: spans.toolCalls,
    });
    if (it.conversation) {
      const c = conv.get(it.conversation.id) ?? { turns: 0, times: [], sum: null };
      c.turns++;
      for (const t of ts) c.times.push(t);
      if (latency !== null) c.sum = (c.sum ?? 0) + latency;
      conv.set(it.conversation.id, c);
    }
  }
  const conversations = [...conv].map(([id, c]) => ({
    id,
    turns: c.turns,
    latencySeconds: span(c.times),
    sumOfTurnsSeconds: c.sum,
  }));
  return {
    items: perItem,
    conversations,
    perItem: latencyStats(perItem.map((i) => i.latencySeconds)),
    perConversation: latencyStats(conversations.map((c) => c.latencySeconds)),
  };
}
