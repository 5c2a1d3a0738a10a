/**
 * Canaries: strings a benchmark plants in its own data (benchmark.yaml `integrity.canaries`) so
 * that a model trained on that data may reproduce them. Any text the agent wrote that contains
 * one (case-insensitive, Unicode NFKC, whitespace collapsed) flags the entry: its answers, its
 * tool calls' names and arguments, its error text, the texts of an evaluator output (answer,
 * trajectory events, report) and the bundle's metadata. The benchmark's own words are not
 * scanned: a record's `query` (the question, copied back) and the tool responses (what the
 * environment returned) may carry a canary legitimately.
 *
 * Bounded: every string is visited once and folded once, then searched for each canary; the
 * validator bounds the bundle's bytes, and the spec bounds the canaries (count and length).
 */
import type { AgentOutput } from "../formats/eval-dataset";
import type { PredictedDialogue } from "../formats/dialogue";
import type { Submission } from "../validate/validate-bundle";
import type { FlaggedItem } from "./integrity-flags";
import { foldText } from "./item-fingerprint";

export interface CanaryHits {
  /** Every item whose submitted text holds a canary, in capability then bundle order; in a bundle of trials, with the first trial whose text holds it. */
  items: FlaggedItem[];
  inMetadata: boolean;
}

/** Canaries as they are compared: folded, empty ones dropped. */
export function foldCanaries(canaries: readonly string[]): string[] {
  return [...new Set(canaries.map(foldText).filter((c) => c !== ""))];
}

/** Whether any string inside `value` (object keys included) holds one of the folded canaries. */
export function holdsCanary(value: unknown, folded: readonly string[]): boolean {
  if (folded.length === 0) return false;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v === "string") {
      const text = foldText(v);
      if (folded.some((c) => text.includes(c))) return true;
    } else if (Array.isArray(v)) {
      for (const x of v) stack.push(x);
    } else if (v !== null && typeof v === "object") {
      for (const [k, x] of Object.entries(v)) stack.push(k, x);
    }
  }
  return false;
}

function dialogueTexts(d: PredictedDialogue): unknown[] {
  return [d.error, ...d.turns.flatMap((t) => [t.answer, ...t.calls.map((c) => [c.name, c.arguments])])];
}

/** A tool event's output is what the tool returned, not the agent's words. */
const isToolEvent = (type: string) => type.startsWith("TOOL");

function outputTexts(o: AgentOutput): unknown[] {
  return [o.answer, (o.toolCalls ?? []).map((c) => [c.name, c.params, c.rawParams]), (o.events ?? []).map((e) => [e.name, e.input, isToolEvent(e.type) ? null : e.output]), o.report?.ok ? o.report.value : null];
}

export function scanCanaries(submission: Pick<Submission, "capabilities" | "outputs" | "metadata" | "trials">, canaries: readonly string[]): CanaryHits {
  const folded = foldCanaries(canaries);
  const hits: CanaryHits = { items: [], inMetadata: false };
  if (folded.length === 0) return hits;
  // Every trial of the bundle (an item is named once, with the first trial that holds the canary).
  const seen = new Set<string>();
  const trials = submission.trials ?? [submission];
  for (const [i, trial] of trials.entries()) {
    const hit = (capability: string, uuid: string) => {
      const key = `${capability}\0${uuid}`;
      if (!seen.has(key)) hits.items.push({ capability, uuid, ...(trials.length > 1 ? { trial: i + 1 } : {}) });
      seen.add(key);
    };
    for (const [capability, dialogues] of trial.capabilities) {
      for (const [uuid, d] of dialogues) if (holdsCanary(dialogueTexts(d), folded)) hit(capability, uuid);
    }
    for (const [capability, outputs] of trial.outputs) {
      for (const [uuid, o] of outputs) if (holdsCanary(outputTexts(o), folded)) hit(capability, uuid);
    }
  }
  hits.inMetadata = holdsCanary(submission.metadata, folded);
  return hits;
}
