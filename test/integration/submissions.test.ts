/** The orchestrator and the read models on a fresh database of each engine with the committed migrations. */
import { cpSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { eq } from "drizzle-orm";
import { hostname } from "node:os";
import { describe, expect, it, vi } from "vitest";
import { openDatabase } from "@/db/client";
import { auditLog, itemResults, jobs, scoringRuns, submissions } from "@/db/schema";
import { getAuditLogPage } from "@/lib/queries/activity";
import { getQueue } from "@/lib/queries/queue";
import { compareEntries } from "@/lib/queries/compare";
import { getLeaderboard } from "@/lib/queries/leaderboard";
import { getItem, getSubmission } from "@/lib/queries/submission";
import { listItems } from "@/lib/queries/item-list";
import { registerBenchmark } from "@/lib/submissions/benchmarks";
import { ingestBundle } from "@/lib/submissions/ingest";
import { approve, reject, rescore } from "@/lib/submissions/review";
import { runScoringJob } from "@/lib/submissions/score-job";
import { createScoringDeps } from "@/lib/submissions/scoring-deps";
import { TransitionError } from "@/lib/submissions/transitions";
import { claimNextJob, recoverAbandonedJobs, runWorker } from "@/lib/submissions/worker";
import { GOOD_BUNDLE, INVALID_BUNDLE, MINI_BENCHMARK, tickingClock } from "../helpers/mini-fixtures";
import { ENGINES } from "../helpers/engines";
import { useMiniDb } from "../helpers/mini-db";

describe.each(ENGINES)("submissions end to end (%s)", (engine) => {
  const good = GOOD_BUNDLE;
  const invalid = INVALID_BUNDLE;

  const now = tickingClock();
  const mini = useMiniDb(now, engine);
  const who = () => ({ actor: "maintainer:ada", at: now() });

  /** A second bundle: the good one with the wrong answer fixed (so it scores higher). */
  function betterBundle(): string {
    const dir = mini.scratch("better");
    cpSync(good, dir, { recursive: true });
    const f = path.join(dir, "output/capability_2_dashboard_apis/harbor.json");
    writeFileSync(f, readFileSync(f, "utf8").replace("The largest is Ocean Queen.", "The largest is Sea Dragon.").replace('"get_ship_list"', '"get_largest_ship"').replace('[[["Ocean Queen", 300]]]', '[[["Sea Dragon", 320]]]'));
    writeFileSync(path.join(dir, "output/metadata.json"), JSON.stringify({ agent_name: "better <b>agent</b>", models: ["m2"] }));
    return dir;
  }

  async function scoreAll(deps = createScoringDeps(mini.db, { now })) {
    try {
      return await runWorker(mini.db, deps, { untilIdle: true });
    } finally {
      await deps.close();
    }
  }

  describe("submissions end to end", () => {
    it("ingests, validates, scores, publishes and reads back", async () => {
      const a = await ingestBundle(mini.db, { versionId: mini.versionId, bundlePath: good, source: "local", sourceRef: good, actor: "cli" }, now);
      const bad = await ingestBundle(mini.db, { versionId: mini.versionId, bundlePath: invalid, source: "local", sourceRef: invalid, actor: "cli" }, now);
      expect(a).toMatchObject({ created: true, state: "queued" });
      expect(bad).toMatchObject({ created: true, state: "invalid" });
      expect(await scoreAll()).toBe(1);
      expect((await getLeaderboard(mini.db))!.entries).toEqual([]); // scored is not published
      await approve(mini.db, a.submissionId, who());

      const board = (await getLeaderboard(mini.db))!;
      expect(board.benchmark.slug).toBe("mini");
      expect(board.entries).toHaveLength(1);
      const e = board.entries[0]!;
      expect(e).toMatchObject({ rank: 1, agent: "mini-agent", models: ["test-model"], coverage: 1, badges: { verified: false, partial: false, demo: false } });
      expect(e.overall.score).toBeCloseTo(58.333, 2);
      expect(e.capabilities.multiturn!.score).toBeCloseTo(66.667, 2);

      const detail = (await getSubmission(mini.db, a.submissionId))!;
      expect(detail.state).toBe("published");
      expect(detail.timeline.map((t) => t.toState ?? t.action)).toEqual(["received", "validating", "queued", "scoring", "scored", "run:completed", "approved", "published"]);
      expect(detail.funnel).toEqual({ total: 4, notScored: 0, policy: 1, exactPassed: 2, correctnessFailed: 1, groundednessFailed: 0, passed: 2 });
      expect(detail.domains).toContainEqual({ capability: "multiturn", domain: "harbor", score: expect.closeTo(66.667, 2), nItems: 2 });
      // ts-1 makes the expected call ("2020" matches 2020 as a parameter, though not exactly as JSON);
      // ts-2 calls the wrong tool, with no parameters on either side.
      expect(detail.trajectory.find((t) => t.capability === "tool_selection")).toEqual({ capability: "tool_selection", label: expect.any(String), n: 2, score: 0.5, toolNamesF1: 0.5, paramsF1: 1, exactShare: 0 });
      const ts2 = (await getItem(mini.db, detail.run!.id, "tool_selection", "ts-2", { showGroundTruth: false }))!;
      expect(ts2.trajectory).toMatchObject({ score: 0, toolNamesF1: 0, paramsF1: null, exact: false });
      // The summary names the expected call: private unless the benchmark shows its ground truth.
      expect(ts2.trajectory!.summary).toBeNull();
      expect((await getItem(mini.db, detail.run!.id, "tool_selection", "ts-2", { showGroundTruth: true }))!.trajectory!.summary).toContain("missing: get_largest_ship");
      const items = (await listItems(mini.db, detail.run!.id, { outcome: "policy" }));
      expect(items.rows.map((r) => r.uuid)).toEqual(["mt-2"]);
      expect(items.facets.capabilities).toEqual(["multiturn", "tool_selection"]);

      const badDetail = (await getSubmission(mini.db, bad.submissionId))!;
      expect(badDetail.validation!.firstErrors[0]).toMatchObject({ code: "duplicate_uuid", path: "$[1].uuid" });
      expect((await getQueue(mini.db)).map((q) => [q.id, q.state])).toEqual(expect.arrayContaining([[a.submissionId, "published"], [bad.submissionId, "invalid"]]));
      expect((await getAuditLogPage(mini.db)).rows.some((c) => c.toState === "invalid" && c.submissionId === bad.submissionId)).toBe(true);
    });

    it("never makes two entries of the same bundle", async () => {
      const first = await ingestBundle(mini.db, { versionId: mini.versionId, bundlePath: good, source: "local", sourceRef: good, actor: "cli" }, now);
      const again = await ingestBundle(mini.db, { versionId: mini.versionId, bundlePath: good, source: "demo", sourceRef: "elsewhere", actor: "cli" }, now);
      expect(again).toEqual({ submissionId: first.submissionId, created: false, state: "queued" });
      expect((await mini.db.select().from(submissions))).toHaveLength(1);
      expect((await mini.db.select().from(jobs))).toHaveLength(1);
    });

    it("ranks entries tie-aware, compares them pairwise, and keeps old runs on rescore", async () => {
      const a = await ingestBundle(mini.db, { versionId: mini.versionId, bundlePath: good, source: "local", sourceRef: good, actor: "cli" }, now);
      const b = await ingestBundle(mini.db, { versionId: mini.versionId, bundlePath: betterBundle(), source: "local", sourceRef: "better", actor: "cli" }, now);
      await scoreAll();
      await approve(mini.db, a.submissionId, who());
      await approve(mini.db, b.submissionId, who());
      const board = (await getLeaderboard(mini.db))!;
      expect(board.entries.map((e) => e.agent)).toEqual(["better <b>agent</b>", "mini-agent"]);
      // Four items cannot separate the two: they share rank 1.
      expect(board.entries.map((e) => e.rank)).toEqual([1, 1]);

      const cmp = (await compareEntries(mini.db, [b.submissionId, a.submissionId]));
      if ("problem" in cmp) throw new Error(cmp.problem);
      expect(cmp.entries.map((e) => e.agent)).toEqual(["better <b>agent</b>", "mini-agent"]);
      const ts = cmp.differences.find((d) => d.scope === "tool_selection")!;
      expect(ts.diff).toBeCloseTo(50, 6);
      expect(ts.significant).toBe(false);
      expect((await compareEntries(mini.db, [a.submissionId]))).toEqual({ problem: "choose two to four entries to compare" });

      const runBefore = (await getSubmission(mini.db, a.submissionId))!.run!.id;
      const newRun = await rescore(mini.db, a.submissionId, who(), {}, "judge update");
      expect((await getSubmission(mini.db, a.submissionId))!.run!.id).toBe(runBefore); // still shows the completed run
      await scoreAll();
      expect((await getSubmission(mini.db, a.submissionId))!.run!.id).toBe(newRun);
      expect((await mini.db.select().from(scoringRuns).where(eq(scoringRuns.submissionId, a.submissionId)))).toHaveLength(2);
      expect((await getSubmission(mini.db, a.submissionId))!.state).toBe("scored");
    });

    it("refuses moves the state machine does not allow, and rejections without a reason", async () => {
      const a = await ingestBundle(mini.db, { versionId: mini.versionId, bundlePath: good, source: "local", sourceRef: good, actor: "cli" }, now);
      await expect(approve(mini.db, a.submissionId, who())).rejects.toThrow(TransitionError); // queued, not scored
      await scoreAll();
      await expect(reject(mini.db, a.submissionId, who(), "  ")).rejects.toThrow(/needs a reason/);
      await reject(mini.db, a.submissionId, who(), "duplicate of #1");
      expect((await mini.db.select().from(auditLog).where(eq(auditLog.toState, "rejected")).limit(1))[0]).toMatchObject({ actor: "maintainer:ada", reason: "duplicate of #1" });
    });

    it("resumes a run whose worker died, with the same results as an uninterrupted run", async () => {
      const reference = openDatabase(":memory:");
      const refVersion = (await registerBenchmark(reference, MINI_BENCHMARK, { now: now() })).versionId;
      const r = await ingestBundle(reference, { versionId: refVersion, bundlePath: good, source: "local", sourceRef: good, actor: "cli" }, now);
      await runWorker(reference, createScoringDeps(reference, { now }), { untilIdle: true });

      const a = await ingestBundle(mini.db, { versionId: mini.versionId, bundlePath: good, source: "local", sourceRef: good, actor: "cli" }, now);
      // A worker that dies mid-run: its job is claimed by a process that no longer exists, and
      // its replay never returns after the second item, so nothing after that happens.
      const lease = (await claimNextJob(mini.db, "pending", now()))!;
      await mini.db.update(jobs).set({ lockedBy: `${hostname()}:999999` }).where(eq(jobs.id, lease.id));
      const dying = createScoringDeps(mini.db, { now });
      let replayed = 0;
      const hang = new Promise<never>(() => {});
      void runScoringJob(mini.db, lease, {
        ...dying,
        flushEvery: 1,
        async replayFor(b, mode) {
          const port = await dying.replayFor(b, mode);
          return { ...port, replay: (req) => (++replayed > 2 ? hang : port.replay(req)) };
        },
      });
      await vi.waitFor(async () => expect((await mini.db.select().from(itemResults))).toHaveLength(2));
      expect((await mini.db.select().from(itemResults))).toHaveLength(2);
      expect((await getSubmission(mini.db, a.submissionId))!.state).toBe("scoring");

      expect((await recoverAbandonedJobs(mini.db, now()))).toBe(1);
      await scoreAll();
      const resumed = (await getSubmission(mini.db, a.submissionId))!;
      const ref = (await getSubmission(reference, r.submissionId))!;
      expect(resumed.state).toBe("scored");
      expect(resumed.run!.overall).toEqual(ref.run!.overall);
      expect(resumed.capabilities).toEqual(ref.capabilities);
      expect((await mini.db.select().from(itemResults))).toHaveLength(4);
      expect((await mini.db.select().from(jobs).limit(1))[0]).toMatchObject({ state: "done", attempts: 2 });
    });
  });
});
