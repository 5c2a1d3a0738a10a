/**
 * Issue 26, item 9: a submission withdrawn while its run is scoring stops the run at the next
 * flush of items. That flush finds the submission withdrawn, closes the run as superseded and
 * writes none of its items; scoring ends and the job says `superseded`. On each engine; no
 * wall-clock bounds: the replay waits on promises the test resolves.
 */
import { count, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { auditLog, capabilityScores, itemResults, jobs, scoringRuns, submissions } from "@/db/schema";
import { ingestBundle } from "@/lib/submissions/ingest";
import { withdraw } from "@/lib/submissions/review";
import { runScoringJob, type ScoringDeps } from "@/lib/submissions/score-job";
import { createScoringDeps } from "@/lib/submissions/scoring-deps";
import { claimNextJob } from "@/lib/submissions/worker";
import { ENGINES } from "../helpers/engines";
import { useMiniDb } from "../helpers/mini-db";
import { GOOD_BUNDLE, tickingClock } from "../helpers/mini-fixtures";
import { deferred } from "../helpers/deferred";


describe.each(ENGINES)("a run whose submission is withdrawn mid-run (%s)", (engine) => {
  const now = tickingClock();
  const mini = useMiniDb(now, engine);

  it("stops at the next flush: no item row after the withdrawal, the run superseded, the job done", async () => {
    const { submissionId } = await ingestBundle(mini.db, { versionId: mini.versionId, bundlePath: GOOD_BUNDLE, source: "local", sourceRef: GOOD_BUNDLE, actor: "cli" }, now);
    const lease = (await claimNextJob(mini.db, "machine-a:1", now()))!;
    const base = createScoringDeps(mini.db, { now });
    // The first dialogue's replay goes through; the others wait until the test lets them go.
    const gate = deferred();
    let replays = 0;
    let replaysAfterGate = 0;
    const deps: ScoringDeps = {
      ...base,
      flushEvery: 1,
      async replayFor(b, mode) {
        const port = await base.replayFor(b, mode);
        return {
          ...port,
          async replay(req) {
            if (++replays > 1) {
              await gate.promise;
              replaysAfterGate++;
            }
            return port.replay(req);
          },
        };
      },
    };
    const stored = async () => (await mini.db.select({ n: count() }).from(itemResults))[0]!.n;
    try {
      const running = runScoringJob(mini.db, lease, deps);
      // The first item is stored (flushEvery 1) before the submission is withdrawn.
      while ((await stored()) === 0) await new Promise((r) => setImmediate(r));
      expect(await stored()).toBe(1);
      await withdraw(mini.db, submissionId, { actor: "submitter:bob", at: now() }, "changed my mind");

      gate.resolve();
      expect(await running).toBe("superseded");
      expect(replaysAfterGate).toBeGreaterThan(0);
    } finally {
      await base.close();
    }

    // The items scored after the withdrawal were not stored: the flush that found it wrote none.
    expect(await stored()).toBe(1);
    const [run] = await mini.db.select().from(scoringRuns);
    expect(run).toMatchObject({ status: "superseded", overallScore: null, progressDone: 1 });
    expect(run!.finishedAt).not.toBeNull();
    expect(await mini.db.select().from(capabilityScores)).toEqual([]);
    expect((await mini.db.select().from(jobs))[0]).toMatchObject({ state: "done", lockedBy: "machine-a:1" });
    expect((await mini.db.select().from(submissions).where(eq(submissions.id, submissionId)))[0]).toMatchObject({ state: "withdrawn", currentRunId: null });
    const audit = await mini.db.select().from(auditLog).where(eq(auditLog.submissionId, submissionId)).orderBy(auditLog.id);
    expect(audit.map((r) => r.toState ?? r.action)).toEqual(["received", "validating", "queued", "scoring", "withdrawn", "run:superseded"]);
    expect(audit.at(-1)).toMatchObject({ actor: "worker", reason: `run ${run!.id} superseded: the submission is withdrawn` });
  });
});
