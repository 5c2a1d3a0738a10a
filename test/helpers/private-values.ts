/**
 * The ground-truth values a private benchmark must never show for an item: its reference
 * answer's values (and, for reports, the reference report's field values), less whatever
 * the item's public material already holds (the query, the agent's answer, calls and
 * replayed responses), since showing those is no leak. Short values are left out: a "12"
 * also appears as a score or a latency on any page, a "high" in any prose.
 */
import { answerAtoms } from "@/lib/judges/answer-values";
import type { Benchmark } from "@/lib/benchmark/load-benchmark";
import type { AnswerValue } from "@/lib/formats/dialogue";
import type { ItemDetail } from "@/lib/queries/types";

function leaves(v: unknown, out: string[] = []): string[] {
  if (v === null || v === undefined) return out;
  if (Array.isArray(v)) v.forEach((x) => leaves(x, out));
  else if (typeof v === "object") Object.values(v).forEach((x) => leaves(x, out));
  else out.push(String(v));
  return out;
}

export function referenceValues(benchmark: Benchmark, capability: string, uuid: string): string[] {
  const cap = benchmark.capabilities.find((c) => c.spec.id === capability);
  if (!cap) return [];
  if (cap.kind === "dialogues") {
    const last = cap.byUuid.get(uuid)?.turns.at(-1);
    return last ? answerAtoms(last.answer as AnswerValue).map(String) : [];
  }
  const item = cap.byUuid.get(uuid);
  if (!item) return [];
  const report = item.referenceReport?.ok ? leaves(item.referenceReport.value) : [];
  // A prose reference is checked whole and by its numbers (its words are anyone's), a report by its field values.
  const prose = item.groundTruth ? [item.groundTruth, ...(item.groundTruth.match(/\d[\d.,:]*\d/g) ?? [])] : [];
  return [...report, ...prose];
}

/** The expected tool calls' names and argument values of an item's scored turn (waterfall capabilities). */
export function expectedCallValues(benchmark: Benchmark, capability: string, uuid: string): string[] {
  const cap = benchmark.capabilities.find((c) => c.spec.id === capability);
  if (!cap || cap.kind !== "dialogues") return [];
  const calls = cap.byUuid.get(uuid)?.turns.at(-1)?.calls ?? [];
  return calls.flatMap((c) => [c.name, ...leaves(c.arguments)]);
}

/** Reference values the item's public material (and any other public text given) does not already contain. */
export function secretsOf(benchmark: Benchmark, item: Pick<ItemDetail, "capability" | "uuid" | "query" | "answer" | "calls" | "responses">, alsoPublic = "", values = referenceValues(benchmark, item.capability, item.uuid)): string[] {
  const visible = (JSON.stringify([item.query, item.answer, item.calls, item.responses]) + alsoPublic).toLowerCase();
  values = values.map((v) => v.trim());
  const distinctive = (v: string) => (/^-?[\d.,]+$/.test(v) ? v.replace(/\D/g, "").length >= 3 : v.length >= 6);
  return [...new Set(values)].filter((v) => distinctive(v) && !visible.includes(v.toLowerCase()) && !visible.includes(JSON.stringify(v).slice(1, -1).toLowerCase()));
}

/** Whether the text holds the value as a whole token (not inside a hash, a time or a longer word). */
export function quotes(text: string, value: string): boolean {
  const escaped = value.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return new RegExp(`(?<![\\p{L}\\p{N}])${escaped}(?![\\p{L}\\p{N}]|\\.\\d)`, "iu").test(text);
}
