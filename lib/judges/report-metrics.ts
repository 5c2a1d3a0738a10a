/**
 * The deterministic field metrics of the report evaluator, each a number in [0, 1]:
 * `exact_match` (whitespace normalised; case and punctuation count), `f1` (lowercased word
 * tokens, as sets), `regex` (the reference is a pattern the whole value must match),
 * `non_empty`. Values that are not text are compared as Python's `str()` of them, as NAT does.
 */
import { pythonStr } from "../formats/python-str";
import { compilePythonPattern } from "../formats/python-regex";

/** A field value as NAT compares it: absent and null as "", anything else Python's `str()` (3.0 is "3.0", true is "True"). */
export function fieldText(v: unknown): string {
  if (v === undefined || v === null) return "";
  return pythonStr(v);
}

export function normaliseWhitespace(s: string): string {
  return s.trim().replace(/\s+/g, " ");
}

export function exactMatch(actual: string, reference: string): number {
  return normaliseWhitespace(actual) === normaliseWhitespace(reference) ? 1 : 0;
}

/** Lower-cased runs of letters, digits and underscores; punctuation separates tokens. */
export function wordTokens(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? [];
}

/**
 * Token F1 over the sets of tokens (as NAT's report evaluator counts them: a repeated word
 * counts once). No tokens on either side is agreement (1); tokens on one side only is 0.
 */
export function tokenF1(actual: string, reference: string): number {
  const a = new Set(wordTokens(actual));
  const r = new Set(wordTokens(reference));
  if (a.size === 0 && r.size === 0) return 1;
  if (a.size === 0 || r.size === 0) return 0;
  let common = 0;
  for (const t of a) if (r.has(t)) common++;
  if (common === 0) return 0;
  const precision = common / a.size;
  const recall = common / r.size;
  return (2 * precision * recall) / (precision + recall);
}

export type RegexOutcome = { ok: true; score: number } | { ok: false; error: string };

/**
 * Whether the whole value matches the pattern (Python's `re.fullmatch`, see python-regex.ts);
 * a pattern JavaScript cannot run is `ok: false` with why (NAT scores such a field 0).
 */
export function regexFullMatch(actual: string, pattern: string): RegexOutcome {
  const c = compilePythonPattern(pattern, (source) => `^(?:${source})$`);
  if (!c.ok) return { ok: false, error: `invalid regular expression ${JSON.stringify(pattern)}: ${c.error}` };
  return { ok: true, score: c.re.test(actual) ? 1 : 0 };
}

export function nonEmpty(actual: string): number {
  return actual.trim() === "" ? 0 : 1;
}
