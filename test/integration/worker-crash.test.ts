/**
 * Kill the worker mid-run (SIGKILL, servers and all), restart it, and the run completes with
 * the same results as a run that was never interrupted.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AGENTBOARD } from "../helpers/run-cli";

const repo = path.resolve(import.meta.dirname, "../..");
const tmp = mkdtempSync(path.join(tmpdir(), "agentboard-crash-"));
const bundle = path.join(repo, "benchmarks/demo/submissions/strong-agent");
let judge: ChildProcess;
let judgeUrl: string;

beforeAll(async () => {
  judge = spawn(process.execPath, ["--import", "tsx", "scripts/bench/fake-judge-server.ts", "100"], { cwd: repo, stdio: ["ignore", "pipe", "inherit"] });
  const port = await new Promise<string>((resolve) => judge.stdout!.once("data", (c: Buffer) => resolve(c.toString().trim())));
  judgeUrl = `http://127.0.0.1:${port}`;
});
afterAll(() => {
  judge.kill();
  rmSync(tmp, { recursive: true, force: true });
});

const cli = (...args: string[]) => spawnSync(process.execPath, [...AGENTBOARD, ...args], { cwd: repo, encoding: "utf8", env: { ...process.env, AGENTBOARD_JUDGE_BASE_URL: judgeUrl } });
const worker = (db: string) => spawn(process.execPath, [...AGENTBOARD, "worker", "--db", db, "--until-idle"], { cwd: repo, detached: true, stdio: "ignore", env: { ...process.env, AGENTBOARD_JUDGE_BASE_URL: judgeUrl } });
const exited = (p: ChildProcess) => new Promise<number | null>((resolve) => (p.exitCode !== null ? resolve(p.exitCode) : p.once("exit", (code) => resolve(code))));

function snapshot(file: string) {
  const db = new Database(file, { readonly: true });
  try {
    return {
      state: (db.prepare("SELECT state FROM submissions").get() as { state: string }).state,
      run: db.prepare("SELECT status, overall_score, overall_ci_low, overall_ci_high, complete FROM scoring_runs").get(),
      capabilities: db.prepare("SELECT capability, score, ci_low, ci_high, n_items, n_missing, n_error FROM capability_scores ORDER BY capability").all(),
      items: db.prepare("SELECT capability, uuid, score, status, stage FROM item_results ORDER BY capability, uuid").all(),
      jobs: db.prepare("SELECT state, attempts FROM jobs").all(),
    };
  } finally {
    db.close();
  }
}

function progress(file: string): number {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    return (db.prepare("SELECT count(*) AS n FROM item_results").get() as { n: number }).n;
  } finally {
    db.close();
  }
}

describe("worker crash", () => {
  it("resumes a killed run to the same results", async () => {
    const submit = (db: string) => {
      const r = cli("submit", bundle, "--benchmark", "benchmarks/demo", "--db", db, "--judge", "openai", "--judge-model", "fake-judge");
      expect(r.status, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject({ created: true, state: "queued" });
    };
    const reference = path.join(tmp, "reference.db");
    submit(reference);
    expect(await exited(worker(reference))).toBe(0);
    const expected = snapshot(reference);
    expect(expected.state).toBe("scored");
    expect(expected.items).toHaveLength(300);

    const crashed = path.join(tmp, "crashed.db");
    submit(crashed);
    const first = worker(crashed);
    const deadline = Date.now() + 60_000;
    while (progress(crashed) < 50 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    process.kill(-first.pid!, "SIGKILL"); // the worker and the tool servers it started
    await exited(first);
    const mid = snapshot(crashed);
    expect(mid.state).toBe("scoring");
    expect(mid.items.length).toBeGreaterThanOrEqual(50);
    expect(mid.items.length).toBeLessThan(300);

    expect(await exited(worker(crashed))).toBe(0);
    const resumed = snapshot(crashed);
    expect(resumed.state).toBe("scored");
    expect(resumed.run).toEqual(expected.run);
    expect(resumed.capabilities).toEqual(expected.capabilities);
    expect(resumed.items).toEqual(expected.items);
    expect(resumed.jobs).toEqual([{ state: "done", attempts: 2 }]);
  }, 240_000); // three full scoring runs of the demo entry over MCP replay
});
