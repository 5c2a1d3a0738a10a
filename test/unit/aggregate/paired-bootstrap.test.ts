import { describe, expect, it } from "vitest";
import { aggregate, type ScoredItem } from "@/lib/aggregate/aggregate";
import { pairedBootstrap, pairedDifference, resampleEntry, resamplePlan, significantlyBetter, stratifiedPairedBootstrap, type PairedItem } from "@/lib/aggregate/paired-bootstrap";
import { createRng } from "@/lib/aggregate/rng";

describe("pairedBootstrap", () => {
  it("finds a consistent gap significant and a coin flip not", () => {
    const better = Array.from({ length: 200 }, (_, i) => ({ weight: 1, a: i % 10 < 8 ? 1 : 0, b: i % 10 < 5 ? 1 : 0 }));
    const r = pairedBootstrap(better);
    expect(r.diff).toBeCloseTo(30, 6);
    expect(r.significant).toBe(true);
    expect(r.ciLow).toBeGreaterThan(0);
    const noise = Array.from({ length: 40 }, (_, i) => ({ weight: 1, a: i % 2, b: (i + 1) % 2 }));
    const q = pairedBootstrap(noise);
    expect(q.diff).toBe(0);
    expect(q.significant).toBe(false);
    expect(q.ciLow).toBeLessThan(0);
    expect(q.ciHigh).toBeGreaterThan(0);
  });

  it("weights items and is reproducible for a seed", () => {
    const items = [
      { weight: 2, a: 1, b: 0 },
      { weight: 1, a: 0, b: 1 },
    ];
    expect(pairedBootstrap(items).diff).toBeCloseTo((100 * (2 - 1)) / 3, 6);
    expect(pairedBootstrap(items, { seed: 5 })).toEqual(pairedBootstrap(items, { seed: 5 }));
    expect(pairedBootstrap([])).toMatchObject({ diff: 0, significant: false, nItems: 0 });
  });
});

/** `n` items with scores drawn from a seeded generator, so the tests need no fixtures. */
function scores(n: number, seed: number): number[] {
  const rng = createRng(seed);
  return Array.from({ length: n }, () => (rng() < 0.6 ? 1 : rng() < 0.5 ? 0 : Math.round(rng() * 100) / 100));
}

describe("stratifiedPairedBootstrap (the overall difference)", () => {
  it("gives identical entries a difference of exactly 0, never significant", () => {
    const strata = [30, 12, 1].map((n, k) => ({ id: `c${k}`, items: scores(n, k + 1).map((s) => ({ weight: 1 + (k % 2), a: s, b: s })) }));
    const r = stratifiedPairedBootstrap(strata);
    expect(r.overall).toEqual({ diff: 0, ciLow: 0, ciHigh: 0, significant: false, nItems: 43 });
    for (const k of ["c0", "c1", "c2"]) expect(r.strata[k]).toMatchObject({ diff: 0, ciLow: 0, ciHigh: 0, significant: false });
  });

  it("finds an entry better on every item significant, with the hand-computed difference", () => {
    // Capability 1: 1 vs 0 on every item (100 points); capability 2: 0.8 vs 0.5 (30 points). Overall: (100 + 30) / 2.
    const strata = [
      { id: "one", items: Array.from({ length: 20 }, () => ({ weight: 1, a: 1, b: 0 })) },
      { id: "two", items: Array.from({ length: 10 }, (_, i) => ({ weight: 1 + (i % 3), a: 0.8, b: 0.5 })) },
    ];
    const r = stratifiedPairedBootstrap(strata);
    expect(r.overall.diff).toBeCloseTo(65, 9);
    // Every resample of every capability has the same difference, so the interval is that point
    // (the overall's resamples are kept in single precision: 1e-5 points).
    expect(r.overall.ciLow).toBeCloseTo(65, 4);
    expect(r.overall.ciHigh).toBeCloseTo(65, 4);
    expect(r.overall.significant).toBe(true);
    expect(r.strata.one).toMatchObject({ diff: 100, significant: true, nItems: 20 });
    expect(r.strata.two!.diff).toBeCloseTo(30, 9);
    // And swapped: significantly worse.
    const swapped = stratifiedPairedBootstrap(strata.map((s) => ({ ...s, items: s.items.map((i) => ({ ...i, a: i.b, b: i.a })) })));
    expect(swapped.overall.diff).toBeCloseTo(-65, 9);
    expect(swapped.overall.ciHigh).toBeLessThan(0);
    expect(swapped.overall.significant).toBe(true);
  });

  it("averages capability differences (weighted within each), a capability without items counting 0", () => {
    const r = stratifiedPairedBootstrap([
      {
        id: "a",
        items: [
          { weight: 2, a: 1, b: 0 },
          { weight: 1, a: 0, b: 1 },
        ],
      },
      { id: "b", items: [{ weight: 1, a: 1, b: 1 }] },
      { id: "c", items: [] },
    ]);
    expect(r.strata.a!.diff).toBeCloseTo(100 / 3, 9);
    expect(r.strata.c).toEqual({ diff: 0, ciLow: 0, ciHigh: 0, significant: false, nItems: 0 });
    expect(r.overall.diff).toBeCloseTo(100 / 9, 9);
    expect(r.overall.nItems).toBe(3);
  });

  it("resamples within each capability, never across them", () => {
    // Pooled, a resample could draw only the 100 tied items; within capabilities the 2 decisive ones are always there.
    const r = stratifiedPairedBootstrap([
      { id: "decisive", items: [{ weight: 1, a: 1, b: 0 }, { weight: 1, a: 1, b: 0 }] },
      { id: "tied", items: Array.from({ length: 100 }, () => ({ weight: 1, a: 0, b: 0 })) },
    ]);
    expect([r.overall.diff, r.overall.ciLow, r.overall.ciHigh]).toEqual([50, 50, 50]);
    const pooled = pairedBootstrap([{ weight: 1, a: 1, b: 0 }, { weight: 1, a: 1, b: 0 }, ...Array.from({ length: 100 }, () => ({ weight: 1, a: 0, b: 0 }))]);
    expect(pooled.ciLow).toBeLessThan(pooled.ciHigh);
  });

  it("is deterministic for a seed and moves with it", () => {
    const strata = [0, 1].map((k) => ({ id: `c${k}`, items: scores(40, 10 + k).map((s, i): PairedItem => ({ weight: 1, a: s, b: scores(40, 20 + k)[i]! })) }));
    expect(stratifiedPairedBootstrap(strata, { seed: 7 })).toEqual(stratifiedPairedBootstrap(strata, { seed: 7 }));
    expect(stratifiedPairedBootstrap(strata)).toEqual(stratifiedPairedBootstrap(strata));
    expect(stratifiedPairedBootstrap(strata, { seed: 7 }).overall.ciLow).not.toBe(stratifiedPairedBootstrap(strata, { seed: 8 }).overall.ciLow);
  });

  it("reproduces the board's own intervals (same seed, resamples and percentiles) against an entry scoring 0", () => {
    const caps = ["x", "y", "z"];
    const items: ScoredItem[] = caps.flatMap((c, k) => scores(15 + 10 * k, 30 + k).map((s, i) => ({ capability: c, domain: `d${i % 3}`, weight: 1 + (i % 2), score: s, status: "scored" as const })));
    const board = aggregate(caps, new Set(caps), items);
    const r = stratifiedPairedBootstrap(caps.map((c) => ({ id: c, items: items.filter((i) => i.capability === c).map((i) => ({ weight: i.weight, a: i.score, b: 0 })) })));
    expect(r.overall.diff).toBeCloseTo(board.overall.score, 9);
    // The same draws; sums in another order, and the overall in single precision.
    expect(r.overall.ciLow).toBeCloseTo(board.overall.ciLow, 4);
    expect(r.overall.ciHigh).toBeCloseTo(board.overall.ciHigh, 4);
    for (const c of caps) {
      expect(r.strata[c]!.ciLow).toBeCloseTo(board.capabilities[c]!.ciLow, 9);
      expect(r.strata[c]!.ciHigh).toBeCloseTo(board.capabilities[c]!.ciHigh, 9);
    }
  });

  it("equals the difference of the two entries' overall scores on the board", () => {
    const caps = ["x", "y"];
    const of = (seed: number) => caps.flatMap((c, k) => scores(25, seed + k).map((s, i) => ({ capability: c, domain: "d", weight: 1 + (i % 3), score: s, status: "scored" as const })));
    const [a, b] = [of(40), of(50)];
    const r = stratifiedPairedBootstrap(caps.map((c) => ({ id: c, items: a.filter((i) => i.capability === c).map((i, k) => ({ weight: i.weight, a: i.score, b: b.filter((j) => j.capability === c)[k]!.score })) })));
    expect(r.overall.diff).toBeCloseTo(aggregate(caps, new Set(caps), a).overall.score - aggregate(caps, new Set(caps), b).overall.score, 9);
  });
});

describe("significantlyBetter (the board's test)", () => {
  it("is exactly compare's verdict: significant with A ahead, on every pair of a plan", () => {
    const rng = createRng(3);
    const sizes = [25, 9, 40];
    const plan = resamplePlan(sizes.map((n, k) => ({ id: `c${k}`, weights: Array.from({ length: n }, (_, i) => 1 + (i % 3 === 0 ? 1 : 0)) })));
    // Entries near one another (shared item difficulty), so many pairs sit near the threshold.
    const difficulty = sizes.map((n) => Array.from({ length: n }, () => rng()));
    const entries = Array.from({ length: 40 }, () => {
      const skill = 0.3 + 0.4 * rng();
      return resampleEntry(
        plan,
        difficulty.map((items) => items.map((d) => (skill + 0.25 * (rng() - 0.5) > d ? 1 : rng() < 0.05 ? 0.5 : 0))),
      ).overall;
    });
    const counts = { better: 0, worse: 0, neither: 0 };
    for (const a of entries) {
      for (const b of entries) {
        const d = pairedDifference(a, b, 74);
        const expected = d.significant && d.diff > 0;
        expect(significantlyBetter(a, b)).toBe(expected);
        counts[expected ? "better" : d.significant ? "worse" : "neither"]++;
      }
    }
    expect(counts.better).toBe(counts.worse);
    expect(counts.better).toBeGreaterThan(100);
    expect(counts.neither).toBeGreaterThan(100);
  });

  it("resamples every entry of a plan alike: the difference of two entries' resamples is their paired bootstrap", () => {
    const a = scores(30, 61);
    const b = scores(30, 62);
    const plan = resamplePlan([{ id: "x", weights: a.map(() => 1) }]);
    const [ra, rb] = [resampleEntry(plan, [a], { strata: true }), resampleEntry(plan, [b], { strata: true })];
    const direct = stratifiedPairedBootstrap([{ id: "x", items: a.map((s, i) => ({ weight: 1, a: s, b: b[i]! })) }]);
    expect(pairedDifference(ra.strata![0]!, rb.strata![0]!, 30)).toEqual(direct.strata.x);
    expect(pairedDifference(ra.overall, rb.overall, 30)).toEqual(direct.overall);
  });
});
