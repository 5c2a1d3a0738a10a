/** The board's entries packed for the browser come back as the same entries, in a fraction of the bytes. */
import { describe, expect, it } from "vitest";
import { packEntries, unpackEntries } from "@/components/leaderboard/packed-entries";
import type { LeaderboardEntry } from "@/lib/queries/types";

const caps = ["api_chaining", "tool_selection", "multiturn"];

function entry(i: number): LeaderboardEntry {
  return {
    id: 100 + i,
    rank: 1 + Math.floor(i / 3),
    agent: `agent ${i} <b>"quoted"</b>`,
    models: i % 2 ? ["gpt-x", "judge-y"] : [],
    maintainer: i % 3 ? "Lab" : "",
    overall: { score: 61.2345 + i, ciLow: 55.5, ciHigh: 66.0625, submitted: true, complete: i % 4 !== 0 },
    capabilities: {
      api_chaining: { score: 90.7, ciLow: 84, ciHigh: 97.3333, submitted: true },
      tool_selection: i % 4 === 0 ? { score: 0, ciLow: 0, ciHigh: 0, submitted: false } : { score: 80, ciLow: 70.6667, ciHigh: 88, submitted: true },
      multiturn: { score: 12.5, ciLow: 0, ciHigh: 30, submitted: true },
    },
    coverage: i % 4 === 0 ? 0.5 : 1,
    date: new Date(Date.UTC(2026, 10, 25, 8, i, 3, 123)).toISOString(),
    badges: { verified: i % 2 === 0, partial: i % 4 === 0, demo: i % 5 === 0, flagged: i % 3 === 1 },
    flags: i % 3 === 1 ? (i % 2 ? ["duplicate", "canary"] : ["unsupported_answers"]) : [],
    trials: i % 2 ? 4 : 1,
    passK: i % 2 ? { overall: 58.6125, capabilities: { api_chaining: 57.3333, multiturn: 49.1 } } : null,
    cost: i % 3 === 0 ? { costUsd: null, totalTokens: null, latencyMedianS: null, latencyP95S: null } : { costUsd: 4.48125, totalTokens: 1_203_456, latencyMedianS: 18.9, latencyP95S: 38.75 },
  };
}

describe("packed board entries", () => {
  const entries = Array.from({ length: 12 }, (_, i) => entry(i));

  it("unpack to the entries packed, every field", () => {
    expect(unpackEntries(JSON.parse(JSON.stringify(packEntries(entries, caps))))).toEqual(entries);
  });

  it("cut numbers only below what a view shows or sorts by", () => {
    const e = { ...entry(1), overall: { ...entry(1).overall, score: 85.23456789 }, cost: { ...entry(1).cost, costUsd: 0.0001234567 } };
    const [back] = unpackEntries(packEntries([e], caps));
    expect(back!.overall.score).toBe(85.2346);
    expect(back!.cost.costUsd).toBe(0.000123457);
  });

  it("weigh under half the objects' JSON", () => {
    const many = Array.from({ length: 200 }, (_, i) => entry(i));
    expect(JSON.stringify(packEntries(many, caps)).length).toBeLessThan(JSON.stringify(many).length / 2);
  });
});
