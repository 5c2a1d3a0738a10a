/**
 * Restoring a withdrawn entry (lib/submissions/review.ts#restore) from each state it can be
 * withdrawn in, and the public changelog (lib/queries/changelog.ts) that reports it: on the
 * mini benchmark, a fresh database of each engine with the committed migrations and the real worker.
 */
import { rmSync } from "node:fs";
import path from "node:path";
import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { auditLog, jobs, scoringRuns, submissions } from "@/db/schema";
import { getReviewQueuePage } from "@/lib/queries/activity";
import { getChangelogPage } from "@/lib/queries/changelog";
import { getLeaderboard } from "@/lib/queries/leaderboard";
import { ingestBundle } from "@/lib/submissions/ingest";
import { applyReviewAction, approve, availableActions, reject, rescore, restore, withdraw } from "@/lib/submissions/review";
import { createScoringDeps } from "@/lib/submissions/scoring-deps";
import { transition, TransitionError } from "@/lib/submissions/transitions";
import { runWorker } from "@/lib/submissions/worker";
import { scriptedGrader } from "../helpers/scripted-grader";
import { INVALID_BUNDLE, renamedGoodBundle, tickingClock } from "../helpers/mini-fixtures";
import { ENGINES } from "../helpers/engines";
import { useMiniDb } from "../helpers/mini-db";

describe.each(ENGINES)("restoring and the changelog (%s)", (engine) => {
  const now = tickingClock();
  const who = () => ({ actor: "maintainer:ada", at: now() });
  const mini = useMiniDb(now, engine);

  /** A copy of the good bundle (a new sha256, so a new submission) under its own agent name. */
  const goodCopy = (agent: string) => renamedGoodBundle(mini.scratch("good"), agent);

  const ingest = async (bundle: string) => (await ingestBundle(mini.db, { versionId: mini.versionId, bundlePath: bundle, source: "local", sourceRef: bundle, actor: "cli" }, now)).submissionId;

  async function score(deps = createScoringDeps(mini.db, { now })) {
    try {
      return await runWorker(mini.db, deps, { untilIdle: true });
    } finally {
      await deps.close();
    }
  }

  async function published(agent = "restorable"): Promise<number> {
    const id = await ingest(goodCopy(agent));
    await score();
    await approve(mini.db, id, who());
    return id;
  }

  const sub = async (id: number) => (await mini.db.select().from(submissions).where(eq(submissions.id, id)).limit(1))[0]!;
  const audit = async (id: number) => (await mini.db.select().from(auditLog).where(eq(auditLog.submissionId, id)));
  const runs = async (id: number) => (await mini.db.select().from(scoringRuns).where(eq(scoringRuns.submissionId, id)));
  const onBoard = async () => (await getLeaderboard(mini.db))!.entries.map((e) => e.id);

  describe("restore", () => {
    it("puts a withdrawn published entry back on the board with the same run, and records it", async () => {
      const id = await published();
      const run = (await sub(id)).currentRunId;
      await withdraw(mini.db, id, who(), "asked by the submitter");
      expect((await onBoard())).not.toContain(id);
      const before = (await audit(id)).length;
      expect(await restore(mini.db, id, who())).toEqual({ from: "published", to: "published" });
      expect((await sub(id))).toMatchObject({ state: "published", currentRunId: run });
      expect((await onBoard())).toContain(id);
      expect((await runs(id))).toHaveLength(1); // nothing rescored
      const rows = (await audit(id));
      expect(rows).toHaveLength(before + 1);
      expect(rows.at(-1)).toMatchObject({ actor: "maintainer:ada", action: "state:published", fromState: "withdrawn", toState: "published", reason: "" });
      expect(rows.at(-1)!.details).toMatchObject({ runId: run, restoredFrom: "published" });
    });

    it("puts a partial entry (a capability not submitted) back on the board too", async () => {
      const dir = goodCopy("partial-agent");
      rmSync(path.join(dir, "output/capability_4_multiturn"), { recursive: true });
      const id = await ingest(dir);
      await score();
      expect((await runs(id))[0]!.complete).toBe(false);
      await approve(mini.db, id, who());
      await withdraw(mini.db, id, who());
      expect(await restore(mini.db, id, who())).toEqual({ from: "published", to: "published" });
      expect((await onBoard())).toContain(id);
    });

    it("sends an entry whose approved run is no longer its current one to scored, awaiting approval", async () => {
      const id = await published();
      const first = (await sub(id)).currentRunId!;
      await rescore(mini.db, id, who(), {}, "judge update");
      await score();
      await approve(mini.db, id, who());
      await withdraw(mini.db, id, who());
      // A run that became current while it was withdrawn (nothing in Agentboard does that; an old database might).
      await mini.db.update(submissions).set({ currentRunId: first }).where(eq(submissions.id, id));
      expect(await restore(mini.db, id, who())).toEqual({ from: "published", to: "scored" });
      expect((await sub(id)).state).toBe("scored");
      expect((await onBoard())).not.toContain(id);
    });

    it("returns scored, error and invalid entries to the state they were withdrawn from", async () => {
      const scored = await ingest(goodCopy("scored-one"));
      await score();
      const invalid = await ingest(INVALID_BUNDLE);
      const failing = await ingest(goodCopy("failing-one"));
      const deps = createScoringDeps(mini.db, { now });
      await score({
        ...deps,
        graderFor: () => {
          throw new Error("no judge today");
        },
      }); // score() closes the deps
      expect([(await sub(scored)).state, (await sub(invalid)).state, (await sub(failing)).state]).toEqual(["scored", "invalid", "error"]);
      for (const id of [scored, invalid, failing]) {
        const state = (await sub(id)).state;
        await withdraw(mini.db, id, who(), "oops");
        expect(await restore(mini.db, id, who())).toEqual({ from: state, to: state });
        expect((await sub(id)).state).toBe(state);
      }
    });

    it("re-queues an entry withdrawn while queued or scoring, with a new run the worker then scores", async () => {
      const queued = await ingest(goodCopy("queued-one"));
      const scoring = await ingest(goodCopy("scoring-one"));
      await transition(mini.db, scoring, "scoring", { actor: "worker", at: now() }); // the worker's first step on a run
      for (const id of [queued, scoring]) {
        await withdraw(mini.db, id, who());
        expect(await restore(mini.db, id, who())).toMatchObject({ to: "queued" });
        expect((await sub(id)).state).toBe("queued");
        expect((await runs(id))).toHaveLength(2);
        const last = (await audit(id)).at(-1)!;
        expect(last).toMatchObject({ fromState: "withdrawn", toState: "queued" });
        expect(last.details).toMatchObject({ runId: (await runs(id))[1]!.id });
      }
      await score();
      for (const id of [queued, scoring]) {
        expect((await sub(id)).state).toBe("scored");
        expect((await runs(id)).map((r) => r.status)).toEqual(["superseded", "completed"]);
      }
    });

    it("is refused from any other state, and a second restore changes nothing", async () => {
      const id = await published();
      await expect(restore(mini.db, id, who())).rejects.toThrow(TransitionError);
      const scored = await ingest(goodCopy("not-withdrawn"));
      await score();
      await expect(restore(mini.db, scored, who())).rejects.toThrow(/is not withdrawn/);
      await reject(mini.db, scored, who(), "uses the ground truth");
      await expect(restore(mini.db, scored, who())).rejects.toThrow(TransitionError); // a rejection is undone by a rescore, not a restore
      expect(availableActions("rejected")).not.toContain("restore");

      await withdraw(mini.db, id, who());
      await applyReviewAction(mini.db, id, { name: "restore" }, who());
      const rows = (await audit(id)).length;
      const jobCount = (await mini.db.select().from(jobs)).length;
      await expect(applyReviewAction(mini.db, id, { name: "restore" }, who())).rejects.toThrow(TransitionError);
      expect((await audit(id))).toHaveLength(rows);
      expect((await mini.db.select().from(jobs))).toHaveLength(jobCount);
      expect((await sub(id)).state).toBe("published");
    });

    it("is the only way out of withdrawn: approve and rescore cannot undo a withdrawal", async () => {
      const id = await published();
      await withdraw(mini.db, id, who());
      await expect(approve(mini.db, id, who())).rejects.toThrow(TransitionError);
      await expect(rescore(mini.db, id, who())).rejects.toThrow(TransitionError);
      expect(availableActions("withdrawn")).toEqual(["restore"]);
    });

    it("refuses an entry withdrawn before it was validated", async () => {
      const id = await published();
      await withdraw(mini.db, id, who());
      // Ingestion validates in the same transaction, so only a race could withdraw a received entry: stand one in.
      await mini.db.update(auditLog).set({ fromState: "received" }).where(and(eq(auditLog.submissionId, id), eq(auditLog.toState, "withdrawn")));
      await expect(restore(mini.db, id, who())).rejects.toThrow(/before it was validated/);
      expect((await sub(id)).state).toBe("withdrawn");
    });

    it("lists withdrawn entries for maintainers, with the state they left", async () => {
      const id = await published();
      await withdraw(mini.db, id, who());
      const row = (await getReviewQueuePage(mini.db, { state: "withdrawn" })).rows.find((r) => r.id === id);
      expect(row).toMatchObject({ state: "withdrawn", withdrawnFrom: "published", benchmark: "Mini harbor benchmark v1.0" });
      expect((await getReviewQueuePage(mini.db, { benchmark: "no-such-benchmark" })).rows).toEqual([]);
      // Awaiting approval is counted whatever state the list shows.
      const scored = await ingest(goodCopy("awaiting"));
      await score();
      expect((await getReviewQueuePage(mini.db, { state: "withdrawn" }))).toMatchObject({ waiting: 1, total: 1 });
      expect((await getReviewQueuePage(mini.db))).toMatchObject({ waiting: 1, total: 2 });
      expect((await getReviewQueuePage(mini.db, { id: scored })).rows.map((r) => r.agent)).toEqual(["awaiting"]);
    });
  });

  describe("the public changelog", () => {
    it("tells readers what matters: published, withdrawn with the reason, restored, rescored old → new", async () => {
      const id = await published("changing-agent");
      const first = (await sub(id)).currentRunId!;
      const firstOverall = (await runs(id))[0]!.overallScore!;
      await withdraw(mini.db, id, who(), "a bug in the harness");
      await restore(mini.db, id, who());
      // A rescore under a new judge that passes every answer: the overall goes up.
      await rescore(mini.db, id, who(), {}, "judge update");
      const deps = createScoringDeps(mini.db, { now });
      await score({ ...deps, graderFor: () => ({ grader: scriptedGrader({ decide: () => true }).grader, judge: { id: "lenient", kind: "rules", model: null, baseUrl: null, concurrency: 1 } }) }); // score() closes the deps
      await approve(mini.db, id, who());
      const second = (await sub(id)).currentRunId!;
      expect(second).not.toBe(first);
      const secondOverall = (await runs(id))[1]!.overallScore!;
      expect(secondOverall).toBeGreaterThan(firstOverall);

      const log = (await getChangelogPage(mini.db, { entry: id }));
      expect(log.rows.map((r) => r.kind)).toEqual(["rescored", "unlisted", "restored", "withdrawn", "published"]);
      const [rescored, unlisted, restored, withdrawn, pub] = log.rows;
      expect(pub).toMatchObject({ overall: firstOverall, previousOverall: null, isPublic: true, agent: "changing-agent" });
      expect(withdrawn).toMatchObject({ reason: "a bug in the harness", fromState: "published", overall: null });
      expect(restored).toMatchObject({ toState: "published", overall: firstOverall });
      expect(unlisted).toMatchObject({ toState: "queued", reason: "judge update" });
      expect(rescored).toMatchObject({ previousOverall: firstOverall, overall: secondOverall });
      // None of the internal steps: no validating, queued-from-validating, scoring, scored or run rows.
      expect(log.total).toBe(5);
      expect(log.rows.some((r) => r.toState === "scoring" || r.toState === "scored" || r.toState === "validating")).toBe(false);
    });

    it("reads the overall of a publication recorded before publications carried their run from the entry's current run", async () => {
      const id = await published("legacy-agent");
      const overall = (await runs(id))[0]!.overallScore!;
      await mini.db.update(auditLog).set({ details: null }).where(and(eq(auditLog.submissionId, id), eq(auditLog.toState, "published")));
      expect((await getChangelogPage(mini.db, { entry: id })).rows[0]).toMatchObject({ kind: "published", overall });
      await withdraw(mini.db, id, who());
      expect((await getChangelogPage(mini.db, { entry: id, maintainer: true })).rows[1]).toMatchObject({ kind: "published", overall: null });
    });

    it("filters by entry and pages", async () => {
      const a = await published("agent-a");
      const b = await published("agent-b");
      await withdraw(mini.db, b, who(), "duplicate");
      expect(new Set((await getChangelogPage(mini.db, { entry: a })).rows.map((r) => r.submissionId))).toEqual(new Set([a]));
      const all = (await getChangelogPage(mini.db));
      expect(all.total).toBe(3);
      expect(all.rows[0]).toMatchObject({ submissionId: b, kind: "withdrawn" });
      const page2 = (await getChangelogPage(mini.db, { pageSize: 2, page: 2 }));
      expect(page2.rows.map((r) => r.id)).toEqual([all.rows[2]!.id]);
    });

    it("shows scores only of entries public now; a maintainer sees them all", async () => {
      const id = await published("hidden-now");
      const overall = (await runs(id))[0]!.overallScore!;
      await withdraw(mini.db, id, who(), "taken down");
      const publicRow = (await getChangelogPage(mini.db, { entry: id })).rows.find((r) => r.kind === "published")!;
      expect(publicRow).toMatchObject({ overall: null, isPublic: false });
      expect(JSON.stringify((await getChangelogPage(mini.db, { entry: id })).rows)).not.toContain(String(overall));
      expect((await getChangelogPage(mini.db, { entry: id, maintainer: true })).rows.find((r) => r.kind === "published")!.overall).toBe(overall);
      // A rejected entry that was never published is named with its reason, without scores.
      const never = await ingest(goodCopy("never-public"));
      await score();
      await reject(mini.db, never, who(), "outputs use the ground truth");
      expect((await getChangelogPage(mini.db, { entry: never })).rows).toEqual([expect.objectContaining({ kind: "rejected", reason: "outputs use the ground truth", fromState: "scored", overall: null, isPublic: false })]);
    });
  });
});
