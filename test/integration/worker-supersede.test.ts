/**
 * A submission withdrawn or rescored while its run is scoring: the run is closed as
 * superseded and the worker goes on to the next job; a job that throws fails alone.
 */
import { cpSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { and, count, eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { rows } from "@/db/client";
import { auditLog, capabilityScores, itemResults, jobs, scoringRuns, submissions } from "@/db/schema";
import { ingestBundle } from "@/lib/submissions/ingest";
import { rescore, withdraw } from "@/lib/submissions/review";
import { createScoringDeps } from "@/lib/submissions/scoring-deps";
import { runWorker } from "@/lib/submissions/worker";
import { GOOD_BUNDLE, tickingClock } from "../helpers/mini-fixtures";
import { ENGINES } from "../helpers/engines";
import { useMiniDb } from "../helpers/mini-db";

describe.each(ENGINES)("superseded runs (%s)", (engine) => {
  const good = GOOD_BUNDLE;

  const now = tickingClock();
  const mini = useMiniDb(now, engine);
  const who = () => ({ actor: "submitter:bob", at: now() });

  /** A second, different bundle (its sha256 differs from the good one's). */
  function otherBundle(): string {
    const dir = mini.scratch("other");
    cpSync(good, dir, { recursive: true });
    writeFileSync(path.join(dir, "output/metadata.json"), JSON.stringify({ ...JSON.parse(readFileSync(path.join(good, "output/metadata.json"), "utf8")), agent_name: "other-agent" }));
    return dir;
  }

  const ingest = async (bundlePath: string) => (await ingestBundle(mini.db, { versionId: mini.versionId, bundlePath, source: "local", sourceRef: bundlePath, actor: "cli" }, now)).submissionId;
  const stored = async (runId: number) => (await mini.db.select({ n: count() }).from(itemResults).where(eq(itemResults.runId, runId)).limit(1))[0]!.n;
  const runsOf = async (submissionId: number) => (await mini.db.select().from(scoringRuns).where(eq(scoringRuns.submissionId, submissionId)).orderBy(scoringRuns.id));
  const jobOf = async (runId: number) => (await mini.db.select().from(jobs).where(eq(jobs.runId, runId)).limit(1))[0]!;
  const stateOf = async (submissionId: number) => (await mini.db.select().from(submissions).where(eq(submissions.id, submissionId)).limit(1))[0]!;
  const yieldTurn = () => new Promise((r) => setImmediate(r));

  /**
   * Scoring deps whose replay, for the run of `target`, lets the first dialogue through, holds
   * the others until an item of that run is stored, then calls `interrupt` once: the
   * submission changes under a run that is half scored.
   */
  function interruptingDeps(target: number, interrupt: () => Promise<void> | void) {
    const base = createScoringDeps(mini.db, { now });
    const at = { storedBefore: -1, fired: false };
    let calls = 0;
    const deps = {
      ...base,
      flushEvery: 1,
      async replayFor(...args: Parameters<typeof base.replayFor>) {
        const port = await base.replayFor(...args);
        return {
          ...port,
          replay: async (req: Parameters<typeof port.replay>[0]) => {
            const run = (await runsOf(target))[0]!;
            if (!at.fired && (await stateOf(target)).state === "scoring" && run.status === "running" && ++calls > 1) {
              while ((await stored(run.id)) === 0) await yieldTurn();
              if (!at.fired) {
                at.fired = true;
                at.storedBefore = (await stored(run.id));
                await interrupt();
              }
            }
            return port.replay(req);
          },
        };
      },
    };
    return { deps, at };
  }

  describe("worker and superseded runs", () => {
    it("closes a run whose submission was withdrawn mid-run as superseded, and scores the next submission", async () => {
      const a = await ingest(good);
      const b = await ingest(otherBundle());
      const { deps, at } = interruptingDeps(a, () => withdraw(mini.db, a, who(), "changed my mind"));
      try {
        expect(await runWorker(mini.db, deps, { untilIdle: true })).toBe(2);
      } finally {
        await deps.close();
      }
      expect(at.fired).toBe(true);

      const [runA] = (await runsOf(a));
      expect(runA).toMatchObject({ status: "superseded", overallScore: null });
      expect(runA!.finishedAt).not.toBeNull();
      expect((await stored(runA!.id))).toBeGreaterThanOrEqual(at.storedBefore);
      expect(at.storedBefore).toBeGreaterThan(0);
      expect((await mini.db.select().from(capabilityScores).where(eq(capabilityScores.runId, runA!.id)))).toEqual([]);
      expect((await jobOf(runA!.id))).toMatchObject({ state: "done" });
      expect((await stateOf(a))).toMatchObject({ state: "withdrawn", currentRunId: null });
      const audit = (await mini.db.select().from(auditLog).where(eq(auditLog.submissionId, a)).orderBy(auditLog.id));
      expect(audit.map((r) => r.toState ?? r.action)).toEqual(["received", "validating", "queued", "scoring", "withdrawn", "run:superseded"]);
      expect(audit.at(-1)!.reason).toMatch(/withdrawn/);
      expect(audit.at(-1)!.details).toMatchObject({ runId: runA!.id });

      const [runB] = (await runsOf(b));
      expect(runB).toMatchObject({ status: "completed" });
      expect((await jobOf(runB!.id))).toMatchObject({ state: "done" });
      expect((await stateOf(b))).toMatchObject({ state: "scored", currentRunId: runB!.id });
    });

    it("closes the old run of a submission rescored mid-run as superseded, and scores the new run", async () => {
      const a = await ingest(good);
      let newRun = 0;
      const { deps, at } = interruptingDeps(a, async () => {
        newRun = await rescore(mini.db, a, { actor: "maintainer:ada", at: now() }, {}, "judge update");
      });
      try {
        expect(await runWorker(mini.db, deps, { untilIdle: true })).toBe(2);
      } finally {
        await deps.close();
      }
      expect(at.fired).toBe(true);

      const [old, fresh] = (await runsOf(a));
      expect(fresh!.id).toBe(newRun);
      expect(old).toMatchObject({ status: "superseded", overallScore: null });
      expect((await stored(old!.id))).toBeGreaterThan(0);
      expect((await jobOf(old!.id))).toMatchObject({ state: "done" });
      expect(fresh).toMatchObject({ status: "completed", overallScore: expect.any(Number) });
      expect((await stored(fresh!.id))).toBe(4);
      expect((await jobOf(fresh!.id))).toMatchObject({ state: "done" });
      expect((await stateOf(a))).toMatchObject({ state: "scored", currentRunId: fresh!.id });
      const superseded = (await mini.db.select().from(auditLog).where(and(eq(auditLog.submissionId, a), eq(auditLog.action, "run:superseded"))));
      expect(superseded).toHaveLength(1);
      expect(superseded[0]!.details).toMatchObject({ runId: old!.id });
      expect(superseded[0]!.reason).toMatch(/queued|newer run/);
    });

    it("closes a queued job of a withdrawn submission as superseded without scoring it", async () => {
      const a = await ingest(good);
      await withdraw(mini.db, a, who());
      const deps = createScoringDeps(mini.db, { now });
      try {
        expect(await runWorker(mini.db, deps, { untilIdle: true })).toBe(1);
      } finally {
        await deps.close();
      }
      const [run] = (await runsOf(a));
      expect(run).toMatchObject({ status: "superseded" });
      expect((await stored(run!.id))).toBe(0);
      expect((await jobOf(run!.id))).toMatchObject({ state: "done" });
      expect((await stateOf(a)).state).toBe("withdrawn");
    });

    it("fails a job that throws and goes on to the next one", async () => {
      // A job whose run does not exist (a row left by hand): running it throws.
      // Foreign keys are switched off for the insert (Postgres: the table's FK triggers, for the
      // rest of this throwaway database's test, since updating the row checks its key again).
      if (engine === "sqlite") mini.db.$client.pragma("foreign_keys = OFF");
      else await rows(mini.db, sql`ALTER TABLE jobs DISABLE TRIGGER ALL`);
      const [broken] = await mini.db.insert(jobs).values({ kind: "score", runId: 9999, state: "queued", createdAt: now(), updatedAt: now() }).returning();
      if (engine === "sqlite") mini.db.$client.pragma("foreign_keys = ON");
      const a = await ingest(good);
      const log: string[] = [];
      const deps = createScoringDeps(mini.db, { now });
      try {
        expect(await runWorker(mini.db, deps, { untilIdle: true, log: (l) => log.push(l) })).toBe(2);
      } finally {
        await deps.close();
      }
      const failed = (await mini.db.select().from(jobs).where(eq(jobs.id, broken!.id)).limit(1))[0]!;
      expect(failed.state).toBe("failed");
      expect(failed.lastError).toMatch(/run 9999/);
      expect(log.some((l) => l.startsWith(`job ${broken!.id}: failed`))).toBe(true);
      const [run] = (await runsOf(a));
      expect(run).toMatchObject({ status: "completed" });
      expect((await stateOf(a))).toMatchObject({ state: "scored", currentRunId: run!.id });
    });
  });
});
