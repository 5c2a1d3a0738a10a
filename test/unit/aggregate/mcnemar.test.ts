import { describe, expect, it } from "vitest";
import { mcnemarExact } from "@/lib/aggregate/mcnemar";

describe("mcnemarExact", () => {
  it("gives the hand-computed two-sided binomial p-values", () => {
    // 2 · P(X ≤ 0), X ~ Bin(6, ½) = 2/64.
    expect(mcnemarExact(0, 6).pValue).toBeCloseTo(0.03125, 12);
    expect(mcnemarExact(6, 0).pValue).toBeCloseTo(0.03125, 12);
    // 2 · (1 + 6) / 64.
    expect(mcnemarExact(1, 5).pValue).toBeCloseTo(14 / 64, 12);
    // 2 · (1 + 10 + 45) / 1024.
    expect(mcnemarExact(2, 8).pValue).toBeCloseTo(112 / 1024, 12);
    // 2 · 1/32 = 0.0625: five against none is not yet significant at 0.05.
    expect(mcnemarExact(5, 0).pValue).toBeCloseTo(0.0625, 12);
  });

  it("caps at 1 and says 1 when nothing flipped", () => {
    expect(mcnemarExact(3, 3).pValue).toBe(1);
    expect(mcnemarExact(0, 0)).toEqual({ b: 0, c: 0, pValue: 1 });
    expect(mcnemarExact(4, 5).pValue).toBe(1);
  });

  it("stays finite and ordered for tens of thousands of items", () => {
    const even = mcnemarExact(20_000, 20_000).pValue;
    expect(even).toBe(1);
    const slight = mcnemarExact(10_000, 10_300).pValue;
    expect(slight).toBeGreaterThan(0);
    expect(slight).toBeLessThan(0.05);
    expect(mcnemarExact(10_000, 10_100).pValue).toBeGreaterThan(slight);
    expect(mcnemarExact(0, 5_000).pValue).toBe(0);
  });

  it("refuses counts that are not whole numbers", () => {
    expect(() => mcnemarExact(-1, 2)).toThrow(RangeError);
    expect(() => mcnemarExact(1.5, 2)).toThrow(RangeError);
  });
});
