/**
 * A bundle of trials through the orchestrator on an in-memory database: the worker stores every
 * trial's items with their trial, writes the run's trials and trial stats, resumes a run keyed
 * by trial, and the read models (board, entry, item table, item page, compare) carry the trials.
 */
import { cpSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { closeDatabase, openDatabase, type Db } from "@/db/client";
import { itemResults, scoringRuns } from "@/db/schema";
import { compareEntries } from "@/lib/queries/compare";
import { listItems } from "@/lib/queries/item-list";
import { getLeaderboard } from "@/lib/queries/leaderboard";
import { getItem, getSubmission } from "@/lib/queries/submission";
import { registerBenchmark } from "@/lib/submissions/benchmarks";
import { ingestBundle } from "@/lib/submissions/ingest";
import { approve } from "@/lib/submissions/review";
import { createScoringDeps } from "@/lib/submissions/scoring-deps";
import { runWorker } from "@/lib/submissions/worker";
import { GOOD_BUNDLE, MINI_BENCHMARK, tickingClock } from "../helpers/mini-fixtures";
import { ENGINES } from "../helpers/engines";
import { useMiniDb } from "../helpers/mini-db";

describe.each(ENGINES)("trials (%s)", (engine) => {
  const now = tickingClock();
  const mini = useMiniDb(now, engine);
  const CAP2 = "capability_2_dashboard_apis";

  /**
   * The good bundle as two trials: trial 2 answers ts-1 wrongly. ts-1 and mt-1 pass in the good
   * bundle (ts-2 and mt-2 lose points), so ts-1 is solved in trial 1 only.
   */
  function twoTrials(): string {
    const dir = mini.scratch("trials");
    for (const t of [1, 2]) {
      for (const cap of [CAP2, "capability_4_multiturn"]) cpSync(path.join(GOOD_BUNDLE, "output", cap), path.join(dir, `trial_${t}`, cap), { recursive: true });
    }
    cpSync(path.join(GOOD_BUNDLE, "output/metadata.json"), path.join(dir, "metadata.json"));
    const f = path.join(dir, "trial_2", CAP2, "harbor.json");
    writeFileSync(f, readFileSync(f, "utf8").replace("42 ships docked in 2020.", "17 ships docked in 2020."));
    return dir;
  }

  async function scoreAll(db: Db) {
    const deps = createScoringDeps(db, { now });
    try {
      return await runWorker(db, deps, { untilIdle: true });
    } finally {
      await deps.close();
    }
  }

  const rowsOf = (db: Db, runId: number) =>
    db.select({ capability: itemResults.capability, uuid: itemResults.uuid, trial: itemResults.trial, score: itemResults.score, result: itemResults.result }).from(itemResults).where(eq(itemResults.runId, runId)).orderBy(itemResults.capability, itemResults.uuid, itemResults.trial);

  describe("a bundle of trials through the worker", () => {
    it("stores each trial's items with their trial, and the run's trials and trial stats; the pages read them", async () => {
      const { db, versionId } = mini;
      const { submissionId } = await ingestBundle(db, { versionId, bundlePath: twoTrials(), source: "local", sourceRef: "two-trials", actor: "cli" }, now);
      await scoreAll(db);
      const detail = (await getSubmission(db, submissionId))!;
      expect(detail.state).toBe("scored");
      const run = detail.run!;
      expect(run.trials).toBe(2);
      const rows = (await rowsOf(db, run.id));
      expect(rows.map((r) => `${r.uuid}@${r.trial}:${r.score}`)).toEqual(["mt-1@1:1", "mt-1@2:1", "mt-2@1:0", "mt-2@2:0", "ts-1@1:1", "ts-1@2:0", "ts-2@1:0", "ts-2@2:0"]);
      for (const r of rows) expect(r.result.trial).toBe(r.trial);
      const stats = run.trialStats!;
      expect(stats.k).toBe(2);
      expect(stats.capabilities.tool_selection).toMatchObject({ perTrial: [50, 0], sd: expect.closeTo(Math.sqrt(1250), 9), passK: 0, nPassK: 0 });
      expect(detail.capabilities.find((c) => c.id === "tool_selection")!.score).toBe(25);
      // The worker's stored row agrees with the engine's aggregate.
      const stored = (await db.select({ trials: scoringRuns.trials, trialStats: scoringRuns.trialStats }).from(scoringRuns).where(eq(scoringRuns.id, run.id)).limit(1))[0]!;
      expect(stored).toEqual({ trials: 2, trialStats: stats });

      // The item table lists each item once per trial and filters to one; the item page opens the trial asked for.
      expect((await listItems(db, run.id, { lost: true })).rows.map((r) => `${r.uuid}@${r.trial}`)).toEqual(["mt-2@1", "mt-2@2", "ts-1@2", "ts-2@1", "ts-2@2"]);
      expect((await listItems(db, run.id, { lost: true, trial: 1 })).rows.map((r) => r.uuid)).toEqual(["mt-2", "ts-2"]);
      expect((await listItems(db, run.id)).facets.trials).toEqual([1, 2]);
      expect((await getItem(db, run.id, "tool_selection", "ts-1", { showGroundTruth: false, trial: 2 }))).toMatchObject({ trial: 2, score: 0 });
      expect((await getItem(db, run.id, "tool_selection", "ts-1", { showGroundTruth: false }))).toMatchObject({ trial: 1, score: 1 });

      // On the board: k and pass^k.
      await approve(db, submissionId, { actor: "maintainer:ada", at: now() });
      const entry = (await getLeaderboard(db))!.entries.find((e) => e.id === submissionId)!;
      expect(entry.trials).toBe(2);
      expect(entry.passK).toEqual({ overall: stats.overall.passK, capabilities: { tool_selection: 0, multiturn: stats.capabilities.multiturn!.passK } });
    });

    it("resumes a run keyed by trial: a stored trial-2 result is kept, the same item's trial 1 is still scored", async () => {
      // A reference run for a real trial-2 result to store ahead of time.
      const ref = openDatabase(":memory:");
      const refVersion = (await registerBenchmark(ref, MINI_BENCHMARK, { isDefault: true, now: now() })).versionId;
      const bundle = twoTrials();
      await ingestBundle(ref, { versionId: refVersion, bundlePath: bundle, source: "local", sourceRef: "ref", actor: "cli" }, now);
      await scoreAll(ref);
      const refRun = (await ref.select({ id: scoringRuns.id }).from(scoringRuns).limit(1))[0]!.id;
      const trial2 = (await rowsOf(ref, refRun)).find((r) => r.uuid === "ts-1" && r.trial === 2)!;

      const { db, versionId } = mini;
      const { submissionId } = await ingestBundle(db, { versionId, bundlePath: bundle, source: "local", sourceRef: "resume", actor: "cli" }, now);
      const run = (await db.select({ id: scoringRuns.id }).from(scoringRuns).where(eq(scoringRuns.submissionId, submissionId)).limit(1))[0]!;
      const marked = { ...trial2.result, detail: "stored before the worker stopped" };
      await db.insert(itemResults).values({ runId: run.id, capability: "tool_selection", domain: "harbor", uuid: "ts-1", trial: 2, weight: 1, score: 0, status: "scored", stage: marked.stage, scorer: "waterfall", bucket: marked.bucket, exactPassed: false, policy: null, result: marked });
      await scoreAll(db);
      const rows = (await rowsOf(db, run.id));
      expect(rows).toHaveLength(8);
      const ts1 = async (trial: number) => (await db.select({ result: itemResults.result }).from(itemResults).where(and(eq(itemResults.runId, run.id), eq(itemResults.uuid, "ts-1"), eq(itemResults.trial, trial))).limit(1))[0]!.result;
      expect((await ts1(2)).detail).toBe("stored before the worker stopped");
      expect((await ts1(1))).toMatchObject({ trial: 1, score: 1 });
      expect((await ts1(1)).detail).not.toBe("stored before the worker stopped");
      expect((await getSubmission(db, submissionId))!.run!.overall!.score).toBeCloseTo((await getSubmission(ref, 1))!.run!.overall!.score, 10);
      await closeDatabase(ref);
    });

    it("compares an entry of trials by each item's mean over its trials: a pass is full marks in every trial", async () => {
      const { db, versionId } = mini;
      const trials = await ingestBundle(db, { versionId, bundlePath: twoTrials(), source: "local", sourceRef: "two", actor: "cli" }, now);
      const single = await ingestBundle(db, { versionId, bundlePath: GOOD_BUNDLE, source: "local", sourceRef: "one", actor: "cli" }, now);
      await scoreAll(db);
      const cmp = (await compareEntries(db, [single.submissionId, trials.submissionId]));
      if ("problem" in cmp) throw new Error(cmp.problem);
      // ts-1 passes in the single run, and in trial 1 only of the other: a flip; nothing else differs.
      expect(cmp.flips[0]!.capabilities.tool_selection).toMatchObject({ both: 0, aOnly: 1, bOnly: 0, neither: 1 });
      expect(cmp.flipPage.rows.map((r) => [r.uuid, r.a.score, r.b.score, r.b.passed])).toEqual([["ts-1", 1, 0.5, false]]);
      // The paired difference is the difference of the entries' capability scores (50 against 25).
      expect(cmp.differences.find((d) => d.scope === "tool_selection")!.diff).toBeCloseTo(25, 10);
    });
  });
});
