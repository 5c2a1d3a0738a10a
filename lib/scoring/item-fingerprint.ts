/**
 * An item's fingerprint: a hash of what the agent submitted for it, normalised so that copies
 * dressed up to look different still match. Text (answers, tool names, every string inside
 * tool arguments and reports) is folded by `foldText` and has its edge punctuation trimmed
 * (`textKey`); tool calls are canonical JSON, so argument order does not matter but call order
 * does, and a call repeated back to back counts once. The hash starts with the capability and
 * uuid, so equal fingerprints mean the same item answered the same way, and the database can
 * find an entry's copies by the fingerprint alone (lib/submissions/run-integrity.ts).
 *
 * Fingerprints carry their version (`FINGERPRINT_PREFIX`): a change to what is hashed changes
 * the version, so fingerprints of two versions never match one another instead of matching on
 * some items only. Items stored with an older version (lib/submissions/refresh-fingerprints.ts)
 * are recomputed from their bundle.
 *
 * An item with no prediction, or one that carries nothing (no answer text, no calls, no
 * report: an errored record with an empty output), has none (null) and never matches.
 */
import { createHash } from "node:crypto";
import type { AgentOutput } from "../formats/eval-dataset";
import type { PredictedDialogue, ToolCall } from "../formats/dialogue";
import type { TrialPredictions } from "../validate/validate-bundle";
import type { ScorerName } from "../benchmark/spec";
import { answerText } from "../judges/answer-values";
import { canonicalJson } from "../formats/canonical-json";

/** What a fingerprint hashes, by version; version 1 (unprefixed) had no edge trimming, no invisible characters dropped, no repeated calls merged. */
export const FINGERPRINT_VERSION = 2;
export const FINGERPRINT_PREFIX = `v${FINGERPRINT_VERSION}:`;

// Invisible characters: format characters (zero-width space and joiners, bidi marks, soft
// hyphen, BOM) and the rest of Unicode's default-ignorables (variation selectors, fillers).
const INVISIBLE = /[\p{Cf}\p{Default_Ignorable_Code_Point}]/gu;
// Control characters left once whitespace is collapsed (tab, newline and the like are whitespace).
const CONTROL = /\p{Cc}/gu;
// Edges that do not change what an answer says: quotation marks either side, and sentence
// punctuation (. , ; : ! ? and their equivalents in other scripts) at the end. A leading
// "-" or ".", a trailing "%" or ")" are left alone: "-5", ".5" and "5%" are not "5".
const LEADING = /^[\p{Quotation_Mark}\s]+/u;
const TRAILING = /[\p{Terminal_Punctuation}\p{Quotation_Mark}\s]+$/u;

/**
 * Text as it is compared: Unicode NFKC, invisible and control characters dropped, whitespace
 * collapsed and trimmed, case folded (upper then lower case, so "ß" and "SS" fold alike).
 */
export function foldText(s: string): string {
  return s.normalize("NFKC").replace(INVISIBLE, "").replace(/\s+/gu, " ").replace(CONTROL, "").trim().toUpperCase().toLowerCase().normalize("NFKC");
}

/** A text as a fingerprint compares it: folded, then its edge punctuation and quotes trimmed. */
export function textKey(s: string): string {
  return foldText(s).replace(TRAILING, "").replace(LEADING, "");
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && [Object.prototype, null].includes(Object.getPrototypeOf(v));

/** A JSON value with every string (object keys included) as `textKey` reads it; numbers (lossless ones too) as they are. */
function valueKey(v: unknown): unknown {
  if (typeof v === "string") return textKey(v);
  if (Array.isArray(v)) return v.map(valueKey);
  if (isPlainObject(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [textKey(k), valueKey(x)]));
  return v;
}

/** The calls as canonical JSON, each normalised, a call repeated back to back once. */
export function callsKey(calls: readonly Pick<ToolCall, "name" | "arguments">[]): string {
  const keys: string[] = [];
  for (const c of calls) {
    const key = canonicalJson({ name: textKey(c.name), arguments: valueKey(c.arguments ?? {}) });
    if (keys.at(-1) !== key) keys.push(key);
  }
  return `[${keys.join(",")}]`;
}

function hash(capability: string, uuid: string, parts: readonly string[]): string {
  const h = createHash("sha256").update(capability).update("\0").update(uuid);
  for (const p of parts) h.update("\0").update(p);
  return FINGERPRINT_PREFIX + h.digest("hex").slice(0, 32);
}

/** A waterfall item: every predicted turn's answer (as the waterfall compares it) and calls, in turn order. */
export function dialogueFingerprint(capability: string, uuid: string, prediction: PredictedDialogue | undefined): string | null {
  if (!prediction) return null;
  const parts: string[] = [];
  let carries = false;
  for (const t of prediction.turns) {
    const answer = textKey(answerText(t.answer));
    if (answer !== "" || t.calls.length > 0) carries = true;
    parts.push(answer, callsKey(t.calls));
  }
  return carries ? hash(capability, uuid, parts) : null;
}

/** An evaluator item: the answer, the tool calls (name and parameters, by step) and the report's text. */
export function outputFingerprint(capability: string, uuid: string, output: AgentOutput | null | undefined): string | null {
  if (!output) return null;
  const answer = textKey(output.answer ?? "");
  const calls = (output.toolCalls ?? []).map((c) => ({ name: c.name, arguments: c.params }));
  const report = output.report?.ok ? canonicalJson(valueKey(output.report.value)) : "";
  if (answer === "" && calls.length === 0 && report === "") return null;
  return hash(capability, uuid, [answer, callsKey(calls), report]);
}

/**
 * A stored item's fingerprint, from its trial's predictions: what its scorer hashes (a waterfall
 * item its dialogue, an evaluator item its output, both looked up by capability and uuid as the
 * scorers look them up). For recomputing fingerprints stored with an older version.
 */
export function itemFingerprint(predictions: Pick<TrialPredictions, "capabilities" | "outputs">, item: { capability: string; uuid: string; scorer: ScorerName }): string | null {
  return item.scorer === "waterfall"
    ? dialogueFingerprint(item.capability, item.uuid, predictions.capabilities.get(item.capability)?.get(item.uuid))
    : outputFingerprint(item.capability, item.uuid, predictions.outputs.get(item.capability)?.get(item.uuid));
}
