/**
 * The deterministic grader: offline, free, the default. It reads the facts beside a prompt,
 * never the prompt.
 * - Correctness: values compared (numbers at the reference's precision, list answers as
 *   sets, normalised text); refusals and empty answers fail.
 * - Groundedness: every number and named value in the answer appears in the evidence.
 * - QA: the share of the reference's facts the answer states (numbers, named values, else
 *   content words); a yes/no opposite to the reference's scores 0.
 * - Report fields: 1 for the same normalised text, else the token F1 of the two values.
 * - Field discovery: an unlisted field maps to the reference field of the same normalised
 *   name, else to the one whose name shares most words (at least half).
 * It does not grade trajectories: there the deterministic comparison is the score.
 * Reasons never quote the reference; the compared values go to the private detail.
 */
import {
  answerAtoms,
  atomNumber,
  containsPhrase,
  extractNumbers,
  isRefusal,
  namedValues,
  normaliseText,
  numbersMatch,
  type Atom,
  type NumberToken,
} from "./answer-values";
import { fieldText, tokenF1, wordTokens } from "./report-metrics";
import { passFail, scored, unjudged, type FieldMatch, type Grade, type GradeRequest, type Grader } from "./grader";

export function createRulesGrader(): Grader {
  return {
    id: "rules",
    readsPrompts: false,
    async grade(req) {
      switch (req.kind) {
        case "correctness":
          return judgeCorrectness(req);
        case "groundedness":
          return judgeGroundedness(req);
        case "qa":
          return gradeAnswer(req.facts.answer, req.facts.reference);
        case "report_field":
          return gradeFieldValue(req.facts.answer, req.facts.reference);
        case "field_discovery":
          return discoverFields(req);
        case "trajectory":
          return unjudged("the rules judge does not grade trajectories; the deterministic comparison is their score");
      }
    },
  };
}

function atomInText(atom: Atom, textNorm: string, numbers: NumberToken[]): boolean {
  if (typeof atom === "boolean") return new RegExp(atom ? String.raw` (yes|true) ` : String.raw` (no|false) `).test(textNorm);
  const n = atomNumber(atom);
  if (n) return numbers.some((p) => numbersMatch(p, n));
  return containsPhrase(textNorm, String(atom));
}

function atomsEqual(a: Atom, b: Atom): boolean {
  const na = atomNumber(a);
  const nb = atomNumber(b);
  if (na && nb) return numbersMatch(na, nb);
  return normaliseText(String(a)) === normaliseText(String(b));
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

export function judgeCorrectness(req: Extract<GradeRequest, { kind: "correctness" }>): Grade {
  const text = req.answer.trim();
  if (text === "") return passFail(false, "the answer is empty");
  if (isRefusal(text)) return passFail(false, "the answer declines to answer");
  const ref = answerAtoms(req.referenceValue ?? req.reference);
  if (ref.length === 0) {
    const saysNone = /\b(no|none|nothing|zero|empty)\b|(?<![\d.])0(?![\d.])/i.test(text);
    return saysNone
      ? passFail(true, "the answer agrees with the reference", "the reference is empty and the answer says there is none")
      : passFail(false, "the answer does not agree with the reference", "the reference is empty but the answer asserts a value");
  }
  if (Array.isArray(req.answerValue)) {
    // A structured answer is compared as a set of values.
    const pred = answerAtoms(req.answerValue);
    const missing = ref.filter((r) => !pred.some((p) => atomsEqual(p, r)));
    const extra = pred.filter((p) => !ref.some((r) => atomsEqual(p, r)));
    if (missing.length === 0 && extra.length === 0) return passFail(true, `the answer's ${plural(ref.length, "value")} equal the reference's`, `reference values: ${ref.join(", ")}`);
    const parts = [missing.length ? `${missing.length} reference ${missing.length === 1 ? "value" : "values"} missing` : "", extra.length ? `unexpected ${extra.join(", ")}` : ""].filter(Boolean);
    return passFail(false, `the answer's values differ from the reference's: ${parts.join("; ")}`, missing.length ? `missing ${missing.join(", ")} (reference: ${ref.join(", ")})` : null);
  }
  const textNorm = normaliseText(text);
  const numbers = extractNumbers(text);
  const missing = ref.filter((r) => !atomInText(r, textNorm, numbers));
  if (missing.length === 0) return passFail(true, `every reference value appears in the answer (${ref.length} checked)`, `reference values: ${ref.join(", ")}`);
  return passFail(false, `the answer lacks ${missing.length} of ${plural(ref.length, "reference value")}`, `the answer lacks ${missing.join(", ")} (reference: ${ref.join(", ")})`);
}

/** Sizes of every list inside JSON evidence items. */
function listSizes(items: readonly string[]): number[] {
  const sizes = new Set<number>();
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) {
      sizes.add(v.length);
      v.forEach(walk);
    } else if (v && typeof v === "object") Object.values(v).forEach(walk);
  };
  for (const item of items) {
    const t = item.trimStart();
    if (t.startsWith("[") || t.startsWith("{")) {
      try {
        walk(JSON.parse(t));
      } catch {
        // not JSON: its numbers are already read as text
      }
    }
  }
  return [...sizes];
}

/** Groundedness reads only the agent's own evidence, so its reasons are public. */
export function judgeGroundedness(req: Extract<GradeRequest, { kind: "groundedness" }>): Grade {
  const evidence = [req.question, ...req.evidence].join("\n");
  const evidenceNorm = normaliseText(evidence);
  // Counting the rows a tool returned is reading the evidence, so list sizes count as evidence.
  const evidenceNumbers = [...extractNumbers(evidence), ...listSizes(req.evidence).map((n) => ({ value: n, decimals: 0 }))];
  const structured = Array.isArray(req.answerValue);
  const numberClaims = structured ? [] : extractNumbers(req.answer);
  const valueClaims: Atom[] = structured ? answerAtoms(req.answerValue) : namedValues(req.answer);
  const total = numberClaims.length + valueClaims.length;
  if (total === 0) return passFail(true, "the answer asserts no number or named value to check");
  const unsupported = [
    ...numberClaims.filter((n) => !evidenceNumbers.some((e) => numbersMatch(n, e))).map((n) => String(n.value)),
    ...valueClaims.filter((c) => !atomInText(c, evidenceNorm, evidenceNumbers)).map(String),
  ];
  if (unsupported.length === 0) return passFail(true, `every value in the answer appears in the evidence (${total} checked)`);
  return passFail(false, `not supported by the query or tool responses: ${unsupported.slice(0, 5).join(", ")}${unsupported.length > 5 ? ", …" : ""}`);
}

/** Function words carry no fact; "yes", "no" and "not" do, so they stay. */
const STOPWORDS = new Set(
  "a an the of to in on at by for from with and or but is are was were be been being it its this that these those there their they them he she his her we our you your i as into than then so do does did has have had".split(" "),
);

/** The share of the reference's facts the answer states. */
export function gradeAnswer(answer: string, reference: string): Grade {
  const text = answer.trim();
  if (text === "") return scored(0, "the answer is empty");
  if (isRefusal(text)) return scored(0, "the answer declines to answer");
  const ref = reference.trim();
  if (ref === "") return scored(0, "the reference is empty; nothing to compare with");
  const refYesNo = leadingYesNo(ref);
  const answerYesNo = leadingYesNo(text);
  if (refYesNo && answerYesNo && refYesNo !== answerYesNo) return scored(0, `the answer's "${answerYesNo}" disagrees with the reference`, `the answer says "${answerYesNo}" where the reference says "${refYesNo}"`);
  const refNumbers = extractNumbers(ref);
  const refNames = namedValues(ref).filter((n) => extractNumbers(n).length === 0);
  const answerNorm = normaliseText(text);
  const answerNumbers = extractNumbers(text);
  const facts: { label: string; found: boolean }[] = [
    ...refNumbers.map((n) => ({ label: numberLabel(n), found: answerNumbers.some((p) => numbersMatch(p, n)) })),
    ...refNames.map((n) => ({ label: n, found: containsPhrase(answerNorm, n) })),
  ];
  if (facts.length === 0) {
    const answerWords = new Set(wordTokens(text));
    const words = [...new Set(wordTokens(ref).filter((w) => !STOPWORDS.has(w)))];
    facts.push(...words.map((w) => ({ label: w, found: answerWords.has(w) })));
  }
  if (facts.length === 0) return scored(0, "the reference states nothing this judge can check");
  const found = facts.filter((f) => f.found).length;
  const missing = facts.filter((f) => !f.found).map((f) => f.label);
  const reason = missing.length === 0 ? `every reference fact appears in the answer (${facts.length} checked)` : `${found} of ${facts.length} reference facts appear in the answer`;
  const detail =
    missing.length === 0
      ? `reference facts: ${facts.map((f) => f.label).join(", ")}`
      : `missing: ${missing.slice(0, 8).join(", ")}${missing.length > 8 ? ", …" : ""}`;
  return scored(found / facts.length, reason, detail);
}

/** "yes" or "no" when the text opens with one. */
function leadingYesNo(text: string): "yes" | "no" | undefined {
  const m = /^\W*(yes|no)\b/i.exec(text);
  return m ? (m[1]!.toLowerCase() as "yes" | "no") : undefined;
}

function numberLabel(n: NumberToken): string {
  return n.decimals > 0 ? n.value.toFixed(n.decimals) : String(n.value);
}

/** 1 for the same normalised text, else the token F1 of the two values. */
export function gradeFieldValue(actual: string, reference: string): Grade {
  if (normaliseText(actual) === normaliseText(reference)) return scored(1, "the same text once case and punctuation are set aside");
  const f1 = tokenF1(actual, reference);
  return scored(f1, `token overlap F1 ${f1.toFixed(2)}`);
}

export function discoverFields(req: Extract<GradeRequest, { kind: "field_discovery" }>): Grade {
  const matches = matchFieldNames(Object.keys(req.actual), Object.keys(req.candidates)).map(({ field, referenceField }): FieldMatch => {
    if (referenceField === null) return { field, referenceField, score: 0, reasoning: "no reference field of a similar name" };
    const g = gradeFieldValue(fieldText(req.actual[field]), fieldText(req.candidates[referenceField]));
    return { field, referenceField, score: g.score ?? 0, reasoning: `matched by name to "${referenceField}"; ${g.reason}` };
  });
  const mean = matches.length ? matches.reduce((s, m) => s + m.score, 0) / matches.length : 0;
  return { ...scored(mean, `${matches.length} unlisted field(s) matched by name`), matches };
}

const nameKey = (s: string) => s.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, "");
/** Words of a field name: `weather_today`, `Weather Today` and `weatherToday`'s parts alike. */
const nameWords = (s: string) => new Set(s.replace(/(\p{Ll})(\p{Lu})/gu, "$1 $2").toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []);

/** Maps each field to the reference field of the same or most similar name, each used once. */
export function matchFieldNames(fields: string[], candidates: string[]): { field: string; referenceField: string | null }[] {
  const used = new Set<string>();
  const out = new Map<string, string | null>();
  for (const f of fields) {
    const exact = candidates.find((c) => !used.has(c) && nameKey(c) === nameKey(f));
    if (exact !== undefined) {
      used.add(exact);
      out.set(f, exact);
    }
  }
  for (const f of fields) {
    if (out.has(f)) continue;
    const fw = nameWords(f);
    let best: string | null = null;
    let bestScore = 0;
    for (const c of candidates) {
      if (used.has(c)) continue;
      const cw = nameWords(c);
      const inter = [...fw].filter((w) => cw.has(w)).length;
      const union = new Set([...fw, ...cw]).size;
      const j = union === 0 ? 0 : inter / union;
      if (j > bestScore) {
        bestScore = j;
        best = c;
      }
    }
    if (best !== null && bestScore >= 0.5) {
      used.add(best);
      out.set(f, best);
    } else out.set(f, null);
  }
  return fields.map((field) => ({ field, referenceField: out.get(field) ?? null }));
}
