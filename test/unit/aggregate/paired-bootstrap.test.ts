import { describe, expect, it } from "vitest";
import { pairedBootstrap } from "@/lib/aggregate/paired-bootstrap";

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
