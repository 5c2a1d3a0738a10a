import { describe, expect, it } from "vitest";
import type { EvalItem } from "@/lib/formats/eval-dataset";
import { evaluateItem, type Evaluator } from "@/lib/evaluators/evaluator";
import { summarize } from "@/lib/evaluators/result";
import { filterItemsByMethods, parseOnlyOption, unroutedMethods } from "@/lib/evaluators/routing";
import { runEvaluation, selectByKinds } from "@/lib/evaluators/run-evaluation";
import { item } from "./helpers";

const fixed = (name: string, kind: Evaluator["kind"], score: (i: EvalItem) => number): Evaluator => ({
  name,
  kind,
  methodId: kind,
  judgeId: "rules",
  async score(i) {
    return { status: "scored", score: score(i), reasoning: "fixed", reason: "fixed", judge: "rules" };
  },
});

const turn = (conv: string, turnId: string, index: number, methods: string[]): EvalItem =>
  item({ id: `${conv}_${turnId}`, methods, conversation: { id: conv, turnId, index, turnCount: 3 } });

describe("--only", () => {
  it("takes all alone or a list of kinds", () => {
    expect(parseOnlyOption(undefined)).toEqual({ ok: true, kinds: "all" });
    expect(parseOnlyOption("ALL")).toEqual({ ok: true, kinds: "all" });
    expect(parseOnlyOption("qa, trajectory,qa")).toEqual({ ok: true, kinds: ["qa", "trajectory"] });
    expect(parseOnlyOption("all,qa")).toEqual({ ok: false, error: '--only: "all" cannot be combined with other values (got "all,qa")' });
    expect(parseOnlyOption("qa,rag", "DATASET_FILTER")).toEqual({ ok: false, error: 'DATASET_FILTER: invalid value "rag"; must be one of all, qa, trajectory, report' });
    // Blank parts are dropped, as VSS drops them.
    expect(parseOnlyOption("qa,")).toEqual({ ok: true, kinds: ["qa"] });
    expect(parseOnlyOption(" ")).toEqual({ ok: true, kinds: "all" });
  });

  it("drops single-turn items with no method left and keeps a conversation whole if any turn matches", () => {
    const items = [
      item({ id: "a", methods: ["qa", "trajectory"] }),
      item({ id: "b", methods: ["report"] }),
      turn("c", "t1", 0, ["qa"]),
      turn("c", "t2", 1, ["trajectory"]),
      turn("d", "t1", 0, ["qa"]),
    ];
    const kept = filterItemsByMethods(items, new Set(["trajectory"]));
    expect(kept.map((i) => [i.id, i.methods])).toEqual([
      ["a", ["trajectory"]],
      ["c_t1", []],
      ["c_t2", ["trajectory"]],
    ]);
  });

  it("narrows the items to the chosen methods and keeps every evaluator, as DATASET_FILTER does", async () => {
    const evaluators = [fixed("qa", "qa", () => 1), fixed("traj", "trajectory", () => 0.5)];
    const items = [item({ id: "a", methods: ["qa"] }), turn("c", "t1", 0, ["qa"]), turn("c", "t2", 1, ["trajectory"])];
    const sel = selectByKinds(items, evaluators, ["trajectory"]);
    expect(sel.evaluators.map((e) => e.name)).toEqual(["qa", "traj"]);
    const run = await runEvaluation({ items: sel.items, evaluators: sel.evaluators });
    expect(run.evaluators[1]!.items.map((r) => [r.id, r.status, r.score])).toEqual([
      ["c_t1", "skipped", null],
      ["c_t2", "scored", 0.5],
    ]);
    // The QA evaluator still runs: the turn kept for context is skipped, never scored.
    expect(run.evaluators[0]!.items.map((r) => [r.id, r.status])).toEqual([
      ["c_t1", "skipped"],
      ["c_t2", "skipped"],
    ]);
    expect(selectByKinds(items, evaluators, "all").items).toHaveLength(3);
  });

  it("lists methods no evaluator answers to", () => {
    expect([...unroutedMethods([item({ methods: ["qa", "rag"] }), item({ methods: ["rag"] })], new Set(["qa"]))]).toEqual([["rag", 2]]);
  });
});

describe("evaluateItem and the run", () => {
  it("skips items not routed to the evaluator, with the reason and no score", async () => {
    const r = await evaluateItem(fixed("qa", "qa", () => 1), item({ methods: ["report"] }));
    expect(r).toMatchObject({ status: "skipped", score: null, error: null, reasoning: "Skipped: not marked for qa evaluation" });
  });

  it("turns a throw or an out-of-range score into an error item, never a 0", async () => {
    const throwing: Evaluator = { ...fixed("qa", "qa", () => 1), score: async () => Promise.reject(new Error("boom")) };
    expect(await evaluateItem(throwing, item())).toMatchObject({ status: "error", score: null, error: "boom", judge: "rules" });
    expect(await evaluateItem(fixed("qa", "qa", () => 1.5), item())).toMatchObject({ status: "error", score: null, error: "the evaluator produced the score 1.5, outside [0, 1]" });
    expect(await evaluateItem(fixed("qa", "qa", () => Number.NaN), item())).toMatchObject({ status: "error" });
  });

  it("times each item with the injected clock and tags conversation turns", async () => {
    let t = 100;
    const r = await evaluateItem(fixed("qa", "qa", () => 1), turn("c", "t2", 1, ["qa"]), () => (t += 7));
    expect(r).toMatchObject({ latencyMs: 7, conversationId: "c", turnId: "t2" });
  });

  it("averages over scored items only, with the counts and sub-scores beside", async () => {
    const items = [item({ id: "a" }), item({ id: "b" }), item({ id: "c", methods: ["report"] }), item({ id: "d" })];
    const ev: Evaluator = {
      ...fixed("qa", "qa", () => 0),
      async score(i) {
        if (i.id === "d") return { status: "error", error: "judge gave up" };
        return { status: "scored", score: i.id === "a" ? 1 : 0.5, reasoning: "", reason: "", judge: "rules", subScores: { vlm_field: i.id === "a" ? 0.2 : null } };
      },
    };
    const progress: [number, number][] = [];
    const run = await runEvaluation({ items, evaluators: [ev], concurrency: 2, onProgress: (d, n) => progress.push([d, n]) });
    expect(run.evaluators[0]!.summary).toEqual({ averageScore: 0.75, nItems: 4, nScored: 2, nSkipped: 1, nError: 1, subScores: { vlm_field: 0.2 } });
    expect(run.nErrors).toBe(1);
    expect(run.evaluators[0]!.items.map((r) => r.id)).toEqual(["a", "b", "c", "d"]);
    expect(progress.at(-1)).toEqual([4, 4]);
    expect(summarize([])).toMatchObject({ averageScore: null, nItems: 0 });
  });
});
