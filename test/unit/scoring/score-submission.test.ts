/** scoreSubmission over an in-memory benchmark: statuses, turn pairing, weights, errors into aggregation. */
import { describe, expect, it } from "vitest";
import { aggregate } from "@/lib/aggregate/aggregate";
import type { Benchmark } from "@/lib/benchmark/load-benchmark";
import { benchmarkSpecSchema } from "@/lib/benchmark/spec";
import { policyTableIndex } from "@/lib/benchmark/policy";
import type { GroundTruthDialogue, PredictedDialogue, Turn } from "@/lib/formats/dialogue";
import { createRecordedReplay } from "@/lib/replay/recorded-replay";
import { ReplayError, type ReplayPort } from "@/lib/replay/replay-port";
import { unjudged, type Grader } from "@/lib/judges/grader";
import { createRulesGrader } from "@/lib/judges/rules-grader";
import type { ItemResult, WaterfallItemResult } from "@/lib/scoring/item-result";
import { trialItemKey } from "@/lib/benchmark/item-key";
import { scoreSubmission } from "@/lib/scoring/score-submission";
import type { Submission } from "@/lib/validate/validate-bundle";

const turn = (turnId: number, query: string, answer: Turn["answer"], calls: string[], responses: unknown[]): Turn => ({
  turnId,
  query,
  answer,
  calls: calls.map((name) => ({ name, arguments: {} })),
  responses,
});

function makeBenchmark(scoredTurns: "last" | "all"): Benchmark {
  const spec = benchmarkSpecSchema.parse({
    slug: "t",
    title: "T",
    version: "1",
    capabilities: [{ id: "mt", label: "MT", directory: "capability_4_multiturn", policies: true, scoredTurns, weights: { multiSource: 2 } }],
    policyTable: [{ text: "No retrievers.", denyTools: ["query_*"] }],
  });
  const gts: GroundTruthDialogue[] = [
    { uuid: "a", domain: "d", instructions: "", turns: [turn(0, "How many?", [[3]], ["get_n"], [[[3]]]), turn(1, "And the name?", [["Ada"]], ["get_name", "query_d"], [[["Ada"]], ["Ada is here."]])] },
    { uuid: "b", domain: "d", instructions: "No retrievers.", turns: [turn(0, "Count?", [[5]], ["get_c"], [[[5]]])] },
    { uuid: "c", domain: "d", instructions: "Mystery policy text.", turns: [turn(0, "Total?", [[9]], ["get_t"], [[[9]]])] },
    { uuid: "e", domain: "d", instructions: "", turns: [turn(0, "Err?", [[1]], ["get_e"], [[[1]]])] },
    { uuid: "m", domain: "d", instructions: "", turns: [turn(0, "Missing?", [[2]], ["get_m"], [[[2]]])] },
  ];
  return {
    root: "/nowhere",
    spec,
    capabilities: [{ kind: "dialogues", spec: spec.capabilities[0]!, domains: new Map([["d", gts]]), byUuid: new Map(gts.map((g) => [g.uuid, g])) }],
    policyTable: policyTableIndex(spec.policyTable),
    warnings: [],
  };
}

const pred = (uuid: string, turns: Turn[], status: "success" | "error" = "success"): PredictedDialogue => ({ uuid, domain: "d", status, error: status === "error" ? "boom" : "", durationS: 1, turns });

function makeSubmission(): Submission {
  const dialogues = [
    pred("a", [turn(0, "How many?", "3", ["get_n"], [[[3]]]), turn(1, "And the name?", "Ada.", ["get_name", "query_d"], [[["Ada"]], ["Ada is here."]])]),
    pred("b", [turn(0, "Count?", "5", ["get_c"], [[[5]]])]),
    pred("c", [turn(0, "Total?", "9", ["get_t"], [[[9]]])]),
    pred("e", [], "error"),
  ];
  return { sha256: "x", capabilities: new Map([["mt", new Map(dialogues.map((d) => [d.uuid, d]))]]), outputs: new Map(), origins: new Map(), metadata: null };
}

/** Every item of this benchmark is a waterfall item. */
function waterfallItems(items: ItemResult[]): WaterfallItemResult[] {
  return items.map((i) => {
    if (i.scorer !== "waterfall") throw new Error(`expected a waterfall item, got ${i.scorer}`);
    return i;
  });
}
const byUuid = (items: ItemResult[]) => Object.fromEntries(waterfallItems(items).map((i) => [i.uuid, i]));

describe("scoreSubmission", () => {
  it("gives every ground-truth item a result with the right status, weight and policy", async () => {
    const items = byUuid(await scoreSubmission(makeBenchmark("last"), makeSubmission(), { grader: createRulesGrader(), replay: createRecordedReplay() }));
    expect(items.a).toMatchObject({ scorer: "waterfall", status: "scored", score: 1, weight: 2, sources: "multi_source", stage: "groundedness", bucket: "passed" });
    expect(items.a!.turns.map((t) => t.turnId)).toEqual([1]);
    expect(items.b).toMatchObject({ status: "scored", score: 1, weight: 1, policy: "pass" });
    expect(items.c).toMatchObject({ status: "scored", policy: "unchecked" });
    expect(items.e).toMatchObject({ status: "agent_error", score: 0, bucket: "not_scored", reason: "boom", detail: null });
    expect(items.m).toMatchObject({ status: "missing", score: 0, stage: "none", reason: "no prediction for this item" });
  });

  it("scores every turn under scoredTurns: all, a missing turn counting 0", async () => {
    const sub = makeSubmission();
    const a = sub.capabilities.get("mt")!.get("a")!;
    a.turns = a.turns.slice(1); // only turn 1 predicted
    const items = byUuid(await scoreSubmission(makeBenchmark("all"), sub, { grader: createRulesGrader(), replay: createRecordedReplay() }));
    expect(items.a!.turns).toEqual([
      { turnId: 0, score: 0, stage: "none", status: "missing_turn" },
      { turnId: 1, score: 1, stage: "groundedness", status: "scored" },
    ]);
    expect(items.a!.score).toBe(0.5);
  });

  it("records replay failures and judge failures as errors, which aggregation counts", async () => {
    const failingReplay: ReplayPort = {
      ...createRecordedReplay(),
      async replay(req) {
        if (req.groundTruth.uuid === "b") throw new ReplayError("server died");
        return createRecordedReplay().replay(req);
      },
    };
    const flakyJudge: Grader = {
      id: "flaky",
      readsPrompts: false,
      async grade(req) {
        if ((req.kind === "correctness" || req.kind === "groundedness") && req.question === "Total?") return unjudged("the flaky judge gave no usable reply", "judge failed after 5 attempts: HTTP 500");
        return createRulesGrader().grade(req);
      },
    };
    const items = await scoreSubmission(makeBenchmark("last"), makeSubmission(), { grader: flakyJudge, replay: failingReplay });
    const m = byUuid(items);
    expect(m.b).toMatchObject({ status: "replay_error", score: 0, reason: "replay failed: server died" });
    // "c" reproduces the exact responses, so the groundedness judge is asked, and fails.
    expect(m.c).toMatchObject({ status: "judge_error", stage: "groundedness", reason: "the flaky judge gave no usable reply", detail: "judge failed after 5 attempts: HTTP 500" });
    expect(m.c!.verdicts.find((v) => v.outcome === "error")?.detail).toContain("HTTP 500");
    const agg = aggregate(["mt"], new Set(["mt"]), items);
    expect(agg.capabilities.mt).toMatchObject({ nItems: 5, nMissing: 1, nError: 3, nPolicyUnchecked: 1 });
    expect(agg.capabilities.mt!.statusCounts).toEqual({ scored: 1, replay_error: 1, judge_error: 1, agent_error: 1, missing: 1 });
  });

  it("reports progress for every item", async () => {
    const seen: number[] = [];
    await scoreSubmission(makeBenchmark("last"), makeSubmission(), { grader: createRulesGrader(), replay: createRecordedReplay(), onProgress: (done, total) => seen.push(done * 10 + total) });
    expect(seen).toEqual([5, 15, 25, 35, 45, 55]);
  });
});

describe("scoreSubmission resumption", () => {
  it("reuses stored results and reports only newly scored items", async () => {
    const first = await scoreSubmission(makeBenchmark("last"), makeSubmission(), { grader: createRulesGrader(), replay: createRecordedReplay() });
    const done = new Map(first.slice(0, 3).map((i) => [trialItemKey(i.capability, i.uuid, i.trial), { ...i, detail: "stored" }]));
    const scored: string[] = [];
    const again = await scoreSubmission(makeBenchmark("last"), makeSubmission(), { grader: createRulesGrader(), replay: createRecordedReplay(), done, onItem: (i) => scored.push(i.uuid) });
    expect(scored).toEqual(first.slice(3).map((i) => i.uuid));
    expect(again.slice(0, 3).map((i) => i.detail)).toEqual(["stored", "stored", "stored"]);
    expect(again.slice(3)).toEqual(first.slice(3));
  });
});
