/**
 * A worker told to stop leaves its job to resume (queued, not failed), keeping nothing the
 * stopped judge left unjudged; a running job renews its heartbeat on a timer (injected here),
 * so a long item never looks abandoned; and a worker whose job was taken over publishes
 * nothing. The judge is the real HTTP fake, holding its replies until told otherwise.
 */
import { eq } from "drizzle-orm";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openDatabase, type Db } from "@/db/client";
import { itemResults, jobs, scoringRuns, submissions } from "@/db/schema";
import { registerBenchmark } from "@/lib/submissions/benchmarks";
import { ingestBundle } from "@/lib/submissions/ingest";
import { runScoringJob, type ScoringDeps } from "@/lib/submissions/score-job";
import { createScoringDeps } from "@/lib/submissions/scoring-deps";
import { claimNextJob, DEFAULT_STALE_MS, runWorker } from "@/lib/submissions/worker";
import { startFakeOpenAiServer, passingResponder, type FakeOpenAiServer } from "../helpers/fake-openai-server";
import { GOOD_BUNDLE, MINI_BENCHMARK, tickingClock } from "../helpers/mini-fixtures";
import { ENGINES, freshDatabase, type TestDatabase } from "../helpers/engines";

describe.each(ENGINES)("stopping a worker and its lease (%s)", (engine) => {
  let t: TestDatabase;
  afterEach(async () => {
    await t?.close();
  });
  let server: FakeOpenAiServer;
  let db: Db;
  const now = tickingClock();
  const hang = () => ({ delayMs: 3_600_000, content: '{"verdict": "correct"}' });
  /** Passes everything, a little later: long enough to act while a request is in flight. */
  const slow = (r: Parameters<typeof passingResponder>[0]) => ({ ...passingResponder(r), delayMs: 200 });

  beforeEach(async () => {
    server = await startFakeOpenAiServer(hang);
    t = await freshDatabase(engine);
    db = t.db;
    const { versionId } = await registerBenchmark(db, MINI_BENCHMARK, { now: now() });
    await ingestBundle(db, { versionId, bundlePath: GOOD_BUNDLE, source: "local", sourceRef: GOOD_BUNDLE, actor: "cli", run: { judgeKind: "openai", judgeModel: "m", replayMode: "recorded" } }, now);
  });
  afterEach(async () => {
    await server.close();
  });

  const env = () => ({ AGENTBOARD_JUDGE_BASE_URL: server.baseUrl });
  const until = async (cond: () => boolean) => {
    while (!cond()) await new Promise((r) => setTimeout(r, 5));
  };

  describe("stopping a worker", () => {
    it("puts the job back in the queue within the stop, and a restart finishes it", async () => {
      const stop = new AbortController();
      const deps = createScoringDeps(db, { now, env: env(), signal: stop.signal });
      const running = runWorker(db, deps, { untilIdle: true, signal: stop.signal });
      await until(() => server.inFlight > 0);
      stop.abort();
      expect(await running).toBe(1);
      await deps.close();

      const job = (await db.select().from(jobs).limit(1))[0]!;
      expect(job).toMatchObject({ state: "queued", lockedBy: null, attempts: 1 });
      expect((await db.select().from(scoringRuns).limit(1))[0]!.status).not.toBe("failed");
      expect((await db.select().from(submissions).limit(1))[0]!.state).toBe("scoring");
      // Nothing the stopped judge could not judge was stored as a result.
      for (const { result } of await db.select({ result: itemResults.result }).from(itemResults)) expect(result.status).not.toBe("error");

      server.setResponder(passingResponder);
      const again = createScoringDeps(db, { now, env: env() });
      expect(await runWorker(db, again, { untilIdle: true })).toBe(1);
      await again.close();
      expect((await db.select().from(jobs).limit(1))[0]).toMatchObject({ state: "done", attempts: 2 });
      expect((await db.select().from(scoringRuns).limit(1))[0]!.status).toBe("completed");
      const uuids = (await db.select({ uuid: itemResults.uuid }).from(itemResults)).map((r) => r.uuid).sort();
      expect(uuids).toEqual(["mt-1", "mt-2", "ts-1", "ts-2"]);
    });
  });

  describe("the job's lease", () => {
    it("is renewed on the heartbeat timer while an item waits on the judge", async () => {
      const beats: (() => Promise<void>)[] = [];
      const intervals: number[] = [];
      let stopped = false;
      const base = createScoringDeps(db, { now, env: env() });
      const deps: ScoringDeps = {
        ...base,
        every: (beat, ms) => {
          beats.push(beat);
          intervals.push(ms);
          return () => (stopped = true);
        },
      };
      server.setResponder(slow);
      const lease = (await claimNextJob(db, "worker-a", now()))!;
      const claimedAt = (await db.select().from(jobs).limit(1))[0]!.heartbeatAt!.getTime();
      const job = runScoringJob(db, lease, deps);
      await until(() => server.inFlight > 0);
      expect(intervals).toEqual([30_000]);

      await beats[0]!();
      const renewed = (await db.select().from(jobs).limit(1))[0]!.heartbeatAt!.getTime();
      expect(renewed).toBeGreaterThan(claimedAt);
      // A minute after the renewed beat, another worker still finds nothing to take.
      expect((await claimNextJob(db, "worker-b", new Date(renewed + 60_000)))).toBeUndefined();

      expect(stopped).toBe(false);
      expect(await job).toBe("completed");
      expect(stopped).toBe(true);
      await base.close();
    });

    it("publishes nothing when another worker took the job over", async () => {
      server.setResponder(slow);
      const lease = (await claimNextJob(db, "worker-a", now()))!;
      const deps = createScoringDeps(db, { now, env: env() });
      const running = runScoringJob(db, lease, { ...deps, every: () => () => {} });
      await until(() => server.inFlight > 0);
      // Worker A's heartbeat went stale and worker B claimed the job.
      const b = (await claimNextJob(db, "worker-b", new Date(now().getTime() + DEFAULT_STALE_MS + 60_000)))!;
      expect(b.id).toBe(lease.id);
      const outcome = await running;
      await deps.close();
      expect(outcome).toBe("lost");
      expect((await db.select().from(jobs).limit(1))[0]).toMatchObject({ state: "running", lockedBy: "worker-b" });
      expect((await db.select().from(scoringRuns).limit(1))[0]!.status).toBe("running");
      expect((await db.select().from(submissions).limit(1))[0]!.currentRunId).toBeNull();
    });
  });
});
