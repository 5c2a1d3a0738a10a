/**
 * Reading a run's stored cost summary for pages: what is not what we wrote reads as unknown;
 * the board's four numbers are rounded. (From bundle to page on a database: page-queries.test.ts.)
 */
import { describe, expect, it } from "vitest";
import { entryCost, readRunCost } from "@/lib/queries/entry-cost";

describe("readRunCost", () => {
  it("keeps only the numbers it finds where it expects them", () => {
    expect(readRunCost(null)).toBeNull();
    expect(readRunCost("cheap")).toBeNull();
    expect(readRunCost({ items: "many", latency: { n: 2, medianS: "fast", p95S: 3 }, usage: { source: "guess", costUsd: 1 } })).toEqual({ items: 0, latency: null, usage: null });
    expect(readRunCost({ items: 3, latency: { n: 3, medianS: 1, p95S: 2 }, usage: { source: "records", records: 3, inputTokens: -1, outputTokens: null, totalTokens: Infinity, costUsd: 0.5 } })).toEqual({
      items: 3,
      latency: { n: 3, medianS: 1, p95S: 2, meanS: 1 },
      usage: { source: "records", records: 3, inputTokens: null, outputTokens: null, totalTokens: null, costUsd: 0.5 },
    });
  });

  it("gives the board its four numbers, rounded, and nulls for a run without a summary", () => {
    expect(entryCost(null)).toEqual({ latencyMedianS: null, latencyP95S: null, totalTokens: null, costUsd: null });
    expect(entryCost({ items: 2, latency: { n: 2, medianS: 1.23456, p95S: 9.87654, meanS: 2 }, usage: { source: "records", records: 2, inputTokens: 1, outputTokens: 2, totalTokens: 3, costUsd: 0.12345678 } })).toEqual({
      latencyMedianS: 1.23,
      latencyP95S: 9.88,
      totalTokens: 3,
      costUsd: 0.123457,
    });
  });
});
