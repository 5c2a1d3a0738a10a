/**
 * The public queue (lib/queries/queue.ts) on a real database (each engine): the submissions in
 * flight in the order the worker takes them, with positions, the running one with progress and
 * an estimate only when its pace can tell; the finished ones behind a state filter.
 */
import { eq } from "drizzle-orm";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { formatRemaining } from "@/app/queue/format-remaining";
import { jobs, scoringRuns } from "@/db/schema";
import { getFinishedPage, getInFlight, remainingMs } from "@/lib/queries/queue";
import { ingestBundle } from "@/lib/submissions/ingest";
import { approve, rescore, withdraw } from "@/lib/submissions/review";
import { createScoringDeps } from "@/lib/submissions/scoring-deps";
import { transition } from "@/lib/submissions/transitions";
import { claimNextJob, runWorker } from "@/lib/submissions/worker";
import { registerBenchmark } from "@/lib/submissions/benchmarks";
import { ENGINES, freshDatabase, type TestDatabase } from "../../helpers/engines";
import { MINI_BENCHMARK, renamedGoodBundle, tickingClock } from "../../helpers/mini-fixtures";

const now = tickingClock();
const who = () => ({ actor: "maintainer:ada", at: now() });
const tmp = mkdtempSync(path.join(tmpdir(), "agentboard-queue-order-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
let bundles = 0;

describe.each(ENGINES)("the queue (%s)", (engine) => {
  let t: TestDatabase;
  let versionId: number;
  beforeEach(async () => {
    t = await freshDatabase(engine);
    versionId = (await registerBenchmark(t.db, MINI_BENCHMARK, { isDefault: true, now: now() })).versionId;
  });
  afterEach(() => t.close());

  async function ingest(agent: string): Promise<number> {
    const dir = renamedGoodBundle(path.join(tmp, `bundle-${bundles++}`), agent);
    return (await ingestBundle(t.db, { versionId, bundlePath: dir, source: "local", sourceRef: dir, actor: "cli" }, now)).submissionId;
  }

  it("numbers waiting submissions in the worker's order, after the running one, and skips withdrawn ones", async () => {
    const db = t.db;
    const d = await ingest("published-then-rescored");
    const deps = createScoringDeps(db, { now });
    await runWorker(db, deps, { untilIdle: true });
    await deps.close();
    await approve(db, d, who());
    const a = await ingest("first");
    const b = await ingest("second");
    const e = await ingest("withdrawn-while-queued");
    const c = await ingest("third");
    await withdraw(db, e, who()); // its job stays queued until the worker closes it, but it waits for nothing
    await rescore(db, d, who()); // a new run, queued after every other

    // The worker takes the first job (the oldest), marks the run running and scores 30 of 100 items.
    const lease = (await claimNextJob(db, "w1", now()))!;
    const [job] = await db.select().from(jobs).where(eq(jobs.id, lease.id));
    const started = new Date(Date.UTC(2026, 10, 23, 12, 0, 0));
    await db.update(scoringRuns).set({ status: "running", startedAt: started, progressDone: 30, progressTotal: 100 }).where(eq(scoringRuns.id, job!.runId));
    await transition(db, a, "scoring", { actor: "worker", at: now() });

    const queue = await getInFlight(db, new Date(started.getTime() + 60_000));
    expect(queue.total).toBe(4);
    expect(queue.rows.map((r) => [r.id, r.state, r.position, r.running])).toEqual([
      [a, "scoring", null, true],
      [b, "queued", 1, false],
      [c, "queued", 2, false],
      [d, "queued", 3, false],
    ]);
    expect(queue.rows[0]).toMatchObject({ agent: "first", progress: { done: 30, total: 100 }, remainingMs: 140_000 });
    expect(queue.rows.slice(1).every((r) => r.progress === null && r.remainingMs === null)).toBe(true);

    const finished = await getFinishedPage(db);
    expect(finished.rows.map((r) => r.id)).toEqual([e]);
    expect(finished.byState).toMatchObject({ withdrawn: 1, queued: 3, scoring: 1 });
    expect((await getFinishedPage(db, { state: "published" })).rows).toEqual([]);
    expect((await getFinishedPage(db, { state: "withdrawn" })).total).toBe(1);
  });
});

describe("the time left of a running run", () => {
  const startedAt = new Date(Date.UTC(2026, 10, 23));
  const at = (s: number) => new Date(startedAt.getTime() + s * 1000);

  it("follows the run's own pace", () => {
    expect(remainingMs({ done: 50, total: 200, startedAt, attempts: 1 }, at(100))).toBe(300_000);
  });

  it("says nothing until the pace can tell, or for a resumed run", () => {
    expect(remainingMs({ done: 9, total: 100, startedAt, attempts: 1 }, at(600))).toBeNull(); // fewer than ten items
    expect(remainingMs({ done: 40, total: 1000, startedAt, attempts: 1 }, at(600))).toBeNull(); // under a twentieth
    expect(remainingMs({ done: 50, total: 100, startedAt, attempts: 1 }, at(5))).toBeNull(); // under ten seconds
    expect(remainingMs({ done: 50, total: 100, startedAt, attempts: 2 }, at(600))).toBeNull(); // resumed: counts items from before
    expect(remainingMs({ done: 100, total: 100, startedAt, attempts: 1 }, at(600))).toBeNull();
    expect(remainingMs({ done: 50, total: 100, startedAt: null, attempts: 1 }, at(600))).toBeNull();
  });

  it("is written in minutes, and in five-minute steps past an hour", () => {
    expect(formatRemaining(20_000)).toBe("less than a minute left");
    expect(formatRemaining(140_000)).toBe("about 3 min left");
    expect(formatRemaining(119.5 * 60_000)).toBe("about 2 h left");
    expect(formatRemaining(83 * 60_000)).toBe("about 1 h 25 min left");
  });
});
