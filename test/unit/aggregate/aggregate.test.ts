/** Aggregation: weighted capability scores and bootstrap intervals (ranks: rank.test.ts). */
import { describe, expect, it } from "vitest";
import { aggregate, type ScoredItem } from "../../../lib/aggregate/aggregate";
import type { ItemStatus } from "../../../lib/scoring/item-result";
import type { PolicyOutcome } from "../../../lib/scoring/verdict";

function item(capability: string, domain: string, weight: number, score: number, status: ItemStatus, policy?: PolicyOutcome): ScoredItem {
  return { capability, domain, weight, score, status, ...(policy ? { policy } : {}) };
}

// Capability a: Σw·s = 1·1 + 2·0.5 + 1·0 + 1·1 = 3, Σw = 5 → 60.
const A_ITEMS = [
  item("a", "d1", 1, 1, "scored"),
  item("a", "d1", 2, 0.5, "scored"),
  item("a", "d2", 1, 0, "missing"),
  item("a", "d2", 1, 1, "scored"),
];
// Capability b: 2 of 5 equally weighted items correct → 40.
const B_ITEMS = [
  item("b", "x", 1, 0, "agent_error"),
  item("b", "x", 1, 0, "judge_error"),
  item("b", "x", 1, 0, "replay_error"),
  item("b", "x", 1, 1, "scored", "unchecked"),
  item("b", "y", 1, 1, "scored", "pass"),
];
// Capability c: scores present but the capability is not submitted → 0.
const C_ITEMS = [item("c", "z", 1, 1, "scored"), item("c", "z", 1, 1, "scored")];
const ALL = [...A_ITEMS, ...B_ITEMS, ...C_ITEMS];

/** 40 items with varied scores and weights, for interval tests. */
function varied(capability: string): ScoredItem[] {
  return Array.from({ length: 40 }, (_, i) => item(capability, i % 2 ? "odd" : "even", 1 + (i % 3), ((i * 7) % 11) / 10, "scored"));
}

describe("aggregate: point scores", () => {
  const agg = aggregate(["a", "b", "c"], new Set(["a", "b"]), ALL, { seed: 1, iterations: 200 });

  it("weights items: a weight-2 item counts twice", () => {
    expect(agg.capabilities.a?.score).toBeCloseTo(60, 10);
    expect(agg.capabilities.a?.nItems).toBe(4);
  });

  it("missing items count 0 and are counted", () => {
    expect(agg.capabilities.a?.nMissing).toBe(1);
    expect(agg.capabilities.a?.statusCounts).toEqual({ scored: 3, missing: 1 });
    expect(agg.capabilities.b?.nMissing).toBe(0);
  });

  it("breaks scores down by domain (weighted)", () => {
    expect(agg.capabilities.a?.domains.d1?.score).toBeCloseTo((100 * 2) / 3, 10);
    expect(agg.capabilities.a?.domains.d1?.nItems).toBe(2);
    expect(agg.capabilities.a?.domains.d2).toEqual({ score: 50, nItems: 2 });
    expect(agg.capabilities.b?.domains).toEqual({ x: { score: 25, nItems: 4 }, y: { score: 100, nItems: 1 } });
  });

  it("counts agent, judge and replay errors, and unchecked policies", () => {
    expect(agg.capabilities.b?.score).toBeCloseTo(40, 10);
    expect(agg.capabilities.b?.nError).toBe(3);
    expect(agg.capabilities.b?.nPolicyUnchecked).toBe(1);
    expect(agg.capabilities.a?.nError).toBe(0);
    expect(agg.capabilities.a?.nPolicyUnchecked).toBe(0);
  });

  it("a capability not submitted scores 0, with a zero-width interval", () => {
    expect(agg.capabilities.c).toMatchObject({ score: 0, ciLow: 0, ciHigh: 0, submitted: false, nItems: 2 });
    expect(agg.capabilities.c?.domains).toEqual({ z: { score: 0, nItems: 2 } });
    expect(agg.capabilities.a?.submitted).toBe(true);
  });

  it("overall is the plain mean of capability scores and is incomplete", () => {
    expect(agg.overall.score).toBeCloseTo((60 + 40 + 0) / 3, 10);
    expect(agg.overall.complete).toBe(false);
  });

  it("overall is complete when every capability is submitted", () => {
    const full = aggregate(["a", "b", "c"], new Set(["a", "b", "c"]), ALL, { seed: 1, iterations: 200 });
    expect(full.overall.complete).toBe(true);
    expect(full.capabilities.c?.score).toBe(100);
    expect(full.overall.score).toBeCloseTo((60 + 40 + 100) / 3, 10);
  });

  it("overall is a plain mean, not weighted by item counts", () => {
    // One item at 100 vs ten items at 0: the plain mean is 50, the item mean would be 9.1.
    const items = [item("p", "d", 1, 1, "scored"), ...Array.from({ length: 10 }, () => item("q", "d", 1, 0, "scored"))];
    const r = aggregate(["p", "q"], new Set(["p", "q"]), items, { seed: 3, iterations: 100 });
    expect(r.overall.score).toBe(50);
  });

  it("a submitted capability with no items scores 0", () => {
    const r = aggregate(["a", "e"], new Set(["a", "e"]), A_ITEMS, { seed: 1, iterations: 50 });
    expect(r.capabilities.e).toMatchObject({ score: 0, ciLow: 0, ciHigh: 0, nItems: 0, submitted: true, domains: {} });
    expect(r.overall.score).toBeCloseTo(30, 10);
  });

  it("items of capabilities not listed are ignored", () => {
    const r = aggregate(["a"], new Set(["a"]), ALL, { seed: 1, iterations: 50 });
    expect(Object.keys(r.capabilities)).toEqual(["a"]);
    expect(r.overall.score).toBeCloseTo(60, 10);
  });
});

describe("aggregate: bootstrap intervals", () => {
  const items = [...varied("a"), ...varied("b").map((it) => ({ ...it, score: 1 - it.score }))];

  it("the interval contains the point estimate", () => {
    const r = aggregate(["a", "b"], new Set(["a", "b"]), items, { seed: 11 });
    for (const c of [r.capabilities.a!, r.capabilities.b!, r.overall]) {
      expect(c.ciLow).toBeLessThanOrEqual(c.score);
      expect(c.ciHigh).toBeGreaterThanOrEqual(c.score);
      expect(c.ciHigh - c.ciLow).toBeGreaterThan(0);
    }
  });

  it("has zero width when all scores are equal", () => {
    const equal = [1, 2, 3, 1, 2].map((w, i) => item("a", `d${i}`, w, 0.5, "scored"));
    const r = aggregate(["a"], new Set(["a"]), equal, { seed: 5 });
    expect(r.capabilities.a?.score).toBe(50);
    expect(r.capabilities.a?.ciLow).toBe(50);
    expect(r.capabilities.a?.ciHigh).toBe(50);
    expect(r.overall.ciHigh - r.overall.ciLow).toBe(0);
  });

  it("the same seed gives identical intervals", () => {
    const one = aggregate(["a", "b"], new Set(["a", "b"]), items, { seed: 42 });
    const two = aggregate(["a", "b"], new Set(["a", "b"]), items, { seed: 42 });
    expect(two).toEqual(one);
    // Without a seed the default seed is used: still reproducible.
    expect(aggregate(["a", "b"], new Set(["a", "b"]), items)).toEqual(aggregate(["a", "b"], new Set(["a", "b"]), items));
  });

  it("a different seed gives (here) different intervals but the same point scores", () => {
    const one = aggregate(["a", "b"], new Set(["a", "b"]), items, { seed: 1 });
    const two = aggregate(["a", "b"], new Set(["a", "b"]), items, { seed: 2 });
    expect(two.capabilities.a?.score).toBe(one.capabilities.a?.score);
    expect(two.overall.score).toBe(one.overall.score);
    const bounds = (r: typeof one) => [r.capabilities.a!.ciLow, r.capabilities.a!.ciHigh, r.capabilities.b!.ciLow, r.capabilities.b!.ciHigh, r.overall.ciLow, r.overall.ciHigh];
    expect(bounds(two)).not.toEqual(bounds(one));
  });

  it("the overall interval comes from the same resamples as the capability intervals", () => {
    // b is not submitted: its resamples are all 0, so overall = a / 2 in every resample.
    const r = aggregate(["a", "b"], new Set(["a"]), items, { seed: 9 });
    expect(r.capabilities.b).toMatchObject({ score: 0, ciLow: 0, ciHigh: 0 });
    expect(r.overall.ciLow).toBeCloseTo(r.capabilities.a!.ciLow / 2, 9);
    expect(r.overall.ciHigh).toBeCloseTo(r.capabilities.a!.ciHigh / 2, 9);
    expect(r.overall.ciHigh).toBeGreaterThan(r.overall.ciLow);
  });
});
