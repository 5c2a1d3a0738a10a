/**
 * Aggregation of a run of k trials against hand-computed numbers: the mean over trials per
 * capability and overall, pass^k, the spread (sample sd) across trials, the two-level bootstrap
 * (items, then each item's trials), and the one-trial case, which must be the board's
 * aggregation exactly as it was before trials existed.
 */
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { aggregate, aggregateTrials, type ScoredItem, type TrialScoredItem } from "@/lib/aggregate/aggregate";
import { createRng } from "@/lib/aggregate/rng";
import { sampleSd } from "@/lib/aggregate/trials";
import { passes } from "@/lib/scoring/outcome";
import type { ItemStatus } from "@/lib/scoring/item-result";

function at(trial: number, capability: string, domain: string, uuid: string, weight: number, score: number, status: ItemStatus = "scored"): TrialScoredItem {
  return { trial, capability, domain, uuid, weight, score, status };
}

/**
 * Two capabilities, three trials.
 *   A (domain x): a1 weight 1 scores 1, 1, 1; a2 weight 2 scores 1, 0, 0.5.
 *     Trials: (1 + 2)/3 = 100, (1 + 0)/3 = 33.33…, (1 + 1)/3 = 66.66… → mean 66.66…;
 *     per-item means 1 and 0.5 → (1 + 2·0.5)/3 = 66.66…, the same.
 *     sd: deviations 33.33, −33.33, 0 → √(2·33.33²/2) = 33.33…; pass^3: a1 only, 1/3 → 33.33….
 *   B: b1 (y) weight 1 scores 1, 1, 0; b2 (y) weight 1 scores 0, 1, 1; b3 (z) weight 2 missing in every trial.
 *     Trials: 1/4 = 25, 2/4 = 50, 1/4 = 25 → mean 33.33…; per-item means 2/3, 2/3, 0 → (4/3)/4, the same.
 *     sd: deviations −8.33, 16.67, −8.33 → √(416.67/2) = 14.43…; pass^3: none → 0.
 *   Overall: (66.67 + 33.33)/2 = 50; per trial (100 + 25)/2 = 62.5, (33.33 + 50)/2 = 41.67,
 *     (66.67 + 25)/2 = 45.83, whose mean is 50 and sd √((12.5² + 8.33² + 4.17²)/2) = 11.02…;
 *     pass^3 (33.33 + 0)/2 = 16.67.
 */
const A = [
  [1, 1, 1],
  [1, 0, 0.5],
];
const B = [
  [1, 1, 0],
  [0, 1, 1],
];
function handItems(): TrialScoredItem[] {
  const items: TrialScoredItem[] = [];
  for (const trial of [1, 2, 3]) {
    items.push(at(trial, "A", "x", "a1", 1, A[0]![trial - 1]!), at(trial, "A", "x", "a2", 2, A[1]![trial - 1]!));
    items.push(at(trial, "B", "y", "b1", 1, B[0]![trial - 1]!), at(trial, "B", "y", "b2", 1, B[1]![trial - 1]!), at(trial, "B", "z", "b3", 2, 0, "missing"));
  }
  return items;
}

describe("aggregateTrials: hand-computed figures (2 capabilities, weights 1 and 2, 3 trials, a missing item)", () => {
  const agg = aggregateTrials(["A", "B"], new Set(["A", "B"]), handItems(), 3, { iterations: 200 });

  it("scores each capability as the mean of its trial scores, which is the weighted mean of per-item means", () => {
    expect(agg.trials.capabilities.A!.perTrial).toEqual([100, 100 / 3, 200 / 3].map((x) => expect.closeTo(x, 10)));
    expect(agg.trials.capabilities.B!.perTrial).toEqual([25, 50, 25]);
    expect(agg.capabilities.A!.score).toBeCloseTo(200 / 3, 10);
    expect(agg.capabilities.B!.score).toBeCloseTo(100 / 3, 10);
    // The weighted mean of each item's mean over its trials, computed apart.
    const perItem = (rows: number[][], weights: number[]) => (100 * rows.reduce((s, r, i) => s + weights[i]! * (r.reduce((a, b) => a + b, 0) / r.length), 0)) / weights.reduce((a, b) => a + b, 0);
    expect(agg.capabilities.A!.score).toBeCloseTo(perItem(A, [1, 2]), 10);
    expect(agg.capabilities.B!.score).toBeCloseTo(perItem([...B, [0, 0, 0]], [1, 1, 2]), 10);
  });

  it("takes the overall as the plain mean of capability scores, and of each trial's", () => {
    expect(agg.overall.score).toBeCloseTo(50, 10);
    expect(agg.trials.overall.perTrial).toEqual([62.5, 125 / 3, 137.5 / 3].map((x) => expect.closeTo(x, 10)));
    expect(agg.overall.complete).toBe(true);
  });

  it("gives pass^k as the weighted share of items with full marks in all k trials", () => {
    expect(agg.trials.capabilities.A).toMatchObject({ passK: expect.closeTo(100 / 3, 10), nPassK: 1, nItems: 2 });
    expect(agg.trials.capabilities.B).toMatchObject({ passK: 0, nPassK: 0, nItems: 3 });
    expect(agg.trials.overall.passK).toBeCloseTo(50 / 3, 10);
    expect(agg.trials.k).toBe(3);
  });

  it("gives the run-to-run spread as the sample sd across trials", () => {
    expect(agg.trials.capabilities.A!.sd).toBeCloseTo(100 / 3, 10);
    expect(agg.trials.capabilities.B!.sd).toBeCloseTo(Math.sqrt(((25 - 100 / 3) ** 2 * 2 + (50 - 100 / 3) ** 2) / 2), 10);
    expect(agg.trials.capabilities.B!.sd).toBeCloseTo(14.4338, 4);
    expect(agg.trials.overall.sd).toBeCloseTo(11.0240, 4);
  });

  it("counts item-trials, the missing item once per trial, and takes domain scores as the mean over trials", () => {
    expect(agg.capabilities.B).toMatchObject({ nItems: 9, nMissing: 3, statusCounts: { scored: 6, missing: 3 } });
    expect(agg.capabilities.A!.nItems).toBe(6);
    // y: per trial (100·1)/2, 100·2/2, 100·1/2 → 66.67; z: the missing item, 0.
    expect(agg.capabilities.B!.domains).toEqual({ y: { score: expect.closeTo(200 / 3, 10), nItems: 6 }, z: { score: 0, nItems: 3 } });
  });

  it("counts a capability not submitted 0, in its trials, pass^k and the overall", () => {
    const partial = aggregateTrials(["A", "B"], new Set(["A"]), handItems(), 3, { iterations: 50 });
    expect(partial.capabilities.B).toMatchObject({ score: 0, submitted: false, ciLow: 0, ciHigh: 0 });
    expect(partial.trials.capabilities.B).toMatchObject({ perTrial: [0, 0, 0], sd: 0, passK: 0 });
    expect(partial.overall).toMatchObject({ score: expect.closeTo(100 / 3, 10), complete: false });
    expect(partial.trials.overall.passK).toBeCloseTo(50 / 3, 10);
  });

  it("counts an item a trial has no row for 0 in that trial", () => {
    const gappy = handItems().filter((i) => !(i.uuid === "a1" && i.trial === 2));
    const g = aggregateTrials(["A", "B"], new Set(["A", "B"]), gappy, 3, { iterations: 50 });
    expect(g.trials.capabilities.A!.perTrial[1]).toBe(0);
    expect(g.trials.capabilities.A!.nPassK).toBe(0);
  });

  it("refuses a trial count that is not a positive whole number", () => {
    for (const k of [0, -1, 1.5, Number.NaN]) expect(() => aggregateTrials(["A"], new Set(["A"]), [], k)).toThrow(RangeError);
  });
});

describe("sampleSd and passes", () => {
  it("divides by n − 1 and has no spread for one value", () => {
    expect(sampleSd([2, 4, 4, 4, 5, 5, 7, 9])).toBeCloseTo(2.13809, 5);
    expect(sampleSd([3])).toBeNull();
    expect(sampleSd([])).toBeNull();
    expect(sampleSd([5, 5])).toBe(0);
  });

  it("passes full marks only (the item table's lost points are below 1)", () => {
    expect([1, 0.9999999999, 0.999, 0.5, 0].map(passes)).toEqual([true, true, false, false, false]);
  });
});

describe("the two-level bootstrap", () => {
  it("is deterministic for a seed and moves with it", () => {
    const { items } = randomRun();
    const a = aggregateTrials(["A"], new Set(["A"]), items, 4, { seed: 11 });
    const b = aggregateTrials(["A"], new Set(["A"]), items, 4, { seed: 11 });
    const c = aggregateTrials(["A"], new Set(["A"]), items, 4, { seed: 12 });
    expect(b).toEqual(a);
    expect([c.overall.ciLow, c.overall.ciHigh]).not.toEqual([a.overall.ciLow, a.overall.ciHigh]);
    expect(a.overall.ciLow).toBeLessThanOrEqual(a.overall.score);
    expect(a.overall.ciHigh).toBeGreaterThanOrEqual(a.overall.score);
  });

  it("resamples each item's trials: one item that passes half its trials has a wide interval, one that passes all has none", () => {
    const one = (scores: number[]) => scores.map((score, t) => at(t + 1, "A", "x", "only", 1, score));
    // With one item, resampling items changes nothing: only the draw of its trials can move the score.
    const mixed = aggregateTrials(["A"], new Set(["A"]), one([1, 0, 1, 0]), 4);
    expect(mixed.capabilities.A!.score).toBe(50);
    // Four draws from {1, 0, 1, 0} are all 0 (or all 1) one time in 16, more than the 2.5% tails.
    expect([mixed.capabilities.A!.ciLow, mixed.capabilities.A!.ciHigh]).toEqual([0, 100]);
    const steady = aggregateTrials(["A"], new Set(["A"]), one([1, 1, 1, 1]), 4);
    expect([steady.capabilities.A!.ciLow, steady.capabilities.A!.ciHigh]).toEqual([100, 100]);
    // The same mean as one trial of score 0.5: no trials to resample, no width.
    const flat = aggregateTrials(["A"], new Set(["A"]), [at(1, "A", "x", "only", 1, 0.5)], 1);
    expect([flat.capabilities.A!.ciLow, flat.capabilities.A!.ciHigh]).toEqual([50, 50]);
  });
});

/** 40 items of weight 1–3 in 4 trials, scores 1, 0 or 0.25, from a seed. */
function randomRun() {
  const rng = createRng(99);
  const items: TrialScoredItem[] = [];
  const weights = Array.from({ length: 40 }, () => 1 + Math.floor(rng() * 3));
  const scores = weights.map(() => Array.from({ length: 4 }, (): number => (rng() < 0.6 ? 1 : rng() < 0.5 ? 0 : 0.25)));
  for (let t = 1; t <= 4; t++) weights.forEach((w, i) => items.push(at(t, "A", "x", `i${i}`, w, scores[i]![t - 1]!)));
  return { items, weights, scores };
}

/** A seeded dataset of one trial: five capabilities (one not submitted, one empty), every status, weights 1–3. */
function pinnedDataset(): ScoredItem[] {
  const STATUSES = ["scored", "scored", "scored", "missing", "agent_error", "judge_error", "replay_error"] as const;
  const rng = createRng(7);
  const out: ScoredItem[] = [];
  for (const [cap, n] of [["a", 37], ["b", 50], ["c", 1], ["d", 12], ["e", 0]] as const) {
    for (let i = 0; i < n; i++) {
      const status = STATUSES[Math.floor(rng() * STATUSES.length)]!;
      const r = rng();
      const score = status !== "scored" ? 0 : r < 0.45 ? 1 : r < 0.8 ? 0 : Math.round(r * 1000) / 1000;
      out.push({ capability: cap, domain: `d${Math.floor(rng() * 3)}`, weight: 1 + Math.floor(rng() * 3), score, status, ...(rng() < 0.2 ? { policy: rng() < 0.5 ? "unchecked" : "pass" } : {}) });
    }
  }
  return out;
}

describe("one trial is the board's aggregation as before", () => {
  const ids = ["a", "b", "c", "d", "e"];
  const submitted = new Set(["a", "b", "c", "e"]);
  const sha = (v: unknown) => createHash("sha256").update(JSON.stringify(v)).digest("hex");

  // Digests of aggregate()'s output on this dataset, taken before trials were added (commit 67430be).
  it("gives, number for number, what aggregate() gave before trials", () => {
    expect(sha(aggregate(ids, submitted, pinnedDataset()))).toBe("840e52628c29f251fdb4957e083761d4c904457356492acada33052ed55ca7e3");
    expect(sha(aggregate(ids, submitted, pinnedDataset(), { seed: 5, iterations: 300 }))).toBe("4487addc26645e9f1b420118de1e89c9b6d377256864539e52d797fcdbc18660");
  });

  it("aggregateTrials with k = 1 equals aggregate(), plus trial stats with no spread and pass^1", () => {
    const items = pinnedDataset();
    const { trials, ...one } = aggregateTrials(ids, submitted, items.map((it, i) => ({ ...it, uuid: `u${i}`, trial: 1 })), 1);
    expect(one).toEqual(aggregate(ids, submitted, items));
    expect(trials.overall.sd).toBeNull();
    expect(trials.overall.perTrial).toEqual([one.overall.score]);
    for (const id of ids) expect(trials.capabilities[id]!.perTrial).toEqual([one.capabilities[id]!.score]);
    // Capability b's pass^1: the weighted share of its items with full marks.
    const b = items.filter((i) => i.capability === "b");
    const share = (100 * b.reduce((s, i) => s + (i.score === 1 ? i.weight : 0), 0)) / b.reduce((s, i) => s + i.weight, 0);
    expect(trials.capabilities.b!.passK).toBeCloseTo(share, 10);
    expect(trials.capabilities.d!.passK).toBe(0);
  });

  it("keeps k trials' capability score the weighted mean of per-item means on a larger random run", () => {
    const { items, weights, scores } = randomRun();
    const agg = aggregateTrials(["A"], new Set(["A"]), items, 4, { iterations: 10 });
    const W = weights.reduce((a, b) => a + b, 0);
    const expected = (100 * weights.reduce((s, w, i) => s + (w * scores[i]!.reduce((a, b) => a + b, 0)) / 4, 0)) / W;
    expect(agg.capabilities.A!.score).toBeCloseTo(expected, 9);
    const solved = weights.reduce((s, w, i) => s + (scores[i]!.every((x) => x === 1) ? w : 0), 0);
    expect(agg.trials.capabilities.A!.passK).toBeCloseTo((100 * solved) / W, 9);
    expect(agg.trials.capabilities.A!.passK).toBeLessThan(agg.capabilities.A!.score);
  });
});
