/**
 * An item's fingerprint: a hash of what the agent submitted for it, normalised so that
 * re-typed copies still match (answers case-folded, Unicode NFKC, whitespace collapsed; tool
 * calls as canonical JSON, so argument order does not matter but call order does). It starts
 * with the capability and uuid, so equal fingerprints mean the same item answered the same
 * way, and the database can find an entry's copies by the fingerprint alone (duplicate-flags.ts).
 *
 * An item with no prediction, or one that carries nothing (no answer text, no calls, no
 * report: an errored record with an empty output), has none (null) and never matches.
 */
import { createHash } from "node:crypto";
import type { AgentOutput } from "../formats/eval-dataset";
import type { PredictedDialogue, ToolCall } from "../formats/dialogue";
import { answerText } from "./answer-values";
import { canonicalJson } from "./canonical-json";

/** Case-folded (as far as JavaScript folds: lower case after NFKC), whitespace collapsed, trimmed. */
export function foldText(s: string): string {
  return s.normalize("NFKC").toLowerCase().replace(/\s+/gu, " ").trim();
}

const callsJson = (calls: readonly Pick<ToolCall, "name" | "arguments">[]) => canonicalJson(calls.map((c) => ({ name: c.name, arguments: c.arguments ?? {} })));

function hash(capability: string, uuid: string, parts: readonly string[]): string {
  const h = createHash("sha256").update(capability).update("\0").update(uuid);
  for (const p of parts) h.update("\0").update(p);
  return h.digest("hex").slice(0, 32);
}

/** A waterfall item: every predicted turn's answer (as the waterfall compares it) and calls, in turn order. */
export function dialogueFingerprint(capability: string, uuid: string, prediction: PredictedDialogue | undefined): string | null {
  if (!prediction) return null;
  const parts: string[] = [];
  let carries = false;
  for (const t of prediction.turns) {
    const answer = foldText(answerText(t.answer));
    if (answer !== "" || t.calls.length > 0) carries = true;
    parts.push(answer, callsJson(t.calls));
  }
  return carries ? hash(capability, uuid, parts) : null;
}

/** An evaluator item: the answer, the tool calls (name and parameters, by step) and the report's text. */
export function outputFingerprint(capability: string, uuid: string, output: AgentOutput | null | undefined): string | null {
  if (!output) return null;
  const answer = foldText(output.answer ?? "");
  const calls = (output.toolCalls ?? []).map((c) => ({ name: c.name, arguments: c.params }));
  const report = output.report?.ok ? foldText(canonicalJson(output.report.value)) : "";
  if (answer === "" && calls.length === 0 && report === "") return null;
  return hash(capability, uuid, [answer, callsJson(calls), report]);
}
