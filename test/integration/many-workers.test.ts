/**
 * Four worker processes on one database (a SQLite file, or Postgres) and 24 queued jobs, two
 * of the processes scoring two jobs at once: every job is scored exactly once (one completed
 * run per submission, no duplicate item rows), and no worker exits with an error such as
 * "database is locked". A claim is one statement that gives the job a new lease token.
 */
import { spawn } from "node:child_process";
import { cpSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { sql } from "drizzle-orm";
import { afterAll, describe, expect, it } from "vitest";
import { rows } from "@/db/client";
import { registerBenchmark } from "@/lib/submissions/benchmarks";
import { ingestBundle } from "@/lib/submissions/ingest";
import { ENGINES, freshDatabase } from "../helpers/engines";
import { GOOD_BUNDLE, MINI_BENCHMARK, tickingClock } from "../helpers/mini-fixtures";

const repo = path.resolve(import.meta.dirname, "../..");
const tmp = mkdtempSync(path.join(tmpdir(), "agentboard-workers-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const JOBS = 24;
const WORKERS = 4;

function worker(db: string, go: string, concurrency: number) {
  const p = spawn(process.execPath, ["--import", "tsx", "test/helpers/run-worker.ts", db, go, String(concurrency)], { cwd: repo, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  p.stdout!.on("data", (c: Buffer) => (stdout += c.toString()));
  p.stderr!.on("data", (c: Buffer) => (stderr += c.toString()));
  return new Promise<{ code: number | null; ran: number; stderr: string }>((resolve) => p.once("exit", (code) => resolve({ code, ran: Number(stdout.trim()), stderr })));
}

describe.each(ENGINES)("many workers (%s)", (engine) => {
  it("scores each of 24 jobs exactly once with 4 worker processes, none exiting", async () => {
    const t = await freshDatabase(engine);
    const now = tickingClock();
    const db = t.db;
    const { versionId } = await registerBenchmark(db, MINI_BENCHMARK, { now: now() });
    for (let i = 0; i < JOBS; i++) {
      const dir = path.join(tmp, `${engine}-bundle-${i}`);
      cpSync(GOOD_BUNDLE, dir, { recursive: true });
      writeFileSync(path.join(dir, "output/metadata.json"), JSON.stringify({ agent_name: `agent-${i}`, models: ["m"] }));
      const r = await ingestBundle(db, { versionId, bundlePath: dir, source: "local", sourceRef: dir, actor: "cli" }, now);
      expect(r).toMatchObject({ created: true, state: "queued" });
    }

    const go = path.join(tmp, `${engine}-go`);
    const running = Array.from({ length: WORKERS }, (_, i) => worker(t.url, go, i % 2 === 0 ? 1 : 2));
    writeFileSync(go, "");
    const done = await Promise.all(running);

    for (const w of done) expect(w.code, w.stderr).toBe(0);
    expect(done.reduce((s, w) => s + w.ran, 0)).toBe(JOBS);

    try {
      const one = async (q: ReturnType<typeof sql>) => (await rows(db, q))[0];
      expect(await rows(db, sql`SELECT state, attempts, count(*) AS n FROM jobs GROUP BY state, attempts`)).toEqual([{ state: "done", attempts: 1, n: JOBS }]);
      expect(await one(sql`SELECT count(*) AS n FROM scoring_runs WHERE status = 'completed'`)).toEqual({ n: JOBS });
      expect(await one(sql`SELECT count(DISTINCT submission_id) AS n FROM scoring_runs WHERE status = 'completed'`)).toEqual({ n: JOBS });
      expect(await rows(db, sql`SELECT state, count(*) AS n FROM submissions GROUP BY state`)).toEqual([{ state: "scored", n: JOBS }]);
      expect(await one(sql`SELECT count(*) AS n FROM item_results`)).toEqual({ n: JOBS * 4 });
      expect(await one(sql`SELECT count(*) AS n FROM (SELECT run_id, capability, uuid FROM item_results GROUP BY run_id, capability, uuid HAVING count(*) > 1) AS d`)).toEqual({ n: 0 });
      expect(await one(sql`SELECT count(*) AS n FROM audit_log WHERE action = 'run:completed'`)).toEqual({ n: JOBS });
    } finally {
      await t.close();
    }
  }, 120_000);
});
