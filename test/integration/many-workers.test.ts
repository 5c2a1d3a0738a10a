/**
 * Four worker processes on one database file and 24 queued jobs: every job is scored exactly
 * once (one completed run per submission, no duplicate item rows), and no worker exits with
 * an error such as "database is locked". Claims are one IMMEDIATE write transaction each.
 */
import { spawn } from "node:child_process";
import { cpSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { openDatabase } from "@/db/client";
import { registerBenchmark } from "@/lib/submissions/benchmarks";
import { ingestBundle } from "@/lib/submissions/ingest";
import { GOOD_BUNDLE, MINI_BENCHMARK, tickingClock } from "../helpers/mini-fixtures";

const repo = path.resolve(import.meta.dirname, "../..");
const tmp = mkdtempSync(path.join(tmpdir(), "agentboard-workers-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const JOBS = 24;
const WORKERS = 4;

function worker(db: string, go: string) {
  const p = spawn(process.execPath, ["--import", "tsx", "test/helpers/run-worker.ts", db, go], { cwd: repo, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  p.stdout!.on("data", (c: Buffer) => (stdout += c.toString()));
  p.stderr!.on("data", (c: Buffer) => (stderr += c.toString()));
  return new Promise<{ code: number | null; ran: number; stderr: string }>((resolve) => p.once("exit", (code) => resolve({ code, ran: Number(stdout.trim()), stderr })));
}

describe("many workers", () => {
  it("scores each of 24 jobs exactly once with 4 worker processes, none exiting", async () => {
    const file = path.join(tmp, "board.db");
    const now = tickingClock();
    const db = openDatabase(file);
    const { versionId } = await registerBenchmark(db, MINI_BENCHMARK, { now: now() });
    for (let i = 0; i < JOBS; i++) {
      const dir = path.join(tmp, `bundle-${i}`);
      cpSync(GOOD_BUNDLE, dir, { recursive: true });
      writeFileSync(path.join(dir, "output/metadata.json"), JSON.stringify({ agent_name: `agent-${i}`, models: ["m"] }));
      const r = await ingestBundle(db, { versionId, bundlePath: dir, source: "local", sourceRef: dir, actor: "cli" }, now);
      expect(r).toMatchObject({ created: true, state: "queued" });
    }
    db.$client.close();

    const go = path.join(tmp, "go");
    const running = Array.from({ length: WORKERS }, () => worker(file, go));
    writeFileSync(go, "");
    const done = await Promise.all(running);

    for (const w of done) expect(w.code, w.stderr).toBe(0);
    expect(done.reduce((s, w) => s + w.ran, 0)).toBe(JOBS);

    const check = new Database(file, { readonly: true });
    try {
      expect(check.prepare("SELECT state, attempts, count(*) AS n FROM jobs GROUP BY state, attempts").all()).toEqual([{ state: "done", attempts: 1, n: JOBS }]);
      expect(check.prepare("SELECT count(*) AS n FROM scoring_runs WHERE status = 'completed'").get()).toEqual({ n: JOBS });
      expect(check.prepare("SELECT count(DISTINCT submission_id) AS n FROM scoring_runs WHERE status = 'completed'").get()).toEqual({ n: JOBS });
      expect(check.prepare("SELECT state, count(*) AS n FROM submissions GROUP BY state").all()).toEqual([{ state: "scored", n: JOBS }]);
      expect(check.prepare("SELECT count(*) AS n FROM item_results").get()).toEqual({ n: JOBS * 4 });
      expect(check.prepare("SELECT count(*) AS n FROM (SELECT run_id, capability, uuid FROM item_results GROUP BY run_id, capability, uuid HAVING count(*) > 1)").get()).toEqual({ n: 0 });
      expect(check.prepare("SELECT count(*) AS n FROM audit_log WHERE action = 'run:completed'").get()).toEqual({ n: JOBS });
    } finally {
      check.close();
    }
  }, 120_000);
});
