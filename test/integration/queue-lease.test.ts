/**
 * The queue with many claimers, on each engine: a claim is one statement, so two claimers
 * (separate connections, all at once) never take the same job; a worker whose lease was taken
 * over writes nothing at all (its every write is fenced by its token); and one worker process
 * with `concurrency: 3` has three jobs in hand at once. No wall-clock bounds: the judge and the
 * replay wait on promises the tests resolve.
 */
import { count, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { closeDatabase, openPostgres, transaction } from "@/db/client";
import { auditLog, capabilityScores, itemResults, jobs, scoringRuns, submissions } from "@/db/schema";
import { registerBenchmark } from "@/lib/submissions/benchmarks";
import { isBusy, writeTx } from "@/lib/submissions/db-busy";
import { holdLease } from "@/lib/submissions/job-lease";
import { ingestBundle } from "@/lib/submissions/ingest";
import { queueRun } from "@/lib/submissions/runs";
import { runScoringJob, type ScoringDeps } from "@/lib/submissions/score-job";
import { createScoringDeps } from "@/lib/submissions/scoring-deps";
import { claimNextJob, DEFAULT_STALE_MS, runWorker, type Lease } from "@/lib/submissions/worker";
import { ENGINES } from "../helpers/engines";
import { useMiniDb } from "../helpers/mini-db";
import { GOOD_BUNDLE, MINI_BENCHMARK, renamedGoodBundle, tickingClock } from "../helpers/mini-fixtures";
import { scriptedGrader } from "../helpers/scripted-grader";
import { deferred } from "../helpers/deferred";


describe.each(ENGINES)("a queue with many claimers (%s)", (engine) => {
  const now = tickingClock();
  const mini = useMiniDb(now, engine);

  const ingest = (bundlePath: string, run = {}) => ingestBundle(mini.db, { versionId: mini.versionId, bundlePath, source: "local", sourceRef: bundlePath, actor: "cli", run }, now);

  it("never gives one job to two claimers, however many claim at once", async () => {
    const { submissionId } = await ingest(GOOD_BUNDLE);
    const benchmark = (await registerBenchmark(mini.db, MINI_BENCHMARK, { isDefault: true, now: now() })).benchmark;
    // 60 more jobs (rescores of one submission are enough: the claim looks at jobs only).
    await writeTx(mini.db, async (tx) => {
      for (let i = 0; i < 60; i++) await queueRun(tx, submissionId, benchmark, {}, now());
    });
    const all = (await mini.db.select({ id: jobs.id }).from(jobs)).map((j) => j.id).sort((a, b) => a - b);
    expect(all).toHaveLength(61);

    // Postgres: six claimers, each its own pool (its own connections). SQLite: one handle, whose
    // transactions take turns in-process (a second handle in this process would block the event
    // loop on the file lock; many-workers.test.ts runs claimers in separate processes).
    const handles = engine === "postgres" ? await Promise.all(Array.from({ length: 6 }, () => openPostgres(mini.url!, { poolSize: 3 }))) : Array.from({ length: 6 }, () => mini.db);
    try {
      const at = new Date(Date.UTC(2026, 10, 22, 12));
      const claims = await Promise.all(
        handles.flatMap((h, i) =>
          // Three claim loops per handle: concurrent claims on one pool too.
          [0, 1, 2].map(async (k) => {
            const got: Lease[] = [];
            for (;;) {
              const lease = await claimNextJob(h, `claimer-${i}-${k}`, at);
              if (!lease) return got;
              got.push(lease);
            }
          }),
        ),
      );
      const ids = claims.flat().map((l) => l.id).sort((a, b) => a - b);
      expect(ids).toEqual(all);
      expect(new Set(claims.flat().map((l) => l.token)).size).toBe(61);
      const rows = await mini.db.select({ state: jobs.state, attempts: jobs.attempts }).from(jobs);
      expect(rows.every((r) => r.state === "running" && r.attempts === 1)).toBe(true);
    } finally {
      if (engine === "postgres") await Promise.all(handles.map((h) => closeDatabase(h)));
    }
  });

  it("lets a worker whose lease was taken over write nothing: no items, run state, publishing or audit rows", async () => {
    const { submissionId } = await ingest(GOOD_BUNDLE);
    const claimedAt = now();
    const a = (await claimNextJob(mini.db, "machine-a:1", claimedAt))!;
    const base = createScoringDeps(mini.db, { now });
    // Worker A's replay waits at its first item until the test lets it go.
    const reached = deferred();
    const gate = deferred();
    const deps: ScoringDeps = {
      ...base,
      flushEvery: 1,
      every: () => () => {}, // A's heartbeat timer never fires: its lease goes stale
      async replayFor(b, mode) {
        const port = await base.replayFor(b, mode);
        return {
          ...port,
          async replay(req) {
            reached.resolve();
            await gate.promise;
            return port.replay(req);
          },
        };
      },
    };
    const running = runScoringJob(mini.db, a, deps);
    await reached.promise;

    // Past the stale limit, worker B claims the job: a new token.
    const b = (await claimNextJob(mini.db, "machine-b:1", new Date(claimedAt.getTime() + DEFAULT_STALE_MS + 60_000)))!;
    expect(b.id).toBe(a.id);
    expect(b.token).not.toBe(a.token);
    const snapshot = async () => ({
      items: (await mini.db.select({ n: count() }).from(itemResults))[0]!.n,
      capabilities: (await mini.db.select({ n: count() }).from(capabilityScores))[0]!.n,
      audit: await mini.db.select().from(auditLog).orderBy(auditLog.id),
      run: (await mini.db.select().from(scoringRuns))[0],
      submission: (await mini.db.select().from(submissions).where(eq(submissions.id, submissionId)))[0],
      job: (await mini.db.select().from(jobs))[0],
    });
    const before = await snapshot();
    expect(before.items).toBe(0);
    expect(before.job).toMatchObject({ state: "running", lockedBy: "machine-b:1", leaseToken: b.token });

    gate.resolve();
    expect(await running).toBe("lost");
    await base.close();
    expect(await snapshot()).toEqual(before);

    // B, the lease holder, scores and publishes the run once.
    const deps2 = createScoringDeps(mini.db, { now });
    expect(await runScoringJob(mini.db, b, deps2)).toBe("completed");
    await deps2.close();
    const after = await snapshot();
    expect(after.items).toBe(4);
    expect(after.run).toMatchObject({ status: "completed" });
    expect(after.submission).toMatchObject({ state: "scored", currentRunId: after.run!.id });
    expect(after.audit.filter((r) => r.action === "run:completed")).toHaveLength(1);
  });

  it("a lost lease also stops a failing or stopped worker from writing", async () => {
    await ingest(GOOD_BUNDLE);
    const claimedAt = now();
    const a = (await claimNextJob(mini.db, "machine-a:1", claimedAt))!;
    await claimNextJob(mini.db, "machine-b:1", new Date(claimedAt.getTime() + DEFAULT_STALE_MS + 60_000));
    const base = createScoringDeps(mini.db, { now });
    // The judge cannot be built: A would fail the job, but the job is no longer A's.
    const outcome = await runScoringJob(mini.db, a, {
      ...base,
      graderFor: () => {
        throw new Error("no key");
      },
    });
    await base.close();
    expect(outcome).toBe("lost");
    expect((await mini.db.select().from(jobs))[0]).toMatchObject({ state: "running", lockedBy: "machine-b:1", lastError: null });
    expect((await mini.db.select().from(scoringRuns))[0]!.status).toBe("queued");
    expect((await mini.db.select().from(auditLog).where(eq(auditLog.actor, "worker"))).length).toBe(0);
  });

  it("scores three jobs at once with concurrency 3", async () => {
    for (const agent of ["one", "two", "three", "four"]) await ingest(renamedGoodBundle(mini.scratch(agent), agent), { judgeKind: "openai", judgeModel: "m", replayMode: "recorded" });
    const base = createScoringDeps(mini.db, { now });
    // Each job's judge waits at its first request until three jobs are waiting at once.
    const gate = deferred();
    const threeIn = deferred();
    let jobsIn = 0;
    let judges = 0;
    const deps: ScoringDeps = {
      ...base,
      graderFor(benchmark, spec) {
        const { judge } = base.graderFor(benchmark, { judgeKind: "rules" });
        const { grader } = scriptedGrader({ decide: () => true });
        const job = judges++;
        let entered = false;
        return {
          judge: { ...judge, id: `gated-${spec.judgeKind}` },
          grader: {
            ...grader,
            async grade(req) {
              if (!entered && job < 3) {
                entered = true;
                if (++jobsIn === 3) threeIn.resolve();
                await gate.promise;
              }
              return grader.grade(req);
            },
          },
        };
      },
    };
    const worker = runWorker(mini.db, deps, { untilIdle: true, concurrency: 3, workerId: "machine-a:1" });
    await threeIn.promise;
    // Three jobs are claimed and running under three leases; the fourth waits in the queue.
    const states = (await mini.db.select({ state: jobs.state, token: jobs.leaseToken }).from(jobs).orderBy(jobs.id)).map((j) => j.state);
    expect(states).toEqual(["running", "running", "running", "queued"]);
    gate.resolve();
    expect(await worker).toBe(4);
    await base.close();
    expect((await mini.db.select({ state: jobs.state }).from(jobs)).map((j) => j.state)).toEqual(["done", "done", "done", "done"]);
    expect((await mini.db.select({ status: scoringRuns.status }).from(scoringRuns)).map((r) => r.status)).toEqual(["completed", "completed", "completed", "completed"]);
  });

  // A worker frozen inside a transaction (a paused VM) keeps its job's row locked; a claim passes
  // over locked rows (SKIP LOCKED), so without the server ending that idle transaction the job
  // could never be taken over, however stale its lease. Postgres only: SQLite has no row locks.
  it.runIf(engine === "postgres")("frees the job a frozen worker's open transaction holds, so another worker takes it over", async () => {
    await ingest(GOOD_BUNDLE);
    const frozen = await openPostgres(mini.url!, { poolSize: 1, idleTransactionMs: 300 });
    try {
      const claimedAt = now();
      const lease = (await claimNextJob(frozen, "frozen:1", claimedAt))!;
      expect(lease).toBeDefined();
      const inside = deferred();
      const thaw = deferred();
      const stuck = transaction(frozen, async (tx) => {
        expect(await holdLease(tx, lease, claimedAt)).toBe(true);
        inside.resolve();
        // Frozen: the transaction sits idle, its row lock held, until the test thaws it.
        await thaw.promise;
        return holdLease(tx, lease, claimedAt);
      }).then(
        () => "committed",
        (err: unknown) => (isBusy(err) ? "connection ended" : `failed: ${String(err)}`),
      );
      await inside.promise;
      // Long past the lease: the other worker claims until the server has ended the idle transaction.
      const later = new Date(claimedAt.getTime() + DEFAULT_STALE_MS + 60_000);
      let taken: Lease | undefined;
      while (!(taken = await claimNextJob(mini.db, "other:1", later))) await new Promise((r) => setTimeout(r, 50));
      expect(taken.id).toBe(lease.id);
      thaw.resolve();
      // The thawed transaction cannot go on: its session is gone, and a retry finds the lease lost.
      expect(await stuck).toBe("connection ended");
      expect(await writeTx(frozen, (tx) => holdLease(tx, lease, now()))).toBe(false);
      expect((await mini.db.select().from(jobs))[0]).toMatchObject({ state: "running", lockedBy: "other:1", leaseToken: taken.token });
    } finally {
      await closeDatabase(frozen);
    }
  });
});
