import { describe, expect, it } from "vitest";
import type { ResolvedPolicy } from "@/lib/benchmark/policy";
import { unjudged, type Grade, type GradeKind, type GradeRequest, type Grader } from "@/lib/judges/grader";
import { responseText, runWaterfall, type WaterfallDeps, type WaterfallInput } from "@/lib/scoring/waterfall";
import { waterfallBucket } from "@/lib/scoring/item-result";

type StageRequest = Extract<GradeRequest, { kind: "correctness" | "groundedness" }>;
type Script = Grade | Error | ((req: StageRequest) => Grade);

/** A grader at the edge: records every request and replies as scripted (or throws, for a grader bug). */
class FakeGrader implements Grader {
  readonly id = "fake:judge";
  readonly readsPrompts = true;
  readonly calls: StageRequest[] = [];
  constructor(private readonly script: Partial<Record<StageRequest["kind"], Script>> = {}) {}
  get kinds(): GradeKind[] {
    return this.calls.map((c) => c.kind);
  }
  async grade(req: GradeRequest): Promise<Grade> {
    if (req.kind !== "correctness" && req.kind !== "groundedness") throw new Error(`the waterfall should not have asked for ${req.kind}`);
    this.calls.push(req);
    const s = this.script[req.kind];
    if (s === undefined) throw new Error(`the waterfall should not have asked for ${req.kind}`);
    if (s instanceof Error) throw s;
    return typeof s === "function" ? s(req) : s;
  }
}

const PASS: Grade = { outcome: "pass", score: 1, reason: "judge says pass", detail: "pass, in the judge's words", promptHash: "hash-pass", cacheHit: false };
const FAIL: Grade = { outcome: "fail", score: 0, reason: "judge says fail", detail: "fail, in the judge's words", promptHash: "hash-fail", cacheHit: true };
/** What the openai grader returns once its retries are spent. */
const gaveUp = (message: string): Grade => ({ ...unjudged("the fake:judge judge gave no usable reply", message), promptHash: "hash-unjudged" });

const GT = { rows: [["Pommeau Noir", 18.5]] };
const OTHER = { rows: [["Clos des Pommiers", 12]] };

function input(over: Partial<WaterfallInput> = {}): WaterfallInput {
  return {
    turnId: 3,
    question: "Which cider is the strongest?",
    reference: "Pommeau Noir",
    prediction: { turnId: 3, query: "Which cider is the strongest?", answer: "Pommeau Noir", calls: [{ name: "sql_query", arguments: { q: "select" } }] },
    predictedResponses: [GT],
    groundTruthResponses: [GT],
    policy: undefined,
    compat: "strict",
    window: 5,
    evidenceMaxChars: 24_000,
    hasResponses: true,
    ...over,
  };
}

/** A clock that advances 25 ms per reading. */
function deps(grader: Grader): WaterfallDeps {
  let t = 1000;
  return { grader, now: () => (t += 25) };
}

const stagesOf = (r: { verdicts: { stage: string; outcome: string }[] }) => r.verdicts.map((v) => `${v.stage}:${v.outcome}`);

describe("runWaterfall", () => {
  it("stops at a policy violation with score 0 and never calls the judge", async () => {
    const judge = new FakeGrader({ correctness: PASS, groundedness: PASS });
    const policy: ResolvedPolicy = { kind: "rule", source: "structured", rule: { denyTools: ["sql_*"] } };
    const r = await runWaterfall(input({ policy }), deps(judge));
    expect(r).toMatchObject({ turnId: 3, score: 0, stage: "policy", status: "scored" });
    expect(judge.calls).toHaveLength(0);
    expect(stagesOf(r)).toEqual(["policy:fail", "exact:skipped", "correctness:skipped", "groundedness:skipped"]);
    expect(r.verdicts[0]!.reason).toContain("sql_query matches a denied pattern");
    expect(r.verdicts[3]!.reason).toBe("not reached: the policy was violated");
  });

  it("on an exact pass skips correctness and lets groundedness decide (grounded)", async () => {
    const judge = new FakeGrader({ groundedness: PASS });
    const r = await runWaterfall(input(), deps(judge));
    expect(r).toMatchObject({ score: 1, stage: "groundedness", status: "scored" });
    expect(judge.kinds).toEqual(["groundedness"]);
    expect(stagesOf(r)).toEqual(["policy:skipped", "exact:pass", "correctness:skipped", "groundedness:pass"]);
    expect(r.verdicts[2]!.reason).toBe("not needed: the exact tool responses were reproduced");
  });

  it("on an exact pass scores 0 when the answer is ungrounded", async () => {
    const judge = new FakeGrader({ groundedness: FAIL });
    const r = await runWaterfall(input(), deps(judge));
    expect(r).toMatchObject({ score: 0, stage: "groundedness", status: "scored" });
    expect(judge.kinds).toEqual(["groundedness"]);
  });

  it("scores 0 on a correctness fail and never asks about groundedness", async () => {
    const judge = new FakeGrader({ correctness: FAIL });
    const r = await runWaterfall(input({ predictedResponses: [OTHER] }), deps(judge));
    expect(r).toMatchObject({ score: 0, stage: "correctness", status: "scored" });
    expect(judge.kinds).toEqual(["correctness"]);
    expect(stagesOf(r)).toEqual(["policy:skipped", "exact:fail", "correctness:fail", "groundedness:skipped"]);
    expect(r.verdicts[3]!.reason).toBe("not reached: the answer is not correct");
  });

  it("asks correctness then groundedness when the exact match fails", async () => {
    const judge = new FakeGrader({ correctness: PASS, groundedness: PASS });
    const r = await runWaterfall(input({ predictedResponses: ["older", OTHER, "last"], window: 2, reference: [["Pommeau Noir", 18.5]] }), deps(judge));
    expect(r).toMatchObject({ score: 1, stage: "groundedness", status: "scored" });
    expect(judge.kinds).toEqual(["correctness", "groundedness"]);
    const [c, g] = judge.calls;
    expect(c).toEqual({
      kind: "correctness",
      question: "Which cider is the strongest?",
      answer: "Pommeau Noir",
      answerValue: "Pommeau Noir",
      reference: "Pommeau Noir",
      referenceValue: [["Pommeau Noir", 18.5]],
    });
    // Evidence is the last `window` predicted responses, as text.
    expect(g).toMatchObject({ kind: "groundedness", answer: "Pommeau Noir", evidence: [JSON.stringify(OTHER), "last"] });
  });

  it("turns an unjudged correctness grade into judge_error, not a silent scored 0", async () => {
    const judge = new FakeGrader({ correctness: gaveUp("judge failed after 5 attempts: HTTP 503") });
    const r = await runWaterfall(input({ predictedResponses: [] }), deps(judge));
    expect(r).toMatchObject({ score: 0, stage: "correctness", status: "judge_error" });
    expect(judge.kinds).toEqual(["correctness"]);
    const v = r.verdicts[2]!;
    expect(v).toMatchObject({
      stage: "correctness",
      outcome: "error",
      score: null,
      judge: "fake:judge",
      reason: "the fake:judge judge gave no usable reply",
      detail: "judge failed after 5 attempts: HTTP 503",
    });
    expect(r.verdicts[3]).toMatchObject({ stage: "groundedness", outcome: "skipped", reason: "not reached: the correctness judge failed" });
  });

  it("turns an unjudged groundedness grade into judge_error", async () => {
    const judge = new FakeGrader({ groundedness: gaveUp("judge failed after 3 attempts: timed out after 100 ms") });
    const r = await runWaterfall(input(), deps(judge));
    expect(r).toMatchObject({ score: 0, stage: "groundedness", status: "judge_error" });
    expect(r.verdicts[3]).toMatchObject({ outcome: "error", score: null, detail: "judge failed after 3 attempts: timed out after 100 ms" });
  });

  it("treats a grader that throws as judge_error too, its message kept private", async () => {
    const judge = new FakeGrader({ correctness: new TypeError("boom") });
    const r = await runWaterfall(input({ predictedResponses: [] }), deps(judge));
    expect(r.status).toBe("judge_error");
    expect(r.verdicts[2]).toMatchObject({ outcome: "error", score: null, reason: "the fake:judge judge failed", detail: "boom" });
  });

  it("without responses skips exact and groundedness and scores correctness (pass)", async () => {
    const judge = new FakeGrader({ correctness: PASS });
    const r = await runWaterfall(input({ hasResponses: false, predictedResponses: [], groundTruthResponses: [GT] }), deps(judge));
    expect(r).toMatchObject({ score: 1, stage: "correctness", status: "scored" });
    expect(judge.kinds).toEqual(["correctness"]);
    expect(stagesOf(r)).toEqual(["policy:skipped", "exact:skipped", "correctness:pass", "groundedness:skipped"]);
    expect(r.verdicts[1]!.reason).toBe("no tool responses to compare (replay: none)");
    expect(r.verdicts[3]!.reason).toBe("no tool responses to ground the answer in (replay: none)");
  });

  it("without responses skips exact and groundedness and scores correctness (fail)", async () => {
    const judge = new FakeGrader({ correctness: FAIL });
    const r = await runWaterfall(input({ hasResponses: false }), deps(judge));
    expect(r).toMatchObject({ score: 0, stage: "correctness", status: "scored" });
    expect(judge.kinds).toEqual(["correctness"]);
  });

  it("records the judge's id, prompt hash, cache hit and latency on its verdicts", async () => {
    const judge = new FakeGrader({ correctness: FAIL });
    const r = await runWaterfall(input({ predictedResponses: [] }), deps(judge));
    expect(r.verdicts[2]).toEqual({
      stage: "correctness",
      turnId: 3,
      outcome: "fail",
      score: 0,
      reason: "judge says fail",
      detail: "fail, in the judge's words",
      judge: "fake:judge",
      promptHash: "hash-fail",
      cacheHit: true,
      latencyMs: 25,
    });
  });

  it("continues past an unchecked policy without treating it as a pass", async () => {
    const judge = new FakeGrader({ groundedness: PASS });
    const r = await runWaterfall(input({ policy: { kind: "unchecked", text: "Be polite." } }), deps(judge));
    expect(r).toMatchObject({ score: 1, stage: "groundedness" });
    expect(stagesOf(r)[0]).toBe("policy:unchecked");
  });

  it("continues past a respected policy", async () => {
    const judge = new FakeGrader({ groundedness: PASS });
    const r = await runWaterfall(input({ policy: { kind: "rule", source: "table", rule: { allowTools: ["sql_*"] } } }), deps(judge));
    expect(stagesOf(r)).toEqual(["policy:pass", "exact:pass", "correctness:skipped", "groundedness:pass"]);
  });

  it("strict compat sends an empty ground truth to the judge; vakra passes it vacuously", async () => {
    const strictJudge = new FakeGrader({ correctness: PASS, groundedness: PASS });
    const strict = await runWaterfall(input({ groundTruthResponses: [] }), deps(strictJudge));
    expect(strictJudge.kinds).toEqual(["correctness", "groundedness"]);
    expect(strict.verdicts[1]!.outcome).toBe("fail");

    const vakraJudge = new FakeGrader({ groundedness: PASS });
    const vakra = await runWaterfall(input({ groundTruthResponses: [], compat: "vakra" }), deps(vakraJudge));
    expect(vakraJudge.kinds).toEqual(["groundedness"]);
    expect(vakra.verdicts[1]!.outcome).toBe("pass");
  });

  it("sends a structured answer as text and as given", async () => {
    const judge = new FakeGrader({ correctness: PASS, groundedness: PASS });
    const answer = [["Pommeau Noir", 18.5], ["Clos des Pommiers", 12]];
    await runWaterfall(input({ prediction: { turnId: 3, query: "q", answer, calls: [] }, predictedResponses: [OTHER] }), deps(judge));
    expect(judge.calls[0]!.answer).toBe("Pommeau Noir, Clos des Pommiers");
    expect(judge.calls[0]!.answerValue).toEqual(answer);
  });

  it("responseText keeps strings and serialises the rest", () => {
    expect(responseText("raw")).toBe("raw");
    expect(responseText({ a: 1 })).toBe('{"a":1}');
    expect(responseText(undefined)).toBe("null");
  });
});

describe("waterfallBucket", () => {
  it("files each item where its last scored turn ended, a turn with no prediction among the items not scored", () => {
    expect(waterfallBucket({ status: "missing", stage: "none", score: 0 })).toBe("not_scored");
    expect(waterfallBucket({ status: "scored", stage: "none", score: 0 })).toBe("not_scored");
    expect(waterfallBucket({ status: "scored", stage: "policy", score: 0 })).toBe("policy");
    expect(waterfallBucket({ status: "scored", stage: "correctness", score: 0 })).toBe("correctness_failed");
    expect(waterfallBucket({ status: "scored", stage: "groundedness", score: 0 })).toBe("groundedness_failed");
    expect(waterfallBucket({ status: "scored", stage: "exact", score: 1 })).toBe("passed");
  });
});
