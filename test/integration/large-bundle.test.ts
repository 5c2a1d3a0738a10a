/**
 * A VAKRA-sized bundle (5,187 dialogues) through the worker on each engine. Items are scored
 * faster than they are written, so one flush may hold thousands of rows: on Postgres a single
 * INSERT of them all exceeds the protocol's 65,535 parameters and the job never completes.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { itemResults, scoringRuns } from "@/db/schema";
import { registerBenchmark } from "@/lib/submissions/benchmarks";
import { ingestBundle } from "@/lib/submissions/ingest";
import { createScoringDeps } from "@/lib/submissions/scoring-deps";
import { runWorker } from "@/lib/submissions/worker";
import { vakraSized, writeAgentBundle, writeSyntheticBenchmark, type SyntheticBenchmark } from "@/scripts/synthetic/generate";
import { ENGINES, useFreshDatabase } from "../helpers/engines";

const tmp = mkdtempSync(path.join(tmpdir(), "agentboard-large-"));
let bench: SyntheticBenchmark;
let bundle: string;
beforeAll(async () => {
  bench = await writeSyntheticBenchmark(path.join(tmp, "benchmark"), vakraSized);
  bundle = path.join(tmp, "bundle");
  await writeAgentBundle(bench, bundle, { name: "large", accuracy: 0.7, errorRate: 0.02 }, 7);
}, 120_000);
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe.each(ENGINES)("a 5,187-dialogue bundle through the worker (%s)", (engine) => {
  const fresh = useFreshDatabase(engine);

  it("stores every item and completes the run", async () => {
    const db = fresh.db;
    const { versionId } = await registerBenchmark(db, bench.root, { isDefault: true, now: new Date() });
    const { submissionId } = await ingestBundle(db, { versionId, bundlePath: bundle, source: "local", sourceRef: bundle, actor: "test", run: { replayMode: "recorded" } }, () => new Date());
    const deps = createScoringDeps(db);
    try {
      expect(await runWorker(db, deps, { untilIdle: true })).toBe(1);
    } finally {
      await deps.close();
    }
    const [run] = await db.select({ id: scoringRuns.id, status: scoringRuns.status, error: scoringRuns.error }).from(scoringRuns).where(eq(scoringRuns.submissionId, submissionId));
    expect(run).toMatchObject({ status: "completed", error: null });
    expect((await db.select({ id: itemResults.id }).from(itemResults).where(eq(itemResults.runId, run!.id))).length).toBe(5187);
  }, 300_000);
});
