/**
 * A maintainer's decision applied to a stored item without asking a judge
 * (lib/scoring/apply-decisions.ts): the waterfall's verdicts as a panel left them, settled again
 * (waterfall.ts `settleTurn`). A disputed correctness grade has its groundedness asked ahead,
 * so a correctness decided a pass is settled by it; qa items take the decided score.
 */
import { describe, expect, it } from "vitest";
import { passFail, type Grade, type GradeRequest, type Grader } from "@/lib/judges/grader";
import { createPanelGrader, withPanelLog, type Decision } from "@/lib/judges/panel-grader";
import { applyDecisions } from "@/lib/scoring/apply-decisions";
import { waterfallBucket, type EvaluatorItemResult, type WaterfallItemResult } from "@/lib/scoring/item-result";
import { ASKED_AHEAD, runWaterfall, settleTurn, type WaterfallInput } from "@/lib/scoring/waterfall";

/** A judge at the edge: a fixed answer per request kind. */
function judge(id: string, answers: Partial<Record<GradeRequest["kind"], Grade>>): Grader {
  return {
    id,
    readsPrompts: true,
    async grade(req) {
      const g = answers[req.kind];
      if (!g) throw new Error(`${id} was not asked ${req.kind}`);
      return g;
    },
  };
}

const GT = { rows: [["Pommeau Noir", 18.5]] };
const input: WaterfallInput = {
  turnId: 0,
  question: "Which cider is the strongest?",
  reference: "Pommeau Noir",
  prediction: { turnId: 0, query: "Which cider is the strongest?", answer: "Pommeau Noir", calls: [{ name: "sql", arguments: {} }] },
  predictedResponses: [{ rows: [["Other", 1]] }],
  groundTruthResponses: [GT],
  policy: undefined,
  compat: "strict",
  window: 5,
  evidenceMaxChars: 24_000,
  hasResponses: true,
};

/** A waterfall item of one turn scored by a panel, as the waterfall scorer stores it. */
async function panelItem(members: Grader[]): Promise<WaterfallItemResult> {
  const grader = createPanelGrader({ rule: "primary", members });
  const { value: turn, panel } = await withPanelLog(() => runWaterfall(input, { grader, now: () => 0 }));
  const item: WaterfallItemResult = {
    scorer: "waterfall",
    capability: "c",
    domain: "d",
    uuid: "u",
    trial: 1,
    weight: 1,
    score: turn.score,
    status: turn.status === "judge_error" ? "judge_error" : "scored",
    bucket: "not_scored",
    stage: turn.stage,
    reason: "",
    detail: null,
    trace: [],
    sources: "api_only",
    policy: "skipped",
    exactPassed: false,
    turns: [{ turnId: 0, score: turn.score, stage: turn.stage, status: turn.status }],
    verdicts: turn.verdicts,
    replay: "recorded",
    verified: false,
    trajectory: null,
    panel,
  };
  return { ...item, bucket: waterfallBucket(item) };
}

describe("a decided correctness grade", () => {
  it("asks groundedness ahead while correctness is disputed, and a pass decided later is settled by it", async () => {
    const a = judge("a", { correctness: passFail(false, "a: incorrect"), groundedness: passFail(true, "a: grounded") });
    const b = judge("b", { correctness: passFail(true, "b: correct"), groundedness: passFail(true, "b: grounded") });
    const item = await panelItem([a, b]);
    expect(item).toMatchObject({ score: 0, stage: "correctness", bucket: "correctness_failed" });
    const grounded = item.verdicts.find((v) => v.stage === "groundedness")!;
    expect(grounded).toMatchObject({ outcome: "pass" });
    expect(grounded.reason).toContain(ASKED_AHEAD);
    // The stored verdicts settle to what the waterfall decided.
    expect(settleTurn(item.verdicts)).toEqual({ score: 0, stage: "correctness", status: "scored" });

    const correctness = item.panel!.find((p) => p.kind === "correctness")!;
    expect(correctness.disputed).toBe(true);
    const decided = applyDecisions(item, new Map<string, Decision>([[correctness.key, { outcome: "pass", score: 1 }]]))! as WaterfallItemResult;
    expect(decided).toMatchObject({ score: 1, status: "scored", stage: "groundedness", bucket: "passed" });
    expect(decided.verdicts.find((v) => v.stage === "correctness")).toMatchObject({ outcome: "pass", score: 1, reason: "passed: decided by a maintainer", panel: { decided: true } });
    expect(decided.panel!.find((p) => p.key === correctness.key)!.decided).toEqual({ outcome: "pass", score: 1 });
    // Applied once: the same decision again changes nothing.
    expect(applyDecisions(decided, new Map([[correctness.key, { outcome: "pass" as const, score: 1 }]]))).toBeNull();
  });

  it("an undisputed failed correctness asks no groundedness, and a decision on another key leaves the item alone", async () => {
    const a = judge("a", { correctness: passFail(false, "a: incorrect") });
    const b = judge("b", { correctness: passFail(false, "b: incorrect") });
    const item = await panelItem([a, b]);
    expect(item.verdicts.find((v) => v.stage === "groundedness")).toMatchObject({ outcome: "skipped" });
    expect(applyDecisions(item, new Map([["another-key", { outcome: "pass" as const, score: 1 }]]))).toBeNull();
  });

  it("a groundedness decided a fail scores the turn 0", async () => {
    const a = judge("a", { correctness: passFail(true, "a: correct"), groundedness: passFail(true, "a: grounded") });
    const b = judge("b", { correctness: passFail(true, "b: correct"), groundedness: passFail(false, "b: not grounded") });
    const item = await panelItem([a, b]);
    expect(item.score).toBe(1);
    const key = item.panel!.find((p) => p.kind === "groundedness" && p.disputed)!.key;
    expect(applyDecisions(item, new Map([[key, { outcome: "fail" as const, score: 0 }]]))).toMatchObject({ score: 0, stage: "groundedness", bucket: "groundedness_failed" });
  });
});

describe("a decided qa grade", () => {
  it("is the item's score", () => {
    const item: EvaluatorItemResult = {
      scorer: "qa",
      capability: "c",
      domain: "d",
      uuid: "u",
      trial: 1,
      weight: 1,
      score: 0.9,
      status: "scored",
      bucket: "evaluated",
      stage: "qa",
      reason: "graded 0.90",
      detail: null,
      trace: [],
      evaluation: { kind: "qa", status: "scored", score: 0.9, reasoning: "", reason: "graded 0.90", error: null, judge: "panel", latencyMs: 0, subScores: {}, details: null },
      panel: [{ key: "k", kind: "qa", rule: "primary", members: [], disputed: true, unjudged: [], outcome: "scored", score: 0.9, decided: null }],
    };
    const out = applyDecisions(item, new Map([["k", { outcome: "scored" as const, score: 0.25 }]]))!;
    expect(out).toMatchObject({ score: 0.25, status: "scored", reason: "graded 0.25: decided by a maintainer", evaluation: { score: 0.25 } });
  });
});
