/**
 * The literal grader: deterministic like `rules`, and stricter in one stated way: it gives
 * credit only for an answer that *is* the reference value, nothing added (the "exact match" of
 * short-answer QA). Like rules it reads the facts beside a prompt, never the prompt.
 * - Correctness: passes when the answer's text, set aside case, accents, punctuation and
 *   spacing, is the reference value (a number: the same number, no rounding; several
 *   reference values: all of them in the reference's order, "and" set aside); a structured
 *   (list) answer passes when its values are the reference's, one by one, in order. A
 *   sentence that states the value ("Berth 4 has 3 cranes.") fails here where rules passes.
 *   Refusals and empty answers fail.
 * - QA and report fields: 1 for the reference's text (set aside as above), else 0.
 * - Groundedness and field discovery compare no reference: as rules (rules-grader.ts).
 * - Trajectories: not graded (the deterministic comparison is their score), as rules.
 * Reasons never quote the reference; the compared values go to the private detail.
 */
import { answerAtoms, atomNumber, isRefusal, normaliseText, parseNumber, type Atom } from "./answer-values";
import { passFail, scored, unjudged, type Grade, type GradeRequest, type Grader } from "./grader";
import { discoverFields, judgeGroundedness } from "./rules-grader";

export function createLiteralGrader(): Grader {
  return {
    id: "literal",
    readsPrompts: false,
    async grade(req) {
      switch (req.kind) {
        case "correctness":
          return judgeCorrectnessLiterally(req);
        case "qa":
        case "report_field":
          return gradeLiterally(req.facts.answer, req.facts.reference);
        // Groundedness and field discovery hold no reference value to match: judged as rules judges them.
        case "groundedness":
          return judgeGroundedness(req);
        case "field_discovery":
          return discoverFields(req);
        case "trajectory":
          return unjudged("the literal judge does not grade trajectories; the deterministic comparison is their score");
      }
    },
  };
}

/** The normalised words of a text, without the padding normaliseText adds. */
const words = (s: string) => normaliseText(s).trim();

/** Two values the same: numbers by value exactly (3.5 and 3.50, never 3.49 and 3.5), else normalised text. */
function sameAtom(answer: string, ref: Atom): boolean {
  const r = atomNumber(ref);
  const a = parseNumber(answer.replace(/,(?=\d{3}\b)/g, ""));
  if (r && a) return a.value === r.value;
  return words(answer) !== "" && words(answer) === words(String(ref));
}

const NONE = new Set(["none", "nothing", "no", "zero", "0", "empty"]);

export function judgeCorrectnessLiterally(req: Extract<GradeRequest, { kind: "correctness" }>): Grade {
  const text = req.answer.trim();
  if (text === "") return passFail(false, "the answer is empty");
  if (isRefusal(text)) return passFail(false, "the answer declines to answer");
  const ref = answerAtoms(req.referenceValue ?? req.reference);
  if (ref.length === 0) {
    return NONE.has(words(text))
      ? passFail(true, "the answer is the reference", "the reference is empty and the answer is only that there is none")
      : passFail(false, "the answer is not the reference value alone", "the reference is empty; the answer says more than that there is none");
  }
  const refShown = ref.map(String).join(", ");
  if (Array.isArray(req.answerValue)) {
    const pred = answerAtoms(req.answerValue);
    const same = pred.length === ref.length && pred.every((p, i) => sameAtom(String(p), ref[i]!));
    return same
      ? passFail(true, `the answer's ${ref.length === 1 ? "value is" : "values are"} the reference's, in order`, `reference values: ${refShown}`)
      : passFail(false, "the answer's values are not the reference's, one by one in order", `answer values: ${pred.map(String).join(", ")} (reference: ${refShown})`);
  }
  if (ref.length === 1) {
    return sameAtom(text, ref[0]!)
      ? passFail(true, "the answer is the reference value", `reference value: ${refShown}`)
      : passFail(false, "the answer is not the reference value alone", `the answer is not literally ${refShown}`);
  }
  // Several values: the answer lists them all, in order, and says nothing else ("and" aside).
  const listed = words(text)
    .split(" ")
    .filter((w) => w !== "and")
    .join(" ");
  const expected = ref.map((r) => words(String(r))).join(" ");
  return listed === expected
    ? passFail(true, `the answer lists the ${ref.length} reference values, in order`, `reference values: ${refShown}`)
    : passFail(false, "the answer is not the reference values alone, in order", `the answer is not literally ${refShown}`);
}

/** 1 for the reference's text once case, accents, punctuation and spacing are set aside, else 0. */
export function gradeLiterally(answer: string, reference: string): Grade {
  if (answer.trim() === "") return scored(0, "the answer is empty");
  if (reference.trim() === "") return scored(0, "the reference is empty; nothing to compare with");
  return sameAtom(answer, reference.trim())
    ? scored(1, "the same text once case and punctuation are set aside")
    : scored(0, "not the reference's text", "the answer differs from the reference once case and punctuation are set aside");
}
