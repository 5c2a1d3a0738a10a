/**
 * The deterministic field metrics of the report evaluator, each a number in [0, 1]:
 * `exact_match` (whitespace normalised; case and punctuation count), `f1` (lowercased word
 * tokens, counted as a bag), `regex` (the reference is a pattern the whole value must
 * match), `non_empty`. Values that are not text are compared as their JSON.
 */

/** A field value as text: strings as they are, absent and null as "", the rest as JSON. */
export function fieldText(v: unknown): string {
  if (v === undefined || v === null) return "";
  if (typeof v === "string") return v;
  if (typeof v === "number" || typeof v === "boolean") return String(v);
  return JSON.stringify(v);
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
 * Token F1 with tokens counted as a bag, so a repeated word must be repeated to count twice.
 * No tokens on either side is agreement (1); tokens on one side only is 0.
 */
export function tokenF1(actual: string, reference: string): number {
  const a = wordTokens(actual);
  const r = wordTokens(reference);
  if (a.length === 0 && r.length === 0) return 1;
  if (a.length === 0 || r.length === 0) return 0;
  const counts = new Map<string, number>();
  for (const t of r) counts.set(t, (counts.get(t) ?? 0) + 1);
  let common = 0;
  for (const t of a) {
    const n = counts.get(t) ?? 0;
    if (n > 0) {
      common++;
      counts.set(t, n - 1);
    }
  }
  if (common === 0) return 0;
  const precision = common / a.length;
  const recall = common / r.length;
  return (2 * precision * recall) / (precision + recall);
}

export type RegexOutcome = { ok: true; score: number } | { ok: false; error: string };

/**
 * Whether the whole value matches the pattern (Python's `re.fullmatch`). Python's named
 * groups (`(?P<name>…)`, `(?P=name)`) are translated; an invalid pattern is an error.
 */
export function regexFullMatch(actual: string, pattern: string): RegexOutcome {
  const js = pattern.replace(/\(\?P</g, "(?<").replace(/\(\?P=(\w+)\)/g, "\\k<$1>");
  let re: RegExp;
  try {
    re = new RegExp(`^(?:${js})$`, "u");
  } catch {
    try {
      re = new RegExp(`^(?:${js})$`);
    } catch (err) {
      return { ok: false, error: `invalid regular expression ${JSON.stringify(pattern)}: ${err instanceof Error ? err.message.replace(/^Invalid regular expression: /, "") : String(err)}` };
    }
  }
  return { ok: true, score: re.test(actual) ? 1 : 0 };
}

export function nonEmpty(actual: string): number {
  return actual.trim() === "" ? 0 : 1;
}
