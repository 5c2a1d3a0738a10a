/**
 * The offline graded judge: deterministic, free, no prompts read.
 * - QA: the share of the reference's facts the answer states. Facts are its numbers (equal
 *   at the reference's precision) and named values; a reference with neither contributes
 *   its content words. Empty answers, refusals and a yes/no opposite to the reference's
 *   score 0.
 * - Report fields: 1 for the same normalised text, else the token F1 of the two values.
 * - Field discovery: an unlisted report field maps to the reference field of the same
 *   normalised name, else to the one whose name shares most words (at least half).
 * It does not grade trajectories: there the deterministic comparison is the score.
 */
import { containsPhrase, extractNumbers, isRefusal, namedValues, normaliseText, numbersMatch, type NumberToken } from "../answer-values";
import { tokenF1, fieldText, wordTokens } from "../evaluators/report-metrics";
import type { FieldMatch, Grade, ScoreJudge } from "./score-judge";

const grade = (score: number, reasoning: string): Grade => ({ score, reasoning, promptHash: null, cacheHit: false });

/** Function words carry no fact; "yes", "no" and "not" do, so they stay. */
const STOPWORDS = new Set(
  "a an the of to in on at by for from with and or but is are was were be been being it its this that these those there their they them he she his her we our you your i as into than then so do does did has have had".split(" "),
);

export function createRulesScoreJudge(): ScoreJudge {
  return {
    id: "rules",
    readsPrompts: false,
    async grade(req) {
      if (req.purpose === "qa") return gradeAnswer(req.facts.answer, req.facts.reference);
      if (req.purpose === "report_field") return gradeFieldValue(req.facts.answer, req.facts.reference);
      throw new Error("the rules judge does not grade trajectories; the deterministic comparison is their score");
    },
    async discoverFields(req) {
      const matches = matchFieldNames(Object.keys(req.actual), Object.keys(req.candidates)).map(({ field, referenceField }): FieldMatch => {
        if (referenceField === null) return { field, referenceField, score: 0, reasoning: "no reference field of a similar name" };
        const g = gradeFieldValue(fieldText(req.actual[field]), fieldText(req.candidates[referenceField]));
        return { field, referenceField, score: g.score, reasoning: `matched by name to "${referenceField}"; ${g.reasoning}` };
      });
      return { matches, promptHash: null, cacheHit: false };
    },
  };
}

/** The share of the reference's facts the answer states. */
export function gradeAnswer(answer: string, reference: string): Grade {
  const text = answer.trim();
  if (text === "") return grade(0, "the answer is empty");
  if (isRefusal(text)) return grade(0, "the answer declines to answer");
  const ref = reference.trim();
  if (ref === "") return grade(0, "the reference is empty; nothing to compare with");
  const refYesNo = leadingYesNo(ref);
  const answerYesNo = leadingYesNo(text);
  if (refYesNo && answerYesNo && refYesNo !== answerYesNo) return grade(0, `the answer says "${answerYesNo}" where the reference says "${refYesNo}"`);
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
  if (facts.length === 0) return grade(0, "the reference states nothing this judge can check");
  const found = facts.filter((f) => f.found).length;
  const missing = facts.filter((f) => !f.found).map((f) => f.label);
  const score = found / facts.length;
  const reasoning =
    missing.length === 0
      ? `every reference fact appears in the answer (${facts.map((f) => f.label).join(", ")})`
      : `${found} of ${facts.length} reference facts appear in the answer; missing: ${missing.slice(0, 8).join(", ")}${missing.length > 8 ? ", …" : ""}`;
  return grade(score, reasoning);
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
  if (normaliseText(actual) === normaliseText(reference)) return grade(1, "the same text once case and punctuation are set aside");
  const f1 = tokenF1(actual, reference);
  return grade(f1, `token overlap F1 ${f1.toFixed(2)}`);
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
