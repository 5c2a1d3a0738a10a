/** The board's chart data (Pareto front, cost axis, days) and the number formats of cells and charts. */
import { describe, expect, it } from "vitest";
import { bestOverTimeData, costChartData, distinctDays, logTicks, paretoFront, resolveCostAxis } from "@/components/charts/chart-data";
import { fmtInterval, fmtSeconds, fmtTokens, fmtUsd } from "@/components/leaderboard/format";
import type { EntryCost, LeaderboardEntry } from "@/lib/queries/types";

function entry(id: number, score: number, cost: Partial<EntryCost> = {}, over: Partial<LeaderboardEntry> = {}): LeaderboardEntry {
  return {
    id,
    rank: id,
    agent: `agent-${id}`,
    models: [],
    maintainer: "Lab",
    overall: { score, ciLow: score - 1, ciHigh: score + 1, submitted: true, complete: true },
    capabilities: {},
    coverage: 1,
    date: "2026-01-01T00:00:00.000Z",
    badges: { verified: true, partial: false, demo: false, flagged: false },
    flags: [],
    cost: { latencyMedianS: null, latencyP95S: null, totalTokens: null, costUsd: null, ...cost },
    trials: 1,
    passK: null,
    ...over,
  };
}

const front = (pts: [number, number][]) => paretoFront(pts.map(([x, y]) => ({ x, y })));

describe("paretoFront (lower x, higher y)", () => {
  it("keeps the points no other point beats on both", () => {
    // (1,10) cheapest; (2,50) better; (3,40) is beaten by (2,50); (5,90) best; (6,90) costs more for the same.
    expect(front([[3, 40], [1, 10], [5, 90], [2, 50], [6, 90]])).toEqual([false, true, true, true, false]);
  });

  it("keeps identical points both, and drops the worse of two at the same cost", () => {
    expect(front([[2, 70], [2, 70], [2, 60], [1, 20]])).toEqual([true, true, false, true]);
  });

  it("is the one point of one, and empty for none", () => {
    expect(front([[4, 4]])).toEqual([true]);
    expect(front([])).toEqual([]);
  });

  it("matches the definition on random points", () => {
    let seed = 7;
    const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    for (let round = 0; round < 50; round++) {
      const pts = Array.from({ length: 12 }, () => ({ x: Math.floor(rnd() * 6), y: Math.floor(rnd() * 6) }));
      const beaten = (p: { x: number; y: number }) => pts.some((q) => q.x <= p.x && q.y >= p.y && (q.x < p.x || q.y > p.y));
      expect(paretoFront(pts)).toEqual(pts.map((p) => !beaten(p)));
    }
  });
});

describe("costChartData", () => {
  const demo = [
    entry(1, 100, { costUsd: 38, latencyMedianS: 30 }),
    entry(2, 85.2, { costUsd: 7, latencyMedianS: 20 }),
    entry(3, 79.4, { costUsd: 9, latencyMedianS: 25 }),
    entry(4, 42.7, { costUsd: 2, latencyMedianS: 10 }, { badges: { verified: true, partial: true, demo: false, flagged: false } }),
    entry(5, 29.7, { costUsd: 0.4, latencyMedianS: 5 }),
    entry(6, 2.9, { costUsd: 1.5, latencyMedianS: 40 }),
    entry(7, 50, { latencyMedianS: 12 }),
  ];

  it("draws the entries that report a cost, with the front cheapest first; partial entries never on it", () => {
    const d = costChartData(demo, "cost");
    expect(d.points.map((p) => p.agent)).toEqual(["agent-1", "agent-2", "agent-3", "agent-4", "agent-5", "agent-6"]);
    expect(d.front.map((p) => [p.agent, p.x, p.y])).toEqual([
      ["agent-5", 0.4, 29.7],
      ["agent-2", 7, 85.2],
      ["agent-1", 38, 100],
    ]);
    // agent-4 (partial) would beat agent-6 and sit on the front: it is drawn, not compared.
    expect(d.points.find((p) => p.id === 4)).toMatchObject({ partial: true, front: false });
    expect(d.unknown).toBe(1);
  });

  it("uses median latency on the latency axis, where every entry here reports one", () => {
    const d = costChartData(demo, "latency");
    expect(d.unknown).toBe(0);
    expect(d.front.map((p) => p.agent)).toEqual(["agent-5", "agent-7", "agent-2", "agent-1"]);
  });

  it("is empty without values, and one entry is its own front", () => {
    expect(costChartData([entry(1, 50)], "cost")).toEqual({ axis: "cost", points: [], front: [], unknown: 1 });
    expect(costChartData([entry(1, 50, { costUsd: 0 })], "cost").front.map((p) => p.id)).toEqual([1]);
  });

  it("chooses cost when any entry reports one, latency otherwise, unless the reader chose", () => {
    expect(resolveCostAxis(demo, "auto")).toBe("cost");
    expect(resolveCostAxis([entry(1, 5, { latencyMedianS: 3 })], "auto")).toBe("latency");
    expect(resolveCostAxis([entry(1, 5, { latencyMedianS: 3 })], "cost")).toBe("cost");
    expect(resolveCostAxis(demo, "latency")).toBe("latency");
  });
});

describe("best over time: enough dates to draw", () => {
  it("counts UTC days, so entries scored minutes apart are one day (too little to draw)", () => {
    const sameDay = [entry(1, 10, {}, { date: "2026-11-25T07:49:01.000Z" }), entry(2, 90, {}, { date: "2026-11-25T07:49:40.000Z" })];
    expect(distinctDays(bestOverTimeData(sameDay))).toBe(1);
    const twoDays = [entry(1, 90, {}, { date: "2026-11-24T23:59:00.000Z" }), entry(2, 10, {}, { date: "2026-11-25T00:01:00.000Z" })];
    // The record stands, and the line reaches the newer entry's day.
    expect(distinctDays(bestOverTimeData(twoDays))).toBe(2);
    expect(distinctDays([])).toBe(0);
  });
});

describe("formats", () => {
  it("shows ±h where the interval is symmetric after rounding, [low, high] where it is not", () => {
    expect(fmtInterval(85.2, 81.2, 89.2)).toBe("±4.0");
    expect(fmtInterval(85.24, 81.2, 89.26)).toBe("±4.0");
    expect(fmtInterval(85.2, 81.0, 89.1)).toBe("[81.0, 89.1]");
    expect(fmtInterval(100, 100, 100)).toBe("±0.0");
    expect(fmtInterval(99.5, 97.0, 100)).toBe("[97.0, 100.0]");
    // A score outside its own interval can happen with a bootstrap: never a negative ±.
    expect(fmtInterval(50, 51, 49)).toBe("[51.0, 49.0]");
  });

  it("writes dollars, tokens and seconds compactly, and — when unknown", () => {
    expect([fmtUsd(38.2), fmtUsd(0.0042), fmtUsd(0), fmtUsd(1204.4), fmtUsd(null)]).toEqual(["$38.20", "$0.0042", "$0", "$1,204", "—"]);
    expect([fmtTokens(950), fmtTokens(12_345), fmtTokens(999_999), fmtTokens(4_560_000), fmtTokens(1.2e9), fmtTokens(null)]).toEqual(["950", "12.3k", "1M", "4.56M", "1.2B", "—"]);
    expect([fmtSeconds(1.254), fmtSeconds(12.34), fmtSeconds(184.4), fmtSeconds(null)]).toEqual(["1.25\u00a0s", "12.3\u00a0s", "184\u00a0s", "—"]);
  });
});

describe("logTicks", () => {
  it("spans the values with 1-2-5 steps, bounded by the ticks around them", () => {
    expect(logTicks(0.158, 28.35)).toEqual([0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50]);
    expect(logTicks(0.19, 5.11)).toEqual([0.1, 0.2, 0.5, 1, 2, 5, 10]);
    expect(logTicks(1, 1)).toEqual([1]);
    expect(logTicks(2, 3)).toEqual([2, 5]);
    expect(logTicks(0, 3)).toEqual([]);
  });
});
