/**
 * What ranking by the paired test costs (issue 27, point 6). Prints one line per measurement.
 *
 *   npx tsx scripts/bench-rank.ts [--entries 5000] [--db]
 *
 * In memory, three boards of `--entries` entries (lib/aggregate: plan, resampling every entry,
 * ranking, and ranking again with one more entry, as after a publish): the demo's shape (4 capabilities × 75 items, skills spread), a crowded one (skills
 * within ±0.05, so most pairs are close calls), and the 5,000-entry e2e fixture's (1 capability,
 * 2 items). With `--db`, the demo-shaped board in a SQLite file through the board's read model
 * (lib/queries/leaderboard.ts): the first read of runs stored without resamples (every run's
 * items read and resampled), storing each run's resamples as the worker does at completion, the
 * first read of a new process then (no item read), a read after one more entry is published,
 * and one comparison.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import path from "node:path";
import { eq } from "drizzle-orm";
import { closeDatabase, openDatabase, transaction, type Db } from "../db/client";
import { auditLog, capabilityScores, itemResults, scoringRuns, submissions } from "../db/schema";
import { aggregate, type ScoredItem } from "../lib/aggregate/aggregate";
import { resampleEntry, resamplePlan } from "../lib/aggregate/paired-bootstrap";
import { createVerdictMemo, rankEntries } from "../lib/aggregate/rank";
import { createRng } from "../lib/aggregate/rng";
import { compareEntries } from "../lib/queries/compare";
import { getLeaderboard } from "../lib/queries/leaderboard";
import { storedOverallResamples } from "../lib/queries/resampled-entries";
import type { ItemResult } from "../lib/scoring/item-result";
import { registerBenchmark } from "../lib/submissions/benchmarks";

const args = process.argv.slice(2);
const N = Number(args[args.indexOf("--entries") + 1] ?? 5000) || 5000;
const withDb = args.includes("--db");
const say = (what: string, fields: Record<string, string | number>) =>
  process.stdout.write(`${what}: ${Object.entries(fields).map(([k, v]) => `${k} ${v}`).join(", ")} (load ${loadavg()[0]!.toFixed(2)})\n`);

interface Shape {
  name: string;
  /** Items per capability. */
  sizes: number[];
  /** An entry's item scores (0..1), given its index, each item's difficulty and a seeded generator. */
  scores: (e: number, difficulty: number[][], rng: () => number) => number[][];
}

const spread = (lo: number, hi: number) => (_e: number, difficulty: number[][], rng: () => number) => {
  const skill = lo + (hi - lo) * rng();
  return difficulty.map((items) => items.map((d) => (skill + 0.3 * (rng() - 0.5) > d ? 1 : 0)));
};

const SHAPES: Shape[] = [
  { name: "demo-shaped (4 × 75 items, skills 0.1-0.95)", sizes: [75, 75, 75, 75], scores: spread(0.1, 0.95) },
  { name: "crowded (4 × 75 items, skills 0.45-0.55)", sizes: [75, 75, 75, 75], scores: spread(0.45, 0.55) },
  // seed-many.ts: item k of entry i is right unless (7i + k) mod 3 = 0.
  { name: "e2e fixture (1 × 2 items)", sizes: [2], scores: (e) => [[0, 1].map((k) => ((e * 7 + k) % 3 !== 0 ? 1 : 0))] },
];

function time<T>(f: () => T): [T, number] {
  const t = performance.now();
  const v = f();
  return [v, Math.round(performance.now() - t)];
}

for (const shape of SHAPES) {
  const rng = createRng(2026);
  const difficulty = shape.sizes.map((n) => Array.from({ length: n }, () => rng()));
  const [plan, planMs] = time(() => resamplePlan(shape.sizes.map((n, c) => ({ id: `c${c}`, weights: Array.from({ length: n }, () => 1) }))));
  const [entries, resampleMs] = time(() => Array.from({ length: N }, (_, e) => ({ id: `e${e}`, sample: resampleEntry(plan, shape.scores(e, difficulty, rng)).overall })));
  const memo = createVerdictMemo();
  const [ranks, rankMs] = time(() => rankEntries(entries, memo));
  const counts = new Map<number, number>();
  for (const r of ranks.values()) counts.set(r, (counts.get(r) ?? 0) + 1);
  // As a board is ranked again when an entry is published: the pairs tested before are remembered.
  const newcomer = { id: "new", sample: resampleEntry(plan, shape.scores(N, difficulty, rng)).overall };
  const [, againMs] = time(() => rankEntries([...entries, newcomer], memo));
  say(`${N} entries, ${shape.name}`, { "plan ms": planMs, "resampling ms": resampleMs, "ranking ms": rankMs, "ranking again with one more entry ms": againMs, "distinct ranks": counts.size, "entries sharing a rank": [...counts.values()].filter((c) => c > 1).reduce((a, b) => a + b, 0) });
}

if (withDb) {
  const dir = mkdtempSync(path.join(tmpdir(), "agentboard-bench-rank-"));
  const db = openDatabase(path.join(dir, "board.db"));
  try {
    const { versionId } = await registerBenchmark(db, path.resolve("test/fixtures/mini-benchmark"), { isDefault: true, now: new Date() });
    const caps = ["tool_selection", "multiturn"];
    const items = caps.flatMap((c) => Array.from({ length: 150 }, (_, i) => ({ capability: c, domain: i % 2 ? "harbor" : "ocean", uuid: `${c}-${i}` })));
    const rng = createRng(7);
    const difficulty = items.map(() => rng());
    let n = 0;
    const publish = async (tx: Db) => {
      const skill = 0.1 + 0.85 * rng();
      const scored: ScoredItem[] = items.map((it, i) => ({ ...it, weight: 1, score: skill + 0.3 * (rng() - 0.5) > difficulty[i]! ? 1 : 0, status: "scored" as const }));
      const agg = aggregate(caps, new Set(caps), scored);
      const at = new Date();
      const [sub] = await tx.insert(submissions).values({ benchmarkVersionId: versionId, agentName: `agent-${n}`, models: [], links: {}, source: "local", sourceRef: "bench", bundlePath: "/tmp/bench", bundleSha256: `bench-${n++}`, state: "published", createdAt: at, updatedAt: at }).returning();
      const [run] = await tx.insert(scoringRuns).values({ submissionId: sub!.id, judgeKind: "rules", replayMode: "none", status: "completed", overallScore: agg.overall.score, overallCiLow: agg.overall.ciLow, overallCiHigh: agg.overall.ciHigh, complete: true, createdAt: at, finishedAt: at }).returning();
      await tx.update(submissions).set({ currentRunId: run!.id }).where(eq(submissions.id, sub!.id));
      for (const [capability, c] of Object.entries(agg.capabilities)) await tx.insert(capabilityScores).values({ runId: run!.id, capability, score: c.score, ciLow: c.ciLow, ciHigh: c.ciHigh, submitted: true, nItems: c.nItems, nMissing: 0, nError: 0, nPolicyUnchecked: 0, statusCounts: c.statusCounts });
      await tx.insert(itemResults).values(scored.map((s, i) => ({ runId: run!.id, capability: s.capability, domain: s.domain, uuid: items[i]!.uuid, weight: 1, score: s.score, status: s.status, stage: "correctness" as const, result: {} as ItemResult })));
      await tx.insert(auditLog).values({ at, actor: "bench", action: "seed", submissionId: sub!.id, toState: "published" });
      return sub!.id;
    };
    const t0 = performance.now();
    const ids: number[] = [];
    for (let at = 0; at < N; at += 250) await transaction(db, async (tx) => {
      for (let k = at; k < Math.min(N, at + 250); k++) ids.push(await publish(tx as unknown as Db));
    });
    say(`seeded ${N} published entries × ${items.length} items`, { s: ((performance.now() - t0) / 1000).toFixed(1) });
    let t = performance.now();
    const board = (await getLeaderboard(db))!;
    say("board, first read, runs stored without resamples (every run's items read and resampled, then ranked)", { ms: Math.round(performance.now() - t), entries: board.entries.length, "distinct ranks": new Set(board.entries.map((e) => e.rank)).size });
    // What the worker stores with each run at completion; a new server process then reads those.
    const runIds = (await db.select({ id: scoringRuns.id }).from(scoringRuns)).map((r) => r.id);
    t = performance.now();
    for (const id of runIds) await db.update(scoringRuns).set({ overallResamples: await storedOverallResamples(db, id, caps, new Set(caps)) }).where(eq(scoringRuns.id, id));
    say("each run's overall resamples computed and stored, as the worker does at completion", { "ms per run": ((performance.now() - t) / runIds.length).toFixed(2) });
    const fresh = openDatabase(path.join(dir, "board.db"));
    try {
      t = performance.now();
      const stored = (await getLeaderboard(fresh))!;
      const same = stored.entries.every((e, i) => e.id === board.entries[i]!.id && e.rank === board.entries[i]!.rank);
      say("board, first read in a new process, runs stored with resamples (no item read)", { ms: Math.round(performance.now() - t), entries: stored.entries.length, "same ranks": same ? "yes" : "NO" });
    } finally {
      await closeDatabase(fresh);
    }
    await transaction(db, async (tx) => {
      ids.push(await publish(tx as unknown as Db));
    });
    t = performance.now();
    const again = (await getLeaderboard(db))!;
    say("board after one more entry is published (its run read and resampled, all ranked)", { ms: Math.round(performance.now() - t), entries: again.entries.length });
    t = performance.now();
    await compareEntries(db, [ids[0]!, ids[1]!]);
    say("compare of two entries", { ms: Math.round(performance.now() - t) });
  } finally {
    await closeDatabase(db);
    rmSync(dir, { recursive: true, force: true });
  }
}
