/**
 * Kendall's τ-b against values worked out by hand (pairs counted below each case), ties in
 * either ranking and in both, and the cases where it is undefined.
 */
import { describe, expect, it } from "vitest";
import { kendallTauB } from "@/lib/aggregate/kendall-tau";

describe("kendallTauB", () => {
  it("is 1 for the same order and −1 for the reversed order", () => {
    expect(kendallTauB([4, 3, 2, 1], [40, 30, 20, 10])).toBe(1);
    expect(kendallTauB([4, 3, 2, 1], [10, 20, 30, 40])).toBe(-1);
  });

  it("counts concordant and discordant pairs without ties: (C − D) / n₀", () => {
    // x: a>b>c>d; y swaps b and c. Of 6 pairs only (b, c) is discordant: (5 − 1) / 6.
    expect(kendallTauB([4, 3, 2, 1], [4, 2, 3, 1])).toBeCloseTo(4 / 6, 12);
    // y: c, a, d, b (values 3, 1, 4, 2 for a..d): concordant (a,b) (a,d) (c,d) = 3; discordant (a,c) (b,c) (b,d) = 3.
    expect(kendallTauB([4, 3, 2, 1], [3, 1, 4, 2])).toBe(0);
  });

  it("corrects for ties in one ranking: (C − D) / √((n₀ − n₁) n₀)", () => {
    // x ties a and b. Pairs: (a,b) tied in x; the other 5 concordant. n₀ = 6, n₁ = 1, n₂ = 0.
    expect(kendallTauB([3, 3, 2, 1], [4, 3, 2, 1])).toBeCloseTo(5 / Math.sqrt(5 * 6), 12);
  });

  it("corrects for ties in both rankings, a pair tied in both counted in n₁ and n₂", () => {
    // The rejudge fixture's board: old overall a 100, b 100, c 70, d 100; new a 100, b 60, c 100, d 60.
    // (a,b) (a,d) (b,d) tied in x: n₁ = 3; (a,c) (b,d) tied in y: n₂ = 2 ((b,d) in both);
    // (b,c) and (c,d) discordant, none concordant: −2 / √(3 · 4).
    expect(kendallTauB([100, 100, 70, 100], [100, 60, 100, 60])).toBeCloseTo(-2 / Math.sqrt(12), 12);
    // Ranks 1, 1, 3 against 2, 1, 1 (lower is better in both): (a,b) x-tied, (b,c) y-tied, (a,c) discordant.
    expect(kendallTauB([1, 1, 3], [2, 1, 1])).toBeCloseTo(-1 / Math.sqrt(2 * 2), 12);
  });

  it("is undefined (null) for fewer than two entries or a ranking that ties everyone", () => {
    expect(kendallTauB([], [])).toBeNull();
    expect(kendallTauB([5], [7])).toBeNull();
    expect(kendallTauB([1, 1, 1], [3, 2, 1])).toBeNull();
    expect(kendallTauB([3, 2, 1], [0, 0, 0])).toBeNull();
    // Two entries: defined, and ±1.
    expect(kendallTauB([2, 1], [1, 2])).toBe(-1);
  });

  it("refuses rankings of different lengths", () => {
    expect(() => kendallTauB([1, 2], [1])).toThrow(RangeError);
  });
});
