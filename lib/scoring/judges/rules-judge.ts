/**
 * The deterministic judge: offline, free, the default. Correctness compares values
 * (numbers at the reference's precision, list answers as sets, normalised text);
 * groundedness requires every number and named value in the answer to appear in the
 * evidence.
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
} from "../answer-values";
import type { Judge, JudgeDecision, JudgeRequest } from "./judge";

const decision = (pass: boolean, explanation: string): JudgeDecision => ({ pass, score: pass ? 1 : 0, explanation, promptHash: null, cacheHit: false });

export function createRulesJudge(): Judge {
  return {
    id: "rules",
    async decide(req) {
      return req.task === "correctness" ? judgeCorrectness(req) : judgeGroundedness(req);
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

export function judgeCorrectness(req: JudgeRequest): JudgeDecision {
  const text = req.answer.trim();
  if (text === "") return decision(false, "the answer is empty");
  if (isRefusal(text)) return decision(false, "the answer declines to answer");
  const ref = answerAtoms(req.referenceValue ?? req.reference ?? "");
  if (ref.length === 0) {
    const saysNone = /\b(no|none|nothing|zero|empty)\b|(?<![\d.])0(?![\d.])/i.test(text);
    return decision(saysNone, saysNone ? "the reference is empty and the answer says there is none" : "the reference is empty but the answer asserts a value");
  }
  if (Array.isArray(req.answerValue)) {
    // A structured answer is compared as a set of values.
    const pred = answerAtoms(req.answerValue);
    const missing = ref.filter((r) => !pred.some((p) => atomsEqual(p, r)));
    const extra = pred.filter((p) => !ref.some((r) => atomsEqual(p, r)));
    if (missing.length === 0 && extra.length === 0) return decision(true, `the answer's values equal the reference's: ${ref.join(", ")}`);
    return decision(false, [missing.length ? `missing ${missing.join(", ")}` : "", extra.length ? `unexpected ${extra.join(", ")}` : ""].filter(Boolean).join("; "));
  }
  const textNorm = normaliseText(text);
  const numbers = extractNumbers(text);
  const missing = ref.filter((r) => !atomInText(r, textNorm, numbers));
  if (missing.length === 0) return decision(true, `every reference value appears in the answer: ${ref.join(", ")}`);
  return decision(false, `the answer lacks ${missing.join(", ")} (reference: ${ref.join(", ")})`);
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

export function judgeGroundedness(req: JudgeRequest): JudgeDecision {
  const evidence = [req.question, ...(req.evidence ?? [])].join("\n");
  const evidenceNorm = normaliseText(evidence);
  // Counting the rows a tool returned is reading the evidence, so list sizes count as evidence.
  const evidenceNumbers = [...extractNumbers(evidence), ...listSizes(req.evidence ?? []).map((n) => ({ value: n, decimals: 0 }))];
  const structured = Array.isArray(req.answerValue);
  const numberClaims = structured ? [] : extractNumbers(req.answer);
  const valueClaims: Atom[] = structured ? answerAtoms(req.answerValue) : namedValues(req.answer);
  const total = numberClaims.length + valueClaims.length;
  if (total === 0) return decision(true, "the answer asserts no number or named value to check");
  const unsupported = [
    ...numberClaims.filter((n) => !evidenceNumbers.some((e) => numbersMatch(n, e))).map((n) => String(n.value)),
    ...valueClaims.filter((c) => !atomInText(c, evidenceNorm, evidenceNumbers)).map(String),
  ];
  if (unsupported.length === 0) return decision(true, `every value in the answer appears in the evidence (${total} checked)`);
  return decision(false, `not supported by the query or tool responses: ${unsupported.slice(0, 5).join(", ")}${unsupported.length > 5 ? ", …" : ""}`);
}
