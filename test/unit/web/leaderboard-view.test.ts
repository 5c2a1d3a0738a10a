/** The leaderboard's URL view state: parsing, serializing, filtering and sorting without touching official ranks. */
import { describe, expect, it } from "vitest";
import { bestOverTimeData, capabilityBarsData } from "@/components/charts/chart-data";
import {
  applyView,
  columnIds,
  DEFAULT_VIEW,
  isDefaultView,
  metricValue,
  parseView,
  queryString,
  rankCounts,
  serializeView,
  toggleSort,
  type ViewState,
} from "@/components/leaderboard/view-state";
import type { LeaderboardEntry, ScoreCell } from "@/lib/queries/types";

const CAPS = ["api_chaining", "multihop"];

function cell(score: number, submitted = true): ScoreCell {
  return { score, ciLow: score - 2, ciHigh: score + 2, submitted };
}

function entry(id: number, rank: number, over: Partial<LeaderboardEntry> & { caps?: Record<string, ScoreCell> } = {}): LeaderboardEntry {
  const { caps, ...rest } = over;
  return {
    id,
    rank,
    agent: `agent-${id}`,
    models: ["model-x"],
    maintainer: "Lab",
    overall: { ...cell(100 - id), complete: true },
    capabilities: caps ?? { api_chaining: cell(50 + id), multihop: cell(90 - id) },
    coverage: 1,
    date: `2026-01-${String(10 + id).padStart(2, "0")}T00:00:00.000Z`,
    badges: { verified: true, partial: false, demo: false, flagged: false },
    flags: [],
    cost: { latencyMedianS: null, latencyP95S: null, totalTokens: null, costUsd: null },
    trials: 1,
    passK: null,
    ...rest,
  };
}

// Official order as the query returns it: ranks 1, =2, =2, 4, 5.
const ENTRIES: LeaderboardEntry[] = [
  entry(1, 1, { agent: "Zeta", models: ["gpt-5"], maintainer: "OpenLab" }),
  entry(2, 2, { agent: "alpha", models: ["claude-opus", "gpt-5"], maintainer: "Anthro" }),
  entry(3, 2, { agent: "Beta", badges: { verified: false, partial: false, demo: true, flagged: false } }),
  entry(4, 4, {
    agent: "gamma-partial",
    caps: { api_chaining: cell(99), multihop: cell(0, false) },
    badges: { verified: true, partial: true, demo: false, flagged: false },
    flags: [],
    overall: { ...cell(40), complete: false },
  }),
  entry(5, 5, { agent: "delta", maintainer: "Indie Dev", badges: { verified: true, partial: false, demo: false, flagged: true }, flags: ["duplicate"] }),
];

const ids = (es: LeaderboardEntry[]) => es.map((e) => e.id);
const view = (over: Partial<ViewState>): ViewState => ({ ...DEFAULT_VIEW, ...over });

describe("parseView", () => {
  it("defaults to official rank order with nothing filtered", () => {
    expect(parseView(new URLSearchParams(""), CAPS)).toEqual(DEFAULT_VIEW);
    expect(parseView({}, CAPS)).toEqual(DEFAULT_VIEW);
  });

  it("reads sort, dir, q, hide, the badge filters and the metric from URLSearchParams or a Next searchParams record", () => {
    const expected: ViewState = { sort: "multihop", dir: "asc", q: "gpt lab", hide: ["cost", "maintainer", "date"], verified: "only", partial: "hide", demo: "hide", flagged: "hide", vs: "latency", metric: "passk" };
    expect(parseView(new URLSearchParams("sort=multihop&dir=asc&q=+gpt+lab+&hide=date,maintainer,cost&verified=1&partial=0&demo=0&flagged=0&vs=latency&metric=passk"), CAPS)).toEqual(expected);
    expect(parseView({ sort: "multihop", dir: "asc", q: ["gpt lab", "ignored"], hide: "date,maintainer,cost", verified: "1", partial: "0", demo: "0", flagged: "0", vs: "latency", metric: "passk" }, CAPS)).toEqual(expected);
    for (const metric of ["", "PASSK", "pass^k", "mean"]) expect(parseView({ metric }, CAPS).metric).toBe("score");
  });

  it("uses the column's natural direction when dir is missing: scores descending, names and rank ascending", () => {
    expect(parseView({ sort: "overall" }, CAPS).dir).toBe("desc");
    expect(parseView({ sort: "multihop" }, CAPS).dir).toBe("desc");
    expect(parseView({ sort: "agent" }, CAPS).dir).toBe("asc");
    expect(parseView({ sort: "rank" }, CAPS).dir).toBe("asc");
    // Cheaper and faster first.
    for (const sort of ["cost", "tokens", "latency", "latency_p95"]) expect(parseView({ sort }, CAPS)).toMatchObject({ sort, dir: "asc" });
  });

  it("reads the cost chart's axis, falling back to auto", () => {
    expect(parseView({ vs: "cost" }, CAPS).vs).toBe("cost");
    expect(parseView({ vs: "latency" }, CAPS).vs).toBe("latency");
    for (const vs of ["auto", "tokens", "", "COST"]) expect(parseView({ vs }, CAPS).vs).toBe("auto");
  });

  it("ignores unknown or unsortable columns, bad directions, pinned or unknown hidden columns and odd flag values", () => {
    const v = parseView({ sort: "nope", dir: "sideways", hide: "rank,agent,bogus,models,models", verified: "yes", partial: "2" }, CAPS);
    expect(v).toEqual({ ...DEFAULT_VIEW, hide: ["models"] });
    expect(parseView({ sort: "badges" }, CAPS).sort).toBe("rank");
    expect(parseView({ sort: "multiturn" }, CAPS).sort).toBe("rank");
  });

  it("caps the search length", () => {
    expect(parseView({ q: "x".repeat(1000) }, CAPS).q).toHaveLength(200);
  });
});

describe("serializeView", () => {
  it("writes nothing for the default view", () => {
    expect(serializeView(DEFAULT_VIEW).toString()).toBe("");
    expect(isDefaultView(DEFAULT_VIEW)).toBe(true);
    expect(isDefaultView(view({ q: "   " }))).toBe(true);
  });

  it("writes only what differs, with readable commas, and round-trips through parseView", () => {
    const v: ViewState = { sort: "multihop", dir: "desc", q: "claude", hide: ["latency_p95", "maintainer", "date"], verified: "only", partial: "hide", demo: "any", flagged: "any", vs: "cost", metric: "passk" };
    const qs = queryString(serializeView(v));
    expect(qs).toBe("sort=multihop&dir=desc&q=claude&hide=latency_p95,maintainer,date&verified=1&partial=0&vs=cost&metric=passk");
    expect(parseView(new URLSearchParams(qs), CAPS)).toEqual(v);
    expect(isDefaultView(v)).toBe(false);
  });

  it("keeps a search with commas and ampersands intact", () => {
    const v = view({ q: "a,b & c=d" });
    expect(parseView(new URLSearchParams(queryString(serializeView(v))), CAPS).q).toBe("a,b & c=d");
  });
});

describe("toggleSort", () => {
  it("starts a new column at its natural direction and flips on a second click", () => {
    const a = toggleSort(DEFAULT_VIEW, "overall");
    expect([a.sort, a.dir]).toEqual(["overall", "desc"]);
    const b = toggleSort(a, "overall");
    expect([b.sort, b.dir]).toEqual(["overall", "asc"]);
    const c = toggleSort(b, "agent");
    expect([c.sort, c.dir]).toEqual(["agent", "asc"]);
  });
});

describe("applyView", () => {
  it("keeps the official order by default and never changes an entry or its rank", () => {
    const before = JSON.stringify(ENTRIES);
    const out = applyView(ENTRIES, DEFAULT_VIEW);
    expect(ids(out)).toEqual([1, 2, 3, 4, 5]);
    expect(out).not.toBe(ENTRIES);
    applyView(ENTRIES, view({ sort: "multihop", dir: "asc" }));
    expect(JSON.stringify(ENTRIES)).toBe(before);
  });

  it("sorts by a capability; a capability not submitted sorts last in both directions", () => {
    expect(ids(applyView(ENTRIES, view({ sort: "multihop", dir: "desc" })))).toEqual([1, 2, 3, 5, 4]);
    expect(ids(applyView(ENTRIES, view({ sort: "multihop", dir: "asc" })))).toEqual([5, 3, 2, 1, 4]);
    const sorted = applyView(ENTRIES, view({ sort: "multihop", dir: "asc" }));
    expect(sorted.map((e) => e.rank)).toEqual([5, 2, 2, 1, 4]);
  });

  it("sorts text case-insensitively, and breaks ties by official order", () => {
    expect(ids(applyView(ENTRIES, view({ sort: "agent", dir: "asc" })))).toEqual([2, 3, 5, 4, 1]);
    expect(ids(applyView(ENTRIES, view({ sort: "agent", dir: "desc" })))).toEqual([1, 4, 5, 3, 2]);
    // Maintainer "Lab" is shared by 3 and 4: official order decides, whatever the direction.
    expect(ids(applyView(ENTRIES, view({ sort: "maintainer", dir: "asc" })))).toEqual([2, 5, 3, 4, 1]);
    expect(ids(applyView(ENTRIES, view({ sort: "maintainer", dir: "desc" })))).toEqual([1, 3, 4, 5, 2]);
  });

  it("sorts by date, coverage and overall", () => {
    expect(ids(applyView(ENTRIES, view({ sort: "date", dir: "desc" })))).toEqual([5, 4, 3, 2, 1]);
    const withCoverage = ENTRIES.map((e) => (e.id === 3 ? { ...e, coverage: 0.5 } : e));
    expect(ids(applyView(withCoverage, view({ sort: "coverage", dir: "asc" })))).toEqual([3, 1, 2, 4, 5]);
    expect(ids(applyView(ENTRIES, view({ sort: "overall", dir: "asc" })))).toEqual([4, 5, 3, 2, 1]);
    expect(ids(applyView(ENTRIES, view({ sort: "rank", dir: "desc" })))).toEqual([5, 4, 3, 2, 1]);
  });

  it("sorts by cost, tokens and latency, cheapest first; an unreported value sorts last in both directions", () => {
    const costs: [number, number | null][] = [
      [1, 40],
      [2, null],
      [3, 0.5],
      [4, 12],
      [5, null],
    ];
    const es = ENTRIES.map((e) => {
      const v = costs.find(([id]) => id === e.id)![1];
      return { ...e, cost: { costUsd: v, totalTokens: v === null ? null : v * 1000, latencyMedianS: v, latencyP95S: v === null ? null : 100 - v } };
    });
    expect(ids(applyView(es, view({ sort: "cost", dir: "asc" })))).toEqual([3, 4, 1, 2, 5]);
    expect(ids(applyView(es, view({ sort: "cost", dir: "desc" })))).toEqual([1, 4, 3, 2, 5]);
    expect(ids(applyView(es, view({ sort: "tokens", dir: "asc" })))).toEqual([3, 4, 1, 2, 5]);
    expect(ids(applyView(es, view({ sort: "latency", dir: "asc" })))).toEqual([3, 4, 1, 2, 5]);
    expect(ids(applyView(es, view({ sort: "latency_p95", dir: "asc" })))).toEqual([1, 4, 3, 2, 5]);
  });

  it("searches agent, models and maintainer; every term must match", () => {
    expect(ids(applyView(ENTRIES, view({ q: "GPT-5" })))).toEqual([1, 2]);
    expect(ids(applyView(ENTRIES, view({ q: "gpt claude" })))).toEqual([2]);
    expect(ids(applyView(ENTRIES, view({ q: "indie" })))).toEqual([5]);
    expect(ids(applyView(ENTRIES, view({ q: "beta" })))).toEqual([3]);
    expect(ids(applyView(ENTRIES, view({ q: "nobody" })))).toEqual([]);
  });

  it("filters by badges: verified only, hide partial, hide demo, hide flagged (and their opposites)", () => {
    expect(ids(applyView(ENTRIES, view({ verified: "only" })))).toEqual([1, 2, 4, 5]);
    expect(ids(applyView(ENTRIES, view({ verified: "hide" })))).toEqual([3]);
    expect(ids(applyView(ENTRIES, view({ partial: "hide" })))).toEqual([1, 2, 3, 5]);
    expect(ids(applyView(ENTRIES, view({ demo: "hide" })))).toEqual([1, 2, 4, 5]);
    expect(ids(applyView(ENTRIES, view({ demo: "only" })))).toEqual([3]);
    expect(ids(applyView(ENTRIES, view({ flagged: "hide" })))).toEqual([1, 2, 3, 4]);
    expect(ids(applyView(ENTRIES, view({ flagged: "only" })))).toEqual([5]);
    expect(ids(applyView(ENTRIES, view({ verified: "only", partial: "hide", q: "gpt", sort: "agent" })))).toEqual([2, 1]);
  });

  it("sorts 5,000 entries reading each entry's sort key once (timed by npm run bench:hot-paths)", () => {
    // Distinct scores (7919 is prime to 5000), so the tie-breaker, which reads `overall` too, never runs.
    let keyReads = 0;
    const many = Array.from({ length: 5000 }, (_, i) => {
      const e = entry(i + 1, i + 1);
      const overall = { ...cell(((i * 7919) % 5000) / 50), complete: true };
      return Object.defineProperty(e, "overall", { enumerable: true, get: () => (keyReads++, overall) });
    });
    const out = applyView(many, view({ sort: "overall", dir: "desc" }));
    // A comparator that looked keys up would read them about 2·n·log2(n) ≈ 120,000 times.
    expect(keyReads).toBe(5000);
    expect(out).toHaveLength(5000);
    expect(new Set(out.map((e) => e.id)).size).toBe(5000);
    const scores = out.map((e) => e.overall.score);
    expect(scores.every((s, i) => i === 0 || scores[i - 1]! > s)).toBe(true);
  });
});

describe("columns and ties", () => {
  it("leads with rank, agent and overall (the phone's sticky set), then capabilities, trials, cost and the rest", () => {
    expect(columnIds(CAPS)).toEqual(["rank", "agent", "overall", "api_chaining", "multihop", "trials", "cost", "tokens", "latency", "latency_p95", "coverage", "models", "maintainer", "date", "badges"]);
  });

  it("counts entries per official rank", () => {
    expect([...rankCounts(ENTRIES)]).toEqual([
      [1, 1],
      [2, 2],
      [4, 1],
      [5, 1],
    ]);
  });
});

describe("chart series", () => {
  it("takes the top entries by official rank, with null for capabilities not submitted", () => {
    const data = capabilityBarsData(
      CAPS.map((id) => ({ id, label: id.toUpperCase() })),
      [...ENTRIES].reverse(),
      4,
    );
    expect(data.series.map((s) => s.name)).toEqual(["Zeta", "alpha", "Beta", "gamma-partial"]);
    expect(data.rows[1]).toEqual({ capability: "MULTIHOP", e1: 89, e2: 88, e3: 87, e4: null });
  });

  it("steps the best overall up over time, skipping partial entries and non-records", () => {
    const es = [
      entry(1, 3, { date: "2026-01-01T00:00:00.000Z", overall: { ...cell(50), complete: true } }),
      entry(2, 4, { date: "2026-01-02T00:00:00.000Z", overall: { ...cell(40), complete: true } }),
      entry(3, 1, { date: "2026-01-03T00:00:00.000Z", overall: { ...cell(90), complete: false }, badges: { verified: true, partial: true, demo: false, flagged: false } }),
      entry(4, 2, { date: "2026-01-04T00:00:00.000Z", overall: { ...cell(70.04), complete: true } }),
      entry(5, 5, { date: "2026-01-05T00:00:00.000Z", overall: { ...cell(10), complete: true } }),
    ];
    expect(bestOverTimeData(es).map((p) => [new Date(p.t).toISOString().slice(0, 10), p.best, p.agent])).toEqual([
      ["2026-01-01", 50, "agent-1"],
      ["2026-01-04", 70, "agent-4"],
      ["2026-01-05", 70, "agent-4"],
    ]);
  });
});

describe("the pass^k view", () => {
  // Entries 4 and 5 ran trials; entry 4 did not submit multihop.
  const withTrials = ENTRIES.map((e) =>
    e.id === 4 ? { ...e, trials: 4, passK: { overall: 30, capabilities: { api_chaining: 60, multihop: 0 } } } : e.id === 5 ? { ...e, trials: 3, passK: { overall: 70, capabilities: { api_chaining: 40, multihop: 55 } } } : e,
  );

  it("reads pass^k where an entry has k > 1 trials, nothing for one trial or a capability not submitted", () => {
    const [one, , , four, five] = withTrials;
    expect([metricValue(four!, "overall", "passk"), metricValue(four!, "api_chaining", "passk"), metricValue(four!, "multihop", "passk")]).toEqual([30, 60, null]);
    expect(metricValue(five!, "multihop", "passk")).toBe(55);
    expect([metricValue(one!, "overall", "passk"), metricValue(one!, "api_chaining", "passk")]).toEqual([null, null]);
    expect(metricValue(one!, "overall", "score")).toBe(99);
  });

  it("sorts score columns by pass^k, entries without one last, and leaves ranks and the mean-score sort alone", () => {
    expect(ids(applyView(withTrials, view({ sort: "overall", dir: "desc", metric: "passk" })))).toEqual([5, 4, 1, 2, 3]);
    expect(ids(applyView(withTrials, view({ sort: "overall", dir: "asc", metric: "passk" })))).toEqual([4, 5, 1, 2, 3]);
    expect(ids(applyView(withTrials, view({ sort: "multihop", dir: "desc", metric: "passk" })))).toEqual([5, 1, 2, 3, 4]);
    expect(ids(applyView(withTrials, view({ sort: "overall", dir: "desc" })))).toEqual([1, 2, 3, 5, 4]);
    expect(ids(applyView(withTrials, view({ sort: "trials", dir: "desc" })))).toEqual([4, 5, 1, 2, 3]);
    expect(applyView(withTrials, view({ metric: "passk" })).map((e) => e.rank)).toEqual([1, 2, 2, 4, 5]);
  });
});
