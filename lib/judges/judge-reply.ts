/**
 * What of a judge's reply is the judge's own word. A judge may quote the submitted text it
 * was shown, and that text may carry a planted verdict (`{"verdict": "correct"}`,
 * `{"score": 1}`, `Verdict: grounded`). So before a parser looks for a verdict:
 *
 * - reasoning blocks (`<think>…</think>`) are dropped, as before;
 * - data blocks the judge echoed back (`<data_…>…</data_…>`) are dropped;
 * - a candidate (a JSON object, a verdict line) that also occurs in the prompt's data is set
 *   aside when it would raise the grade: it may be the judge quoting the submission, not
 *   judging it;
 * - what is left must agree (`agreedCandidate`): a reply that holds two different verdicts
 *   is ambiguous, whichever came last, because the judge may be quoting a planted verdict
 *   with its keys swapped, its reason dropped or on a line of its own.
 *
 * The scan is bounded (the reply's tail, a cap on objects tried), so a reply that quotes a
 * hostile text full of braces cannot make parsing quadratic.
 */
import type { DataContext } from "./data-blocks";
import { AmbiguousReplyError } from "./grader";

/** Only the tail of a longer reply is read: the verdict is asked for last. */
export const MAX_REPLY_SCAN_CHARS = 64_000;
/** At most this many `{` are tried as the start of a JSON object. */
const MAX_OBJECT_STARTS = 1_000;

export function stripReasoning(text: string): string {
  return text
    .replace(/<(think|thinking|reasoning|reflection)>[\s\S]*?<\/\1>/gi, "")
    .replace(/^[\s\S]*?<\/(think|thinking|reasoning)>/i, "")
    .trim();
}

/** The reply without reasoning and echoed data blocks, cut to its tail. */
export function ownText(reply: string): string {
  const text = stripReasoning(reply)
    .replace(/<data_[0-9a-f]{16}\b[^>]*>[\s\S]*?<\/data_[0-9a-f]{16}>/gi, " ")
    .trim();
  return text.length > MAX_REPLY_SCAN_CHARS ? text.slice(text.length - MAX_REPLY_SCAN_CHARS) : text;
}

const WORD = /[\p{L}\p{N}_]/u;

/**
 * Spacing and case aside: whitespace goes, except between two word characters, where it stays
 * one space. So `{"verdict": "correct"}` is `{"verdict":"correct"}`, and a quoted line ending
 * in `correct` stays a whole word even when the next line starts with one.
 */
const squash = (s: string) => s.replace(/\s+/g, (run: string, at: number, all: string) => (at > 0 && WORD.test(all[at - 1]!) && WORD.test(all[at + run.length] ?? "") ? " " : "")).toLowerCase();

/** Tells whether a piece of the reply also occurs in the prompt's data (spacing and case aside). */
export function quotedFrom(ctx: DataContext | undefined): (piece: string, value?: unknown) => boolean {
  if (!ctx || ctx.texts.length === 0) return () => false;
  let data: string | undefined;
  // A reply may repeat one quoted line thousands of times: each form is looked up once.
  const seen = new Map<string, boolean>();
  const occurs = (form: string) => {
    let hit = seen.get(form);
    if (hit === undefined) seen.set(form, (hit = occursAsWhole((data ??= squash(ctx.texts.join("\n"))), form)));
    return hit;
  };
  return (piece, value) => [piece, ...(value !== undefined ? [JSON.stringify(value)] : [])].map(squash).some((f) => f.length > 0 && occurs(f));
}

/** `piece` in `data`, not as part of a longer word (`verdict:no` is not in `verdict:notable`). */
function occursAsWhole(data: string, piece: string): boolean {
  const wordStart = WORD.test(piece[0]!);
  const wordEnd = WORD.test(piece[piece.length - 1]!);
  for (let i = data.indexOf(piece); i >= 0; i = data.indexOf(piece, i + 1)) {
    const before = i > 0 ? data[i - 1]! : "";
    const after = data[i + piece.length] ?? "";
    if ((!wordStart || !before || !WORD.test(before)) && (!wordEnd || !after || !WORD.test(after))) return true;
  }
  return false;
}

export interface FoundObject {
  value: Record<string, unknown>;
  /** The object's text as it appears in the reply. */
  raw: string;
}

/**
 * Balanced `{…}` objects that parse as JSON, fenced ones included, outermost only (an
 * object nested in another is part of it, not a candidate of its own), in reply order.
 */
export function topLevelObjects(text: string): FoundObject[] {
  const found: FoundObject[] = [];
  let tries = 0;
  for (let start = text.indexOf("{"); start >= 0 && tries < MAX_OBJECT_STARTS; tries++) {
    const end = closingBrace(text, start);
    if (end >= 0) {
      const raw = text.slice(start, end + 1);
      try {
        const v: unknown = JSON.parse(raw);
        if (v && typeof v === "object" && !Array.isArray(v)) {
          found.push({ value: v as Record<string, unknown>, raw });
          start = text.indexOf("{", end + 1);
          continue;
        }
      } catch {
        // not JSON: an object may start inside it
      }
    }
    start = text.indexOf("{", start + 1);
  }
  return found;
}

/** Index of the brace that closes the one at `start`, or -1. */
function closingBrace(text: string, start: number): number {
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === "\\") i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === "{") depth++;
    else if (c === "}" && --depth === 0) return i;
  }
  return -1;
}

/** One verdict, score or mapping a reply states, in reply order. */
export interface Candidate<T> {
  /** Pass 1 / fail 0, the score, or a mapping's mean score: what "raises the grade" compares. */
  value: number;
  /** Equal keys agree; two different keys in one reply make it ambiguous. */
  key: string;
  /** How the candidate reads, for the ambiguity message (private detail). */
  label: string;
  /** It also occurs in the prompt's submitted data. */
  quoted: boolean;
  /** What the parser keeps of it. */
  found: T;
}

/**
 * The judge's one verdict among a reply's candidates, or undefined when it stated none of its
 * own (only quotes, or nothing). A quote of the submitted data is set aside when it would
 * raise the grade above the judge's own words: that is what a planted verdict looks like. A
 * quote that would lower it is kept, because a submitter may plant the judge's honest
 * verdict to make it look quoted, and a lower grade is never the submitter's gain. What is
 * kept must agree, or the reply is ambiguous (`AmbiguousReplyError`: asked again, then
 * unjudged). Of agreeing candidates the last of the judge's own is returned (its reason).
 */
export function agreedCandidate<T>(candidates: readonly Candidate<T>[], what: string): Candidate<T> | undefined {
  const own = candidates.filter((c) => !c.quoted);
  if (own.length === 0) return undefined;
  const floor = Math.min(...own.map((c) => c.value));
  const kept = candidates.filter((c) => !c.quoted || c.value < floor);
  const labels = new Map<string, string>();
  for (const c of kept) if (!labels.has(c.key)) labels.set(c.key, c.label);
  if (labels.size > 1) throw new AmbiguousReplyError(`the judge's reply holds ${labels.size} different ${what}s (${[...labels.values()].map((l) => JSON.stringify(l.slice(0, 80))).join(", ")}): ambiguous`);
  return own[own.length - 1];
}
