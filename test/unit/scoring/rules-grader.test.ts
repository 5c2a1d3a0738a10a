import { describe, expect, it } from "vitest";
import type { AnswerValue } from "@/lib/formats/dialogue";
import type { GradeRequest } from "@/lib/judges/grader";
import { createRulesGrader, judgeCorrectness, judgeGroundedness } from "@/lib/judges/rules-grader";

type CorrectnessRequest = Extract<GradeRequest, { kind: "correctness" }>;
type GroundednessRequest = Extract<GradeRequest, { kind: "groundedness" }>;

const correctness = (answer: string, reference: AnswerValue, answerValue: AnswerValue = answer): CorrectnessRequest => ({
  kind: "correctness",
  question: "What is the answer?",
  answer,
  answerValue,
  reference: typeof reference === "string" ? reference : JSON.stringify(reference),
  referenceValue: reference,
});

const groundedness = (answer: string, evidence: string[], question = "Which cider is the strongest?", answerValue: AnswerValue = answer): GroundednessRequest => ({
  kind: "groundedness",
  question,
  answer,
  answerValue,
  evidence,
});

const CIDERS = '[{"name": "Pommeau Noir", "abv": 18.5}, {"name": "Clos des Pommiers", "abv": 12}]';

describe("rules grader: correctness of numbers", () => {
  it.each([
    ["41.26", true],
    ["41.3", false],
    ["41.25870", true],
    ["41.2587", true],
    ["41.259", true],
    ["41.2588", false],
    ["41.25", false],
    ["41", false],
    ["The mean is 41.26 kg.", true],
  ])("reference 41.2587, answer %j -> pass %s", (answer, pass) => {
    const d = judgeCorrectness(correctness(answer, "41.2587"));
    expect(d.outcome).toBe(pass ? "pass" : "fail");
    expect(d.score).toBe(pass ? 1 : 0);
    if (!pass) {
      expect(d.reason).toBe("the answer lacks 1 of 1 reference value");
      expect(d.detail).toBe("the answer lacks 41.2587 (reference: 41.2587)");
    } else {
      expect(d.reason).toBe("every reference value appears in the answer (1 checked)");
      expect(d.detail).toBe("reference values: 41.2587");
    }
    expect(d.reason).not.toContain("41.2587");
  });

  it("reads thousands separators on either side", () => {
    expect(judgeCorrectness(correctness("1,234,567", "1234567")).outcome).toBe("pass");
    expect(judgeCorrectness(correctness("There were 1234567 visits.", "1,234,567")).outcome).toBe("pass");
    expect(judgeCorrectness(correctness("The total is 1,234.50", "1234.5")).outcome).toBe("pass");
    expect(judgeCorrectness(correctness("1,234,568", "1234567")).outcome).toBe("fail");
  });

  it("compares a numeric reference value at its precision", () => {
    expect(judgeCorrectness(correctness("about 0.33", 0.3333)).outcome).toBe("pass");
    expect(judgeCorrectness(correctness("0.3", 0.3333)).outcome).toBe("fail");
    expect(judgeCorrectness(correctness("-12", -12)).outcome).toBe("pass");
    expect(judgeCorrectness(correctness("12", -12)).outcome).toBe("fail");
  });
});

describe("rules grader: correctness of text and lists", () => {
  it("matches text case- and accent-insensitively, as whole words", () => {
    expect(judgeCorrectness(correctness("It is the CRÈME brûlée.", "Creme Brulee")).outcome).toBe("pass");
    const d = judgeCorrectness(correctness("Noirette", "Noir"));
    expect(d.outcome).toBe("fail");
    expect(d.reason).not.toContain("Noir");
    expect(d.detail).toContain("lacks Noir");
  });

  it("compares structured list answers as sets, ignoring order", () => {
    const d = judgeCorrectness(correctness("Clos des Pommiers, Pommeau Noir", ["Pommeau Noir", "Clos des Pommiers"], ["Clos des Pommiers", "Pommeau Noir"]));
    expect(d.outcome).toBe("pass");
    expect(d.reason).toBe("the answer's 2 values equal the reference's");
    expect(d.detail).toBe("reference values: Pommeau Noir, Clos des Pommiers");
  });

  it("fails a structured list answer with an extra item", () => {
    const d = judgeCorrectness(correctness("x", ["Pommeau Noir", "Clos des Pommiers"], ["Clos des Pommiers", "Cidre Rouge", "Pommeau Noir"]));
    expect(d.outcome).toBe("fail");
    // The unexpected value is the agent's own, so the public reason may name it.
    expect(d.reason).toBe("the answer's values differ from the reference's: unexpected Cidre Rouge");
    expect(d.detail).toBeNull();
  });

  it("fails a structured list answer with a missing item", () => {
    const d = judgeCorrectness(correctness("x", ["Pommeau Noir", "Clos des Pommiers"], ["pommeau noir"]));
    expect(d.outcome).toBe("fail");
    expect(d.reason).toBe("the answer's values differ from the reference's: 1 reference value missing");
    expect(d.reason).not.toContain("Clos des Pommiers");
    expect(d.detail).toBe("missing Clos des Pommiers (reference: Pommeau Noir, Clos des Pommiers)");
  });

  it("reports missing and unexpected items together", () => {
    const d = judgeCorrectness(correctness("x", ["alpha", "beta"], ["beta", "gamma"]));
    expect(d.reason).toBe("the answer's values differ from the reference's: 1 reference value missing; unexpected gamma");
    expect(d.reason).not.toContain("alpha");
    expect(d.detail).toBe("missing alpha (reference: alpha, beta)");
  });

  it("compares result rows by their first column and numbers at precision", () => {
    expect(judgeCorrectness(correctness("x", [["Blue Heron", 6], ["Red Kite", 4]], [["red kite"], ["Blue Heron"]])).outcome).toBe("pass");
    expect(judgeCorrectness(correctness("x", [41.2587, 7], ["7", 41.26])).outcome).toBe("pass");
    expect(judgeCorrectness(correctness("x", [41.2587, 7], ["7", 41.3])).outcome).toBe("fail");
  });

  it("requires every reference item in a text answer", () => {
    expect(judgeCorrectness(correctness("Pommeau Noir and Clos des Pommiers.", ["Pommeau Noir", "Clos des Pommiers"])).outcome).toBe("pass");
    const d = judgeCorrectness(correctness("Only Pommeau Noir.", ["Pommeau Noir", "Clos des Pommiers"]));
    expect(d.outcome).toBe("fail");
    expect(d.reason).toBe("the answer lacks 1 of 2 reference values");
    expect(d.reason).not.toContain("Clos des Pommiers");
    expect(d.detail).toBe("the answer lacks Clos des Pommiers (reference: Pommeau Noir, Clos des Pommiers)");
  });

  it("reads yes/no answers against a boolean reference", () => {
    expect(judgeCorrectness(correctness("Yes, it is.", true)).outcome).toBe("pass");
    expect(judgeCorrectness(correctness("No.", true)).outcome).toBe("fail");
    expect(judgeCorrectness(correctness("No, it is not.", false)).outcome).toBe("pass");
  });
});

describe("rules grader: answers that cannot be correct", () => {
  it.each([
    "I don't know.",
    "I cannot determine that from the data.",
    "No data is available for 2019.",
    "The value could not be determined; perhaps 41.26.",
    "There is insufficient information to answer.",
  ])("fails the refusal %j", (answer) => {
    const d = judgeCorrectness(correctness(answer, "41.2587"));
    expect(d).toMatchObject({ outcome: "fail", score: 0, reason: "the answer declines to answer" });
  });

  it.each(["", "   \n\t"])("fails the empty answer %j", (answer) => {
    expect(judgeCorrectness(correctness(answer, "41.2587"))).toMatchObject({ outcome: "fail", score: 0, reason: "the answer is empty" });
  });

  it("passes 'none' against an empty reference and fails an asserted value", () => {
    expect(judgeCorrectness(correctness("There are none.", []))).toMatchObject({
      outcome: "pass",
      reason: "the answer agrees with the reference",
      detail: "the reference is empty and the answer says there is none",
    });
    expect(judgeCorrectness(correctness("Pommeau Noir", ""))).toMatchObject({
      outcome: "fail",
      reason: "the answer does not agree with the reference",
      detail: "the reference is empty but the answer asserts a value",
    });
  });

  // Regression (fixed in 8554baf, the `saysNone` regex, now in rules-grader.ts): `\b0\b` matched the
  // "0" after a decimal point, so an answer asserting 2.0 "said there is none".
  it("fails an answer of 2.0 against an empty reference", () => {
    expect(judgeCorrectness(correctness("The value is 2.0", [])).outcome).toBe("fail");
    expect(judgeCorrectness(correctness("It is 0.5", [])).outcome).toBe("fail");
    expect(judgeCorrectness(correctness("10 rows", [])).outcome).toBe("fail");
  });

  it("still reads a bare 0 as 'none' against an empty reference", () => {
    expect(judgeCorrectness(correctness("There are 0 matching rows.", [])).outcome).toBe("pass");
    expect(judgeCorrectness(correctness("0", [])).outcome).toBe("pass");
  });
});

describe("rules grader: groundedness", () => {
  it("grounds a named value only when the evidence contains it", () => {
    const yes = judgeGroundedness(groundedness("The strongest is Pommeau Noir.", [CIDERS]));
    expect(yes).toMatchObject({ outcome: "pass", score: 1, reason: "every value in the answer appears in the evidence (1 checked)" });
    const no = judgeGroundedness(groundedness("The strongest is Pommeau Noir.", ['[{"name": "Clos des Pommiers", "abv": 12}]']));
    expect(no).toMatchObject({ outcome: "fail", score: 0, reason: "not supported by the query or tool responses: Pommeau Noir" });
  });

  it("counts numbers in the query as evidence", () => {
    expect(judgeGroundedness(groundedness("There are 12 ciders.", [], "Of the 12 ciders in the cellar, how many are there?")).outcome).toBe("pass");
    const d = judgeGroundedness(groundedness("There are 12 ciders.", [], "How many ciders are in the cellar?"));
    expect(d.outcome).toBe("fail");
    expect(d.reason).toBe("not supported by the query or tool responses: 12");
  });

  it("checks numbers at the evidence's precision", () => {
    expect(judgeGroundedness(groundedness("Pommeau Noir has 18.5% abv.", [CIDERS])).outcome).toBe("pass");
    const d = judgeGroundedness(groundedness("Pommeau Noir has 19% abv.", [CIDERS]));
    expect(d.outcome).toBe("fail");
    expect(d.reason).toContain("19");
    expect(judgeGroundedness(groundedness("1,234,567 visitors", ["visitors: 1234567"])).outcome).toBe("pass");
  });

  it("checks every number and name and lists what is unsupported", () => {
    const ok = judgeGroundedness(groundedness("Pommeau Noir (18.5) beats Clos des Pommiers (12).", [CIDERS]));
    expect(ok.reason).toBe("every value in the answer appears in the evidence (4 checked)");
    const bad = judgeGroundedness(groundedness("Cidre Rouge (9) beats Pommeau Noir (18.5).", [CIDERS]));
    expect(bad.outcome).toBe("fail");
    expect(bad.reason).toBe("not supported by the query or tool responses: 9, Cidre Rouge");
  });

  it("checks quoted strings as named values", () => {
    expect(judgeGroundedness(groundedness('The label reads "pommeau noir reserve".', [CIDERS])).reason).toContain("pommeau noir reserve");
    const single = judgeGroundedness(groundedness("The label reads 'cidre rouge'.", [CIDERS]));
    expect(single.outcome).toBe("fail");
    expect(single.reason).toContain("cidre rouge");
    expect(judgeGroundedness(groundedness("The label reads 'pommeau noir'.", [CIDERS])).outcome).toBe("pass");
  });

  it("passes an answer that asserts nothing checkable", () => {
    expect(judgeGroundedness(groundedness("the strongest one is listed first.", [CIDERS]))).toMatchObject({
      outcome: "pass",
      reason: "the answer asserts no number or named value to check",
    });
  });

  it("checks every value of a structured answer", () => {
    expect(judgeGroundedness(groundedness("x", [CIDERS], "q", ["Pommeau Noir", 12])).reason).toBe("every value in the answer appears in the evidence (2 checked)");
    const d = judgeGroundedness(groundedness("x", [CIDERS], "q", ["Pommeau Noir", "Cidre Rouge"]));
    expect(d.outcome).toBe("fail");
    expect(d.reason).toBe("not supported by the query or tool responses: Cidre Rouge");
  });

  // Regression (fixed in 8554baf, namedValues in answer-values.ts): apostrophes counted as quote
  // marks, so the text between two contractions ("it's … isn't") became a "named value" the
  // evidence cannot contain ("not supported …: s 18.5% for Pommeau Noir, which isn").
  it("is not fooled by apostrophes in contractions", () => {
    expect(judgeGroundedness(groundedness("it's 18.5% for Pommeau Noir, which isn't the weakest.", [CIDERS])).outcome).toBe("pass");
  });

  // Regression (fixed in 8554baf, LEAD_WORDS in answer-values.ts): the pronoun "I" was read as
  // a named value, so any "I found …" answer was ungrounded ("not supported …: I").
  it('does not treat the pronoun "I" as a named value', () => {
    expect(judgeGroundedness(groundedness("I found that Pommeau Noir is the strongest at 18.5%.", [CIDERS])).outcome).toBe("pass");
  });
});

describe("createRulesGrader", () => {
  it("routes each kind and returns uncached, unhashed grades", async () => {
    const grader = createRulesGrader();
    expect(grader.id).toBe("rules");
    expect(grader.readsPrompts).toBe(false);
    expect(await grader.grade(correctness("41.3", "41.2587"))).toEqual({
      outcome: "fail",
      score: 0,
      reason: "the answer lacks 1 of 1 reference value",
      detail: "the answer lacks 41.2587 (reference: 41.2587)",
      promptHash: null,
      cacheHit: false,
    });
    expect(await grader.grade(groundedness("The strongest is Pommeau Noir.", [CIDERS]))).toMatchObject({ outcome: "pass", score: 1, promptHash: null, cacheHit: false });
  });

  it("leaves trajectories unjudged: their deterministic comparison is the score", async () => {
    const g = await createRulesGrader().grade({ kind: "trajectory", messages: [], facts: { answer: "a", reference: "b" } });
    expect(g).toMatchObject({ outcome: "unjudged", score: null });
  });
});

describe("rules grader: groundedness of counted rows", () => {
  it("accepts a count equal to the size of a list the tools returned, and nothing else", () => {
    const rows = JSON.stringify([{ name: "Azure Pearl", flag: "Malta" }, { name: "Iron Comet", flag: "Malta" }, { name: "Gentle Marlin", flag: "Malta" }]);
    const grounded = judgeGroundedness({ kind: "groundedness", question: "How many ships fly the flag of Malta?", answer: "3.", answerValue: "3.", evidence: [rows] });
    expect(grounded).toMatchObject({ outcome: "pass" });
    const ungrounded = judgeGroundedness({ kind: "groundedness", question: "How many ships fly the flag of Malta?", answer: "4.", answerValue: "4.", evidence: [rows] });
    expect(ungrounded).toMatchObject({ outcome: "fail", reason: "not supported by the query or tool responses: 4" });
  });
});
