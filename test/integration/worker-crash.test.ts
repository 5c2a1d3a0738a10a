/**
 * Kill the worker mid-run (SIGKILL, servers and all), restart it, and the run completes with
 * the same results as a run that was never interrupted: on each engine (`--db` names a SQLite
 * file or a Postgres database).
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rows, type Db } from "@/db/client";
import { ENGINES, freshDatabase, type TestDatabase } from "../helpers/engines";
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

async function snapshot(db: Db) {
  return {
    state: (await rows<{ state: string }>(db, sql`SELECT state FROM submissions`))[0]!.state,
    run: (await rows(db, sql`SELECT status, overall_score, overall_ci_low, overall_ci_high, complete FROM scoring_runs`))[0],
    capabilities: await rows(db, sql`SELECT capability, score, ci_low, ci_high, n_items, n_missing, n_error FROM capability_scores ORDER BY capability`),
    items: await rows(db, sql`SELECT capability, uuid, score, status, stage FROM item_results ORDER BY capability, uuid`),
    jobs: await rows(db, sql`SELECT state, attempts FROM jobs`),
  };
}

const progress = async (db: Db) => Number((await rows<{ n: number }>(db, sql`SELECT count(*) AS n FROM item_results`))[0]!.n);

describe.each(ENGINES)("worker crash (%s)", (engine) => {
  it("resumes a killed run to the same results", async () => {
    const opened: TestDatabase[] = [];
    const fresh = async () => {
      const t = await freshDatabase(engine);
      opened.push(t);
      return t;
    };
    try {
      await crashAndResume(fresh);
    } finally {
      for (const t of opened) await t.close();
    }
  }, 240_000); // three full scoring runs of the demo entry over MCP replay
});

async function crashAndResume(fresh: () => Promise<TestDatabase>) {
  {
    const submit = (db: string) => {
      const r = cli("submit", bundle, "--benchmark", "benchmarks/demo", "--db", db, "--judge", "openai", "--judge-model", "fake-judge");
      expect(r.status, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject({ created: true, state: "queued" });
    };
    const ref = await fresh();
    const reference = ref.url;
    submit(reference);
    expect(await exited(worker(reference))).toBe(0);
    const expected = await snapshot(ref.db);
    expect(expected.state).toBe("scored");
    expect(expected.items).toHaveLength(300);

    const crash = await fresh();
    const crashed = crash.url;
    submit(crashed);
    const first = worker(crashed);
    const deadline = Date.now() + 60_000;
    while ((await progress(crash.db)) < 50 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    process.kill(-first.pid!, "SIGKILL"); // the worker and the tool servers it started
    await exited(first);
    const mid = await snapshot(crash.db);
    expect(mid.state).toBe("scoring");
    expect(mid.items.length).toBeGreaterThanOrEqual(50);
    expect(mid.items.length).toBeLessThan(300);

    expect(await exited(worker(crashed))).toBe(0);
    const resumed = await snapshot(crash.db);
    expect(resumed.state).toBe("scored");
    expect(resumed.run).toEqual(expected.run);
    expect(resumed.capabilities).toEqual(expected.capabilities);
    expect(resumed.items).toEqual(expected.items);
    expect(resumed.jobs).toEqual([{ state: "done", attempts: 2 }]);
  }
}
