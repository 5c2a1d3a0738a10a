/**
 * Reads a graded score out of a model's reply: the judge's own, never one it quoted from the
 * submission (see `judge-reply.ts`). Reasoning and echoed data blocks go first; then every
 * score the reply states is a candidate: a JSON object with a `score`, a `score:` line, or a
 * lone number on the last line. Candidates must agree (`agreedCandidate`): two different
 * scores make the reply ambiguous. Never the first number in the prose (that is how step
 * numbers become scores), and never a value outside [0, 1]: both are errors, so the caller
 * asks again.
 */
import type { DataContext } from "./data-blocks";
import { UnusableReplyError, type FieldMatch } from "./grader";
import { agreedCandidate, ownText, quotedFrom, topLevelObjects, type Candidate } from "./judge-reply";

const NUMBER = /^[-+]?(\d+(\.\d*)?|\.\d+)$/;

function scoreValue(raw: unknown): number | undefined {
  if (typeof raw === "number") return raw;
  if (typeof raw === "string" && NUMBER.test(raw.trim())) return Number(raw.trim());
  return undefined;
}

function inRange(score: number): number {
  if (!Number.isFinite(score) || score < 0 || score > 1) throw new UnusableReplyError(`score ${score} is outside [0, 1]`);
  return score;
}

function reasonOf(obj: Record<string, unknown>): string {
  const r = obj.reasoning ?? obj.reason ?? obj.explanation ?? obj.rationale;
  return typeof r === "string" ? r : "";
}

type ScoreSource = "object" | "line" | "tail";

export function parseScoreReply(reply: string, data?: DataContext): { score: number; reasoning: string } {
  const text = ownText(reply);
  const quoted = quotedFrom(data);
  const candidates: Candidate<{ reasoning: string; from: ScoreSource }>[] = [];
  const add = (score: number, reasoning: string, from: ScoreSource, isQuoted: boolean) =>
    candidates.push({ value: score, key: String(score), label: String(score), quoted: isQuoted, found: { reasoning, from } });
  for (const { value: obj, raw } of topLevelObjects(text)) {
    const s = "score" in obj ? scoreValue(obj.score) : undefined;
    if (s !== undefined) add(s, reasonOf(obj), "object", quoted(raw, obj));
  }
  const line = /^\s*(?:\*\*)?(?:final\s+)?score(?:\*\*)?\s*[:=]\s*(?:\*\*)?\s*([-+]?(?:\d+(?:\.\d*)?|\.\d+))\s*(?:\*\*)?\s*\.?\s*$/gim;
  for (const m of text.matchAll(line)) add(Number(m[1]), text.slice(0, m.index).trim().slice(0, 500) || thinkingOf(reply), "line", quoted(m[0]));
  // A lone number on the last line, as NAT's prompts ask for: "…reasoning…\n0.8".
  const lines = text.split(/\r?\n/).map((l) => l.trim().replace(/^\*\*(.*)\*\*$/, "$1")).filter((l) => l !== "");
  const tail = lines.at(-1);
  if (tail !== undefined && NUMBER.test(tail)) add(Number(tail), lines.slice(0, -1).join("\n").slice(0, 500) || thinkingOf(reply), "tail", lines.length > 1 && quoted(tail));
  const agreed = agreedCandidate(candidates, "score");
  if (!agreed) throw new UnusableReplyError(`no score found in judge reply: ${JSON.stringify(text.slice(0, 200))}`);
  // The candidates agree: the reasoning is the JSON object's, else the prose before the score line, else before the lone number.
  const own = candidates.filter((c) => !c.quoted);
  const source = (["object", "line", "tail"] as const).map((from) => own.filter((c) => c.found.from === from).at(-1)).find((c) => c !== undefined)!;
  return { score: inRange(agreed.value), reasoning: source.found.reasoning };
}

/**
 * A reasoning model's thinking and the rest, as NAT splits them: everything before a lone
 * `</think>`, or inside the first `<think>…</think>`; none otherwise.
 */
export function splitThinking(reply: string): { thinking: string; content: string } {
  const open = reply.indexOf("<think>");
  const close = reply.indexOf("</think>");
  if (close >= 0 && open < 0) return { thinking: reply.slice(0, close).trim(), content: reply.slice(close + 8).trim() };
  if (open >= 0 && close > open) return { thinking: reply.slice(open + 7, close).trim(), content: reply.slice(close + 8).trim() };
  return { thinking: "", content: reply.trim() };
}

const thinkingOf = (reply: string) => splitThinking(reply).thinking.slice(0, 2000);

/**
 * NAT's reading of a QA or trajectory judge's reply: the first number after the thinking, which
 * must lie in [0, 1]; the reasoning is the thinking (empty without it).
 */
export function parseNatScore(reply: string): { score: number; reasoning: string } {
  const { thinking, content } = splitThinking(reply);
  if (!content) throw new UnusableReplyError(`No actual content found. Expected score. Full text: ${reply.slice(0, 300)}`);
  const m = /[0-9]+\.?[0-9]*/.exec(content);
  if (!m) throw new UnusableReplyError(`Could not extract score from output. Expected a number between 0.0 and 1.0. Got: ${content.slice(0, 200)}`);
  const score = Number(m[0]);
  if (!(score >= 0 && score <= 1)) throw new UnusableReplyError(`Score must be between 0.0 and 1.0, got: ${m[0]}`);
  return { score, reasoning: thinking };
}

/** NAT's reading of a report field judge's reply: the whole reply after the thinking is one number. */
export function parseNatFloat(reply: string): { score: number; reasoning: string } {
  const { thinking, content } = splitThinking(reply);
  const t = content.replace(/_/g, "");
  if (!/^[+-]?((\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?)$/.test(t)) throw new UnusableReplyError(`could not convert string to float: ${JSON.stringify(content.slice(0, 200))}`);
  return { score: inRange(Number(t)), reasoning: thinking };
}

/**
 * Reads a field-discovery reply: `{"<field>": {"score": x, "reference_field": "<name>" | null}}`,
 * optionally under `fields`. Every asked field must be answered, and a reference field must
 * be one of the candidates. Every object that maps an asked field is a candidate, and they
 * must agree (`agreedCandidate`); a quoted one that does not read as a mapping is no candidate.
 */
export function parseDiscoveryReply(reply: string, fields: readonly string[], candidates: readonly string[], data?: DataContext, anyReference = false): FieldMatch[] {
  const text = ownText(reply);
  const quoted = quotedFrom(data);
  const mappings: Candidate<FieldMatch[]>[] = [];
  for (const { value: obj, raw } of topLevelObjects(text)) {
    const inner = obj.fields;
    const map = inner && typeof inner === "object" && !Array.isArray(inner) ? (inner as Record<string, unknown>) : obj;
    if (!fields.some((f) => f in map)) continue;
    const isQuoted = quoted(raw, obj);
    let matches: FieldMatch[];
    try {
      matches = readMapping(map, fields, candidates, anyReference);
    } catch (err) {
      if (isQuoted) continue;
      throw err;
    }
    const mean = matches.reduce((sum, m) => sum + m.score, 0) / matches.length;
    mappings.push({ value: mean, key: JSON.stringify(matches.map((m) => [m.field, m.referenceField, m.score])), label: `mean score ${mean}`, quoted: isQuoted, found: matches });
  }
  const agreed = agreedCandidate(mappings, "field mapping");
  if (!agreed) throw new UnusableReplyError(`no field mapping found in judge reply: ${JSON.stringify(text.slice(0, 200))}`);
  return agreed.found;
}

function readMapping(found: Record<string, unknown>, fields: readonly string[], candidates: readonly string[], anyReference: boolean): FieldMatch[] {
  return fields.map((field) => {
    const entry = found[field];
    if (!entry || typeof entry !== "object" || Array.isArray(entry)) throw new UnusableReplyError(`the judge reply does not score the field ${JSON.stringify(field)}`);
    const e = entry as Record<string, unknown>;
    const s = scoreValue(e.score);
    if (s === undefined) throw new UnusableReplyError(`the judge reply gives no numeric score for ${JSON.stringify(field)}`);
    const ref = e.reference_field ?? e.referenceField ?? null;
    if (ref !== null && (typeof ref !== "string" || (!anyReference && !candidates.includes(ref)))) {
      throw new UnusableReplyError(`the judge mapped ${JSON.stringify(field)} to ${JSON.stringify(ref)}, which is not a reference field (expected one of ${candidates.map((c) => JSON.stringify(c)).join(", ") || "none"} or null)`);
    }
    return { field, referenceField: ref, score: inRange(s), reasoning: reasonOf(e) };
  });
}
