/** End to end through the real CLI process, on the hand-written mini benchmark. */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { submissions } from "@/db/schema";
import { ENGINES, freshDatabase, type TestDatabase } from "../helpers/engines";
import { AGENTBOARD, runCli } from "../helpers/run-cli";

const repo = path.resolve(import.meta.dirname, "../..");
const benchmark = "test/fixtures/mini-benchmark";
const good = "test/fixtures/mini-bundles/good";
const invalid = "test/fixtures/mini-bundles/invalid";
const work = mkdtempSync(path.join(tmpdir(), "agentboard-cli-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function cli(...args: string[]) {
  const r = spawnSync(process.execPath, [...AGENTBOARD, ...args], { cwd: repo, encoding: "utf8", env: { ...process.env, FORCE_COLOR: "0" } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const noStackTrace = (text: string) => expect(text).not.toMatch(/^\s+at .+:\d+:\d+\)?$/m);

describe("agentboard score", () => {
  const out = path.join(work, "results.json");
  const vakraOut = path.join(work, "vakra");
  const run = cli("score", good, "--benchmark", benchmark, "--out", out, "--vakra-out", vakraOut);

  it("exits 0 and prints the capability table with hand-computed scores", () => {
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/Tool selection \(tool_selection\)\s+50\.0/);
    // multiturn: mt-1 (weight 2, multi-source) passes, mt-2 breaks its policy: 100 × 2/3.
    expect(run.stdout).toMatch(/Multi-source \+ policy \(multiturn\)\s+66\.7/);
    expect(run.stdout).toMatch(/Overall\s+58\.3/);
    expect(run.stderr).toMatch(/scoring 4\/4 \(100%\)/);
  });

  it("writes results.json with the documented fields", () => {
    const r = JSON.parse(readFileSync(out, "utf8"));
    expect(r.benchmark).toMatchObject({ slug: "mini", version: "1.0" });
    expect(r.judge.id).toBe("rules");
    expect(r.replay).toBe("recorded");
    expect(r.verified).toBe(false);
    expect(r.overall.complete).toBe(true);
    expect(r.overall.score).toBeCloseTo(58.333, 2);
    expect(r.overall.ciLow).toBeLessThanOrEqual(r.overall.score);
    expect(r.overall.ciHigh).toBeGreaterThanOrEqual(r.overall.score);
    const mt = r.capabilities.multiturn;
    expect(mt).toMatchObject({ submitted: true, nItems: 2, nMissing: 0, nError: 0 });
    expect(mt.domains.harbor).toEqual({ score: expect.closeTo(66.667, 2), nItems: 2 });
    const byUuid = Object.fromEntries(r.items.map((it: { uuid: string }) => [it.uuid, it]));
    expect(byUuid["mt-1"]).toMatchObject({ capability: "multiturn", domain: "harbor", weight: 2, score: 1, status: "scored", stage: "groundedness" });
    expect(byUuid["mt-2"]).toMatchObject({ weight: 1, score: 0, stage: "policy", policy: "fail" });
    expect(byUuid["ts-2"]).toMatchObject({ score: 0, stage: "correctness" });
    const stages = byUuid["ts-1"].verdicts.map((v: { stage: string; outcome: string }) => `${v.stage}:${v.outcome}`);
    expect(stages).toEqual(["policy:skipped", "exact:pass", "correctness:skipped", "groundedness:pass"]);
  });

  it("writes one VAKRA-shaped results file per submitted capability", () => {
    expect(readdirSync(vakraOut).sort()).toEqual(["capability_2_dashboard_apis_results.json", "capability_4_multiturn_results.json"]);
    const doc = JSON.parse(readFileSync(path.join(vakraOut, "capability_4_multiturn_results.json"), "utf8"));
    expect(doc.capability_name).toBe("capability_multiturn");
    expect(doc.summary).toMatchObject({ n_domains: 1, n_samples: 2, n_correct: 1, mean_dialogue_score: 0.5, n_missing_predictions: 0 });
    const d = doc.domains.harbor.dialogues.find((x: { uuid: string }) => x.uuid === "mt-2");
    expect(d.details.per_turn[0].metadata).toMatchObject({ policy_adherance_score: 0, gt_steps: 1, pred_steps: 2, extra_steps: 1 });
  });

  it("refuses an invalid bundle with exit 1 and the validation report", () => {
    const r = cli("score", invalid, "--benchmark", benchmark);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("duplicate_uuid");
    expect(r.stderr).toContain("nothing was scored");
    expect(r.stdout).toBe("");
    noStackTrace(r.stderr);
  });

  it("scores with --replay none from answers alone", () => {
    const r = cli("score", good, "--benchmark", benchmark, "--replay", "none", "--quiet", "--out", path.join(work, "none.json"));
    expect(r.code).toBe(0);
    const res = JSON.parse(readFileSync(path.join(work, "none.json"), "utf8"));
    expect(res.replay).toBe("none");
    const ts1 = res.items.find((it: { uuid: string }) => it.uuid === "ts-1");
    expect(ts1.verdicts.find((v: { stage: string }) => v.stage === "exact").outcome).toBe("skipped");
    expect(ts1).toMatchObject({ score: 1, stage: "correctness" });
  });
});

describe("agentboard validate", () => {
  it("exits 0 for a valid bundle and prints markdown", () => {
    const r = cli("validate", good, "--benchmark", benchmark);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("## Validation: ✅ valid");
    expect(r.stdout).toMatch(/\| Tool selection \(`tool_selection`\) \| yes \| 2 \| 2 \| 0 \|/);
  });

  it("prints the JSON report with sha256 and coverage", () => {
    const r = cli("validate", invalid, "--benchmark", benchmark, "--json");
    expect(r.code).toBe(1);
    const report = JSON.parse(r.stdout);
    expect(report.valid).toBe(false);
    expect(report.bundle.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(report.errors[0]).toMatchObject({ code: "duplicate_uuid", file: "capability_2_dashboard_apis/harbor.json", record: 1, uuid: "ts-1", path: "$[1].uuid" });
    expect(report.coverage.multiturn).toMatchObject({ submitted: false, expected: 2, missing: 2 });
  });

  it("exits 2 on usage errors without a stack trace", () => {
    for (const args of [
      ["validate", good, "--benchmark", "test/fixtures/no-such-benchmark"],
      ["score", good, "--benchmark", benchmark, "--bogus-flag"],
      ["score", good, "--benchmark", benchmark, "--judge", "oracle"],
      ["score", good, "--benchmark", benchmark, "--replay", "psychic"],
      // The mini benchmark declares no tool servers: MCP replay is refused at once, not in the worker.
      ["score", good, "--benchmark", benchmark, "--replay", "mcp"],
      ["submit", good, "--benchmark", benchmark, "--replay", "mcp", "--db", path.join(work, "mcp.db")],
      ["submit", good, "--benchmark", benchmark, "--replay", "psychic", "--db", path.join(work, "mcp.db")],
      ["frobnicate"],
    ]) {
      const r = cli(...args);
      expect(r.code, args.join(" ")).toBe(2);
      expect(r.stderr.length, args.join(" ")).toBeGreaterThan(0);
      noStackTrace(r.stderr);
    }
  });

  it("reports a missing bundle as a usage error (exit 2) naming it", () => {
    for (const command of ["validate", "score", "submit"]) {
      const r = cli(command, "test/fixtures/nowhere.zip", "--benchmark", benchmark, ...(command === "submit" ? ["--db", path.join(work, "never.db")] : []));
      expect(r.code, command).toBe(2);
      expect(r.stderr, command).toContain("bundle not found: test/fixtures/nowhere.zip");
      expect(r.stdout, command).toBe("");
      noStackTrace(r.stderr);
    }
  });
});

describe("agentboard command line", () => {
  it("reports a mistyped required option as unknown, with the option it resembles", () => {
    const r = cli("validate", good, "--benchmrk", benchmark);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("unknown option '--benchmrk'");
    expect(r.stderr).toContain("(Did you mean --benchmark?)");
    expect(r.stderr).not.toContain("required option");
    // A required option that is simply missing is still named as such.
    const missing = cli("score", good);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("required option '--benchmark <dir>' not specified");
  });

  it("prints the package version and the commit it was built from", () => {
    const pkg = JSON.parse(readFileSync(path.join(repo, "package.json"), "utf8")) as { version: string };
    const r = cli("--version");
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^agentboard ${pkg.version.replace(/\./g, "\\.")} \\(commit [0-9a-f]{7,}( with local changes)?\\)\n$`));
    expect(cli("-V").stdout).toBe(r.stdout);
  });

  it("runs the bundle built from the current source (no fallback to tsx)", () => {
    const help = cli("--help");
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("Usage: agentboard [options] [command]");
    expect(help.stderr).toBe("");
    const direct = spawnSync(process.execPath, [path.join(repo, "dist/cli/cli.mjs"), "validate", "--help"], { cwd: repo, encoding: "utf8" });
    expect(direct.status).toBe(0);
    expect(direct.stdout).toContain("--no-cache");
  });

  it("loads only what a command needs: --help, --version and validate never load the MCP SDK, octokit, drizzle, the database (SQLite or Postgres) or next", () => {
    const build = JSON.parse(readFileSync(path.join(repo, "dist/cli/build.json"), "utf8")) as { chunks: Record<string, string[]> };
    const heavy = ["@modelcontextprotocol/sdk", "octokit", "@octokit/core", "drizzle-orm", "better-sqlite3", "pg", "next"];
    const loaded = (...args: string[]) => {
      const trace = path.join(work, `loads-${args[0]}.txt`);
      const r = spawnSync(process.execPath, ["--import", path.join(repo, "test/helpers/trace-loads.mjs"), ...AGENTBOARD, ...args], { cwd: repo, encoding: "utf8", env: { ...process.env, AGENTBOARD_TRACE_LOADS: trace } });
      expect(r.status, r.stderr).toBeLessThan(2);
      const chunks = readFileSync(trace, "utf8").split("\n").filter((u) => u.includes("/dist/cli/")).map((u) => path.basename(new URL(u).pathname));
      expect(chunks.length).toBeGreaterThan(0);
      return new Set(chunks.flatMap((c) => build.chunks[c] ?? []));
    };
    for (const args of [["--help"], ["--version"], ["validate", good, "--benchmark", benchmark]]) {
      const packages = loaded(...args);
      for (const h of heavy) expect(packages.has(h), `${args[0]} loads ${h}`).toBe(false);
    }
    // The trace sees them where they are used: submit opens the database.
    expect(loaded("submit", good, "--benchmark", benchmark, "--db", path.join(work, "trace.db")).has("drizzle-orm")).toBe(true);
  });

  it("submit says a worker scores the entry next, how to run one, and where to watch it", () => {
    const db = path.join(work, "submit.db");
    const r = cli("submit", good, "--benchmark", benchmark, "--db", db);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as { submissionId: number; created: boolean; state: string };
    expect(out).toMatchObject({ created: true, state: "queued" });
    expect(r.stderr).toContain(`Submission ${out.submissionId} is queued. A worker scores it next`);
    expect(r.stderr).toContain(`./agentboard worker --db ${db} --until-idle`);
    expect(r.stderr).toContain(`Watch it at /submissions/${out.submissionId} (visible to a signed-in maintainer until it is approved and published`);
    const again = cli("submit", good, "--benchmark", benchmark, "--db", db);
    expect(again.stderr).toContain(`already submitted: submission ${out.submissionId}, queued`);
    const bad = cli("submit", invalid, "--benchmark", benchmark, "--db", db);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain(`./agentboard validate ${invalid} --benchmark ${benchmark}`);
  });
});

describe.skipIf(!ENGINES.includes("postgres"))("agentboard on Postgres (AGENTBOARD_DATABASE_URL)", () => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await freshDatabase("postgres");
  });
  afterAll(async () => t?.close());

  it("submit queues, worker --until-idle scores it, verify re-derives it from the database", async () => {
    const submitted = await runCli(["submit", good, "--benchmark", benchmark], t.env);
    expect(submitted.code, submitted.stderr).toBe(0);
    const { submissionId, state } = JSON.parse(submitted.stdout) as { submissionId: number; state: string };
    expect(state).toBe("queued");
    const worker = await runCli(["worker", "--until-idle", "--concurrency", "2"], t.env);
    expect(worker.code, worker.stderr).toBe(0);
    expect(worker.stderr).toContain("worker stopped after 1 job(s)");
    const [row] = await t.db.select({ state: submissions.state }).from(submissions).where(eq(submissions.id, submissionId));
    expect(row?.state).toBe("scored");
    // --db takes the URL as well as the environment does.
    const verified = await runCli(["verify", String(submissionId), "--db", t.url, "--bundle", good, "--benchmark", benchmark, "--quiet"], { AGENTBOARD_DATABASE_URL: "" });
    expect(verified.code, verified.stderr).toBe(0);
    expect(verified.stdout).toMatch(/^IDENTICAL: every number of entry \d+ \(local database\) was re-derived \(4 items\)/);
  });
});
