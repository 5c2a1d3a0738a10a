import { describe, expect, it } from "vitest";
import type { Grader } from "@/lib/judges/grader";
import { createRulesGrader, gradeAnswer, gradeFieldValue, matchFieldNames } from "@/lib/judges/rules-grader";
import { evaluateItem } from "@/lib/evaluators/evaluator";
import { createQaEvaluator } from "@/lib/evaluators/qa-evaluator";
import { item, output } from "./helpers";
import { gaveUp, scriptedGrader } from "../../helpers/scripted-grader";
import { blockNames, unfenced } from "../../helpers/data-blocks";

describe("rules QA grading", () => {
  it("scores the share of the reference's numbers and names the answer states", () => {
    expect(gradeAnswer("3 forklifts crossed dock 4 in that window.", "3 forklifts crossed loading dock 4.").score).toBe(1);
    const half = gradeAnswer("4 people wore vests.", "4 of the 6 people wore vests.");
    // The missing fact quotes the reference: private.
    expect(half).toMatchObject({ outcome: "scored", score: 0.5, reason: "1 of 2 reference facts appear in the answer", detail: "missing: 6" });
    expect(half.reason).not.toContain("6");
    // Numbers agree at the reference's precision.
    expect(gradeAnswer("about 41.26", "41.2587").score).toBe(1);
    expect(gradeAnswer("Camera cam-07 at Gate B", "The camera at Gate B is cam-07.").score).toBe(1);
  });

  it("falls back to content words when the reference states no number or name", () => {
    // Content words of the reference: worker, wore, helmet → the answer has worker and helmet.
    expect(gradeAnswer("the worker had a helmet", "the worker wore a helmet").score).toBeCloseTo(2 / 3, 10);
  });

  it("fails empty answers, refusals and the opposite yes/no", () => {
    expect(gradeAnswer("  ", "3").score).toBe(0);
    expect(gradeAnswer("I cannot determine that from the footage.", "3")).toMatchObject({ score: 0, reason: "the answer declines to answer" });
    const opposite = gradeAnswer("Yes, the worker at Gate B wore a helmet.", "No. The worker at Gate B wore no helmet.");
    expect(opposite).toMatchObject({ score: 0, reason: 'the answer\'s "yes" disagrees with the reference', detail: 'the answer says "yes" where the reference says "no"' });
    expect(opposite.reason).not.toContain('"no"');
    expect(gradeAnswer("No: Gate B's worker had no helmet.", "No. The worker at Gate B wore no helmet.").score).toBe(1);
  });

  it("grades report field values as same text or token F1", () => {
    expect(gradeFieldValue("High!", "high").score).toBe(1);
    expect(gradeFieldValue("red truck", "red flatbed truck").score).toBeCloseTo(0.8, 10);
  });

  it("maps field names exactly first, then by shared words, each reference field once", () => {
    expect(matchFieldNames(["Vehicle Count", "severity", "Other"], ["Severity", "Count of vehicles", "Notes"])).toEqual([
      { field: "Vehicle Count", referenceField: null },
      { field: "severity", referenceField: "Severity" },
      { field: "Other", referenceField: null },
    ]);
    expect(matchFieldNames(["time_of_day", "Time"], ["Time", "Time of day"])).toEqual([
      { field: "time_of_day", referenceField: "Time of day" },
      { field: "Time", referenceField: "Time" },
    ]);
  });
});

describe("QA evaluator", () => {
  it("strips agent thinking and passes question, answer and reference to the judge's prompt", async () => {
    const { grader, grades: seen } = scriptedGrader({ grade: () => ({ score: 0.75, reasoning: "mostly", promptHash: "abc" }) });
    const ev = createQaEvaluator({ name: "qa", judge: grader, template: "Q={question} A={answer} R={reference} {{literal}}" });
    const r = await evaluateItem(ev, item({ output: output({ answer: "<agent-think>count them</agent-think> Three." }) }));
    expect(r).toMatchObject({ id: "i1", evaluator: "qa", kind: "qa", status: "scored", score: 0.75, reasoning: "mostly", reason: "graded 0.75 by fake", error: null, judge: "fake" });
    expect(seen[0]).toMatchObject({ kind: "qa", facts: { question: "How many forklifts crossed dock 4?", answer: "Three.", reference: "3 forklifts crossed dock 4." } });
    expect(seen[0]!.messages[1]!.role).toBe("user");
    expect(blockNames(seen[0]!.messages[1]!.content)).toEqual(["question", "answer", "reference"]);
    expect(unfenced(seen[0]!.messages[1]!.content)).toBe("Q=How many forklifts crossed dock 4? A=Three. R=3 forklifts crossed dock 4. {literal}");
    expect(seen[0]!.messages[0]!.content).toContain('"score"');
    expect(r.details).toMatchObject({ generated_answer: "Three.", prompt_hash: "abc" });
  });

  it("makes a missing output, answer or reference an error, and a judge fault an error item", async () => {
    const ev = createQaEvaluator({ name: "qa", judge: createRulesGrader() });
    expect(await evaluateItem(ev, item({ output: null }))).toMatchObject({ status: "error", score: null, error: "no agent output for this item" });
    expect(await evaluateItem(ev, item({ output: output() }))).toMatchObject({ status: "error", error: "the agent's output has no generated answer" });
    expect(await evaluateItem(ev, item({ groundTruth: null }))).toMatchObject({ status: "error", error: "the item has no ground_truth to compare the answer with" });
    const { grader: gaveUpJudge } = scriptedGrader({ id: "openai:m", grade: () => gaveUp("judge failed after 5 attempts: HTTP 429", "openai:m") });
    const r = await evaluateItem(createQaEvaluator({ name: "qa", judge: gaveUpJudge }), item());
    expect(r).toMatchObject({ status: "error", score: null, error: "judge failed after 5 attempts: HTTP 429", reason: "the openai:m judge gave no usable reply", judge: "openai:m" });
    // A grader that throws (a bug) is an error item too, its message private.
    const throwing: Grader = {
      id: "openai:m",
      readsPrompts: true,
      grade: async () => {
        throw new TypeError("boom");
      },
    };
    const t = await evaluateItem(createQaEvaluator({ name: "qa", judge: throwing }), item());
    expect(t).toMatchObject({ status: "error", score: null, error: "boom", reason: "the openai:m judge failed", judge: "openai:m" });
  });

  it("scores an empty answer 0: a bad answer is a score, not an error", async () => {
    const r = await evaluateItem(createQaEvaluator({ name: "qa", judge: createRulesGrader() }), item({ output: output({ answer: "" }) }));
    expect(r).toMatchObject({ status: "scored", score: 0, reasoning: "the answer is empty", reason: "the answer is empty" });
  });

  it("keeps the reference out of the public reason and in the private reasoning", async () => {
    const r = await evaluateItem(createQaEvaluator({ name: "qa", judge: createRulesGrader() }), item({ output: output({ answer: "5 forklifts crossed dock 4." }) }));
    // Reference "3 forklifts crossed dock 4.": 4 is stated, 3 is not.
    expect(r).toMatchObject({ status: "scored", score: 0.5, reason: "1 of 2 reference facts appear in the answer", reasoning: "missing: 3" });
    expect(r.reason).not.toContain("3");
  });

  it("refuses templates with unknown or missing placeholders", () => {
    expect(() => createQaEvaluator({ name: "qa", judge: createRulesGrader(), template: "{question} {answr} {reference}" })).toThrow(
      "qa: QA prompt template: unknown placeholder {answr}; this template may use {question}, {answer}, {reference}; the template never uses {answer}",
    );
  });
});

describe("ground truths that are not strings, under compat nat", () => {
  const run = async (groundTruthRaw: unknown, style: "nat" | "agentboard") => {
    const { grader, grades } = scriptedGrader({ grade: () => 0.9 });
    const qa = createQaEvaluator({ name: "qa", judge: grader, style });
    const r = await evaluateItem(qa, item({ groundTruth: JSON.stringify(groundTruthRaw), groundTruthRaw }));
    return { r, prompt: grades[0]?.messages.at(-1)?.content };
  };

  it("takes what Python reads as false (0, 0.0, false, [], {}) as no ground truth: NAT's 0.0, the judge never asked", async () => {
    for (const v of [0, 0.0, false, [], {}]) {
      const { r, prompt } = await run(v, "nat");
      expect(r).toMatchObject({ status: "error", nat: { score: 0, reasoning: "Error: marked for QA evaluation but no ground_truth provided" } });
      expect(prompt).toBeUndefined();
    }
  });

  it("shows other values to the judge as Python's str() shows them; Agentboard grades 0 like any answer", async () => {
    expect((await run(true, "nat")).prompt).toContain("True");
    expect((await run(2.5, "nat")).prompt).toContain("2.5");
    expect((await run({ count: 1 }, "nat")).prompt).toContain("{'count': 1}");
    expect((await run(0, "agentboard")).r).toMatchObject({ status: "scored", score: 0.9 });
  });
});
