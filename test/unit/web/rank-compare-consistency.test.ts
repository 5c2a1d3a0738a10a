/**
 * The board and the compare page give one answer to "is A better than B?" (issue 27, point 6).
 * A board of entries on a real database (each engine), their stored scores and intervals as the
 * worker computes them (lib/aggregate), is read through the board's read model (what `/` and
 * `/api/leaderboard` show) and every pair through the compare page's:
 * - two entries the board gives one rank are never significantly different on compare;
 * - when compare calls one significantly better, the board ranks it strictly above;
 * - and the rule's converse: each rank is 1 + the entries from which a chain of compare's
 *   significant verdicts leads to the entry, nothing else.
 * The fixture holds what made the demo contradict itself (strong-agent and policy-breaker: own
 * intervals overlapping, paired difference significant), copies, a partial entry, fractional
 * scores and a run of three trials.
 */
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeDatabase, connectDatabase, type Db } from "@/db/client";
import { auditLog, benchmarkVersions, capabilityScores, itemResults, scoringRuns, submissions } from "@/db/schema";
import { aggregateTrials, type TrialScoredItem } from "@/lib/aggregate/aggregate";
import { createRng } from "@/lib/aggregate/rng";
import { compareEntries } from "@/lib/queries/compare";
import { storedOverallResamples } from "@/lib/queries/resampled-entries";
import { getLeaderboard } from "@/lib/queries/leaderboard";
import type { ItemResult } from "@/lib/scoring/item-result";
import { registerBenchmark } from "@/lib/submissions/benchmarks";
import { ENGINES, freshDatabase, type TestDatabase } from "../../helpers/engines";
import { MINI_BENCHMARK, tickingClock } from "../../helpers/mini-fixtures";

const now = tickingClock();
const CAPABILITIES = ["tool_selection", "multiturn"];
/** The version's items: [capability, domain, uuid, weight]. */
const ITEMS: [string, string, string, number][] = [
  ...Array.from({ length: 60 }, (_, i): [string, string, string, number] => ["tool_selection", i % 3 ? "harbor" : "ocean", `ts-${i}`, 1]),
  ...Array.from({ length: 40 }, (_, i): [string, string, string, number] => ["multiturn", i % 2 ? "harbor" : "ocean", `mt-${i}`, i % 4 ? 1 : 2]),
];

/** Per item, a score of 0..1: `pass` of a seeded coin. */
function coin(seed: number, pass: number): number[] {
  const rng = createRng(seed);
  return ITEMS.map(() => (rng() < pass ? 1 : 0));
}
const base = coin(11, 0.55);
/** The base entry with `n` of its failed items (always the same ones, first first) passed. */
const plus = (n: number) => {
  let left = n;
  return base.map((s) => (s === 0 && left-- > 0 ? 1 : s));
};
/** The base entry with its last `n` passed items failed. */
const minus = (n: number) => {
  let left = n;
  return [...base].reverse().map((s) => (s === 1 && left-- > 0 ? 0 : s)).reverse();
};

interface Seeded {
  agent: string;
  /** Per trial, per item score. */
  trials: number[][];
  notSubmitted?: string[];
}

const BOARD: Seeded[] = [
  { agent: "leader", trials: [plus(16)] },
  // Like strong-agent against policy-breaker: 8 items apart, one ahead on every one of them.
  { agent: "close-second", trials: [plus(8)] },
  { agent: "base", trials: [base] },
  { agent: "twin", trials: [base] },
  { agent: "down-six", trials: [minus(6)] },
  { agent: "independent", trials: [coin(12, 0.6)] },
  { agent: "partial", trials: [plus(16)], notSubmitted: ["multiturn"] },
  { agent: "fractional", trials: [base.map((s, i) => (i % 5 === 0 ? 0.5 : s))] },
  { agent: "three-trials", trials: [coin(13, 0.55), coin(14, 0.55), coin(15, 0.55)] },
  { agent: "low", trials: [coin(16, 0.25)] },
];

describe.each(ENGINES)("the board's ranks and compare's verdicts (%s)", (engine) => {
  let t: TestDatabase;
  let db: Db;
  const ids = new Map<string, number>();

  /** A published entry scored as the worker scores it: its items, and the aggregate's scores and intervals. */
  async function seed(versionId: number, entry: Seeded, n: number): Promise<number> {
    const at = now();
    const submitted = new Set(CAPABILITIES.filter((c) => !entry.notSubmitted?.includes(c)));
    const scored: TrialScoredItem[] = entry.trials.flatMap((scores, k) => ITEMS.map(([capability, domain, uuid, weight], i) => ({ capability, domain, uuid, weight, score: scores[i]!, status: "scored" as const, trial: k + 1 })));
    const agg = aggregateTrials(CAPABILITIES, submitted, scored, entry.trials.length);
    const [sub] = await db
      .insert(submissions)
      .values({ benchmarkVersionId: versionId, agentName: entry.agent, models: [], links: {}, source: "local", sourceRef: entry.agent, bundlePath: `/tmp/${entry.agent}`, bundleSha256: `sha-${n}`, state: "published", createdAt: at, updatedAt: at })
      .returning();
    const [run] = await db
      .insert(scoringRuns)
      .values({ submissionId: sub!.id, judgeKind: "rules", replayMode: "none", status: "completed", overallScore: agg.overall.score, overallCiLow: agg.overall.ciLow, overallCiHigh: agg.overall.ciHigh, complete: agg.overall.complete, trials: entry.trials.length, createdAt: at, finishedAt: at })
      .returning();
    await db.update(submissions).set({ currentRunId: run!.id }).where(eq(submissions.id, sub!.id));
    for (const [capability, c] of Object.entries(agg.capabilities)) {
      await db.insert(capabilityScores).values({ runId: run!.id, capability, score: c.score, ciLow: c.ciLow, ciHigh: c.ciHigh, submitted: c.submitted, nItems: c.nItems, nMissing: c.nMissing, nError: c.nError, nPolicyUnchecked: 0, statusCounts: c.statusCounts });
    }
    await db.insert(itemResults).values(scored.map((s) => ({ runId: run!.id, capability: s.capability, domain: s.domain, uuid: s.uuid, trial: s.trial, weight: s.weight, score: s.score, status: s.status, stage: "correctness" as const, result: {} as ItemResult })));
    await db.insert(auditLog).values({ at, actor: "test", action: "seed", submissionId: sub!.id, toState: "published" });
    return sub!.id;
  }

  beforeAll(async () => {
    t = await freshDatabase(engine);
    db = t.db;
    const { versionId } = await registerBenchmark(db, MINI_BENCHMARK, { isDefault: true, now: now() });
    let n = 0;
    for (const e of BOARD) ids.set(e.agent, await seed(versionId, e, n++));
  });
  afterAll(() => t.close());

  /** Compare's overall verdict on a pair: which one it calls significantly better, if either. */
  async function verdict(a: number, b: number): Promise<{ better: number | null; text: string }> {
    const cmp = await compareEntries(db, [a, b]);
    if ("problem" in cmp) throw new Error(cmp.problem);
    const d = cmp.differences.find((x) => x.scope === "overall")!;
    const text = `${d.diff.toFixed(2)} [${d.ciLow.toFixed(2)}, ${d.ciHigh.toFixed(2)}]`;
    return { better: d.significant ? (d.diff > 0 ? a : b) : null, text };
  }

  it("never ties what compare separates, never inverts it, and ranks by the chain of compare's verdicts", async () => {
    const board = (await getLeaderboard(db))!;
    expect(board.entries).toHaveLength(BOARD.length);
    const rank = new Map(board.entries.map((e) => [e.id, e.rank]));
    const name = new Map([...ids].map(([agent, id]) => [id, agent]));
    const all = board.entries.map((e) => e.id);

    // Every pair, each way round; the board ranks are one read.
    const better = new Map<number, Set<number>>(all.map((id) => [id, new Set()]));
    const problems: string[] = [];
    let overlappingButSignificant = 0;
    for (const a of all) {
      for (const b of all) {
        if (a === b) continue;
        const v = await verdict(a, b);
        const pair = `${name.get(a)} (rank ${rank.get(a)}) vs ${name.get(b)} (rank ${rank.get(b)}): compare ${v.text}`;
        if (v.better === null) {
          continue;
        }
        const worse = v.better === a ? b : a;
        better.get(worse)!.add(v.better);
        if (rank.get(v.better) === rank.get(worse)) problems.push(`${pair}: significant, but the board ties them`);
        else if (rank.get(v.better)! > rank.get(worse)!) problems.push(`${pair}: significant, but the board ranks them the other way`);
        const [ea, eb] = [board.entries.find((e) => e.id === a)!, board.entries.find((e) => e.id === b)!];
        if (ea.overall.ciLow <= eb.overall.ciHigh && eb.overall.ciLow <= ea.overall.ciHigh) overlappingButSignificant++;
      }
    }
    expect(problems).toEqual([]);

    // The converse the rule implies: rank = 1 + the entries with a chain of significant verdicts down to this one.
    const shownBetter = (id: number): Set<number> => {
      const seen = new Set<number>();
      const todo = [...better.get(id)!];
      while (todo.length) {
        const next = todo.pop()!;
        if (seen.has(next)) continue;
        seen.add(next);
        todo.push(...better.get(next)!);
      }
      return seen;
    };
    expect(Object.fromEntries(all.map((id) => [name.get(id), rank.get(id)]))).toEqual(Object.fromEntries(all.map((id) => [name.get(id), 1 + shownBetter(id).size])));

    // The fixture has teeth: pairs whose own intervals overlap but whose paired difference is significant, and real ties.
    expect(overlappingButSignificant).toBeGreaterThan(0);
    expect(rank.get(ids.get("base")!)).toBe(rank.get(ids.get("twin")!));
    expect(rank.get(ids.get("leader")!)).toBeLessThan(rank.get(ids.get("close-second")!)!);
    expect(new Set(rank.values()).size).toBeLessThan(BOARD.length);
  });

  it("ranks a board read after a new entry as a fresh process does (a run's resamples are kept between reads)", async () => {
    const ranksOf = async (d: Db) => Object.fromEntries((await getLeaderboard(d))!.entries.map((e) => [e.agent, e.rank]));
    await ranksOf(db);
    const [version] = await db.select({ id: benchmarkVersions.id }).from(benchmarkVersions);
    await seed(version!.id, { agent: "newcomer", trials: [plus(12)] }, 100);
    const kept = await ranksOf(db);
    expect(kept.newcomer).toBeDefined();
    const other = await connectDatabase(t.url);
    try {
      expect(kept).toEqual(await ranksOf(other));
    } finally {
      await closeDatabase(other);
    }
  });

  // Last here: it deletes the items.
  it("ranks from the resamples the worker stores with each run, as from the items, without reading an item", async () => {
    const ranksOf = async (d: Db) => Object.fromEntries((await getLeaderboard(d))!.entries.map((e) => [e.agent, e.rank]));
    const fromItems = await ranksOf(db);
    const runs = await db.select({ id: scoringRuns.id }).from(scoringRuns);
    for (const { id } of runs) {
      const submitted = new Set((await db.select().from(capabilityScores).where(eq(capabilityScores.runId, id))).filter((c) => c.submitted).map((c) => c.capability));
      await db.update(scoringRuns).set({ overallResamples: await storedOverallResamples(db, id, CAPABILITIES, submitted) }).where(eq(scoringRuns.id, id));
    }
    // With no item left, only the stored resamples can rank them (from the items, every entry would tie at 0).
    await db.delete(itemResults);
    const other = await connectDatabase(t.url);
    try {
      const fromStored = await ranksOf(other);
      expect(new Set(Object.values(fromStored)).size).toBeGreaterThan(2);
      expect(fromStored).toEqual(fromItems);
    } finally {
      await closeDatabase(other);
    }
  });
});
