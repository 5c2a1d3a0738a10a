/** End to end through the real CLI process, on the hand-written mini benchmark. */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const repo = path.resolve(import.meta.dirname, "../..");
const benchmark = "test/fixtures/mini-benchmark";
const good = "test/fixtures/mini-bundles/good";
const invalid = "test/fixtures/mini-bundles/invalid";
const work = mkdtempSync(path.join(tmpdir(), "agentboard-cli-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function cli(...args: string[]) {
  const r = spawnSync(process.execPath, ["--import", "tsx", "scripts/cli.ts", ...args], { cwd: repo, encoding: "utf8", env: { ...process.env, FORCE_COLOR: "0" } });
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
    expect(doc.capability_name).toBe("capability_4_multiturn");
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
      ["validate", good],
      ["score", good, "--benchmark", benchmark, "--bogus-flag"],
      ["score", good, "--benchmark", benchmark, "--judge", "oracle"],
      ["score", good, "--benchmark", benchmark, "--replay", "psychic"],
      ["frobnicate"],
    ]) {
      const r = cli(...args);
      expect(r.code, args.join(" ")).toBe(2);
      expect(r.stderr.length, args.join(" ")).toBeGreaterThan(0);
      noStackTrace(r.stderr);
    }
  });

  it("reports a missing bundle as an invalid bundle naming it", () => {
    const r = cli("validate", "test/fixtures/nowhere.zip", "--benchmark", benchmark);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("bundle_not_found");
  });
});
