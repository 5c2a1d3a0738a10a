/**
 * A VAKRA user's first commands, through the real CLI: `validate` with no benchmark checks what
 * VAKRA's validate_output.py checks; `--benchmark` takes VAKRA's data layouts as they are (its
 * release's data/test split, its evaluator README's groundtruth/ folders, its sample_data
 * pairs); `benchmark init --from-vakra` writes a benchmark.yaml that validate and score use
 * unchanged. Fixtures: test/fixtures/vakra-layouts (README.md there).
 */
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { AGENTBOARD, REPO } from "../helpers/run-cli";
import { writeZip } from "../helpers/zip-writer";

const F = "test/fixtures/vakra-layouts";
const GOOD = `${F}/bundles/good`;
const LAYOUTS = { "data/test (VAKRA's release)": `${F}/data/test`, "groundtruth/ (VAKRA's evaluator)": `${F}/evaluator-layout`, "sample_data pairs": `${F}/sample-data` };
const work = mkdtempSync(path.join(tmpdir(), "agentboard-vakra-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function cli(...args: string[]) {
  const r = spawnSync(process.execPath, [...AGENTBOARD, ...args], { cwd: REPO, encoding: "utf8", env: { ...process.env, FORCE_COLOR: "0" } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}
const noStackTrace = (text: string) => expect(text).not.toMatch(/^\s+at .+:\d+:\d+\)?$/m);
/** The capability table's score column, by capability id. */
const scores = (stdout: string) => Object.fromEntries([...stdout.matchAll(/\((\w+)\)\s+([\d.]+)\s/g)].map((m) => [m[1], Number(m[2])]));
const overall = (stdout: string) => Number(/^Overall\s+([\d.]+)/m.exec(stdout)?.[1]);

describe("validate without --benchmark: what VAKRA's validate_output.py checks", () => {
  it("exits 0 on a bundle as VAKRA's runner leaves it (output/, timestamped run folder, sidecars) and says what a benchmark adds", () => {
    const r = cli("validate", GOOD);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("## Validation without a benchmark: ✅ valid");
    expect(r.stdout).toContain("4 dialogues read · 0 error(s)");
    expect(r.stdout).toContain("VAKRA's validate_output.py would accept every file.");
    expect(r.stdout).toContain("read as capability_1_bi_apis (same capability_N_ prefix)");
    expect(r.stdout).toMatch(/\| `capability_4_multiturn` \| 1 \| 2 \| regatta \|/);
    const adds = r.stdout.split("\n").filter((l) => l.startsWith("A benchmark (--benchmark"));
    expect(adds).toHaveLength(1);
    expect(adds[0]).toContain("ground-truth checks: every uuid known to its capability and filed under its domain, the scored (last) turn predicted, and coverage");
  });

  it("reads a single capability's output folder, as VAKRA's checker takes one", () => {
    const r = cli("validate", `${GOOD}/output/capability_4_multiturn`);
    expect(r.code, r.stdout).toBe(0);
    expect(r.stdout).toContain("2 dialogues read · 0 error(s)");
  });

  it("exits 1 on a bad bundle, naming file, record, uuid and JSON path of each error", () => {
    const r = cli("validate", `${F}/bundles/bad`);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("## Validation without a benchmark: ❌ invalid");
    expect(r.stdout).toContain("5 error(s)");
    expect(r.stdout).toContain("- `bad_uuid` `capability_1_bi_apis/cider_house.json` record 0 at `$[0].uuid`: expected a non-empty string uuid, found nothing");
    expect(r.stdout).toContain('- `bad_status` `capability_1_bi_apis/cider_house.json` record 1 (uuid `c1-barrel-02`) at `$[1].status`: expected "success" or "error", found "done"');
    expect(r.stdout).toContain("- `not_an_array` `capability_2_dashboard_apis/hockey.json` at `$`: expected a top-level JSON array of records, found an object");
    // Beyond VAKRA's checker, which passes this file: a repeated uuid and a record filed under another domain.
    expect(r.stdout).toContain("- `duplicate_uuid` `capability_4_multiturn/regatta.json` record 1 (uuid `c4-policy-01`) at `$[1].uuid`: uuid already predicted at capability_4_multiturn/regatta.json record 0");
    expect(r.stdout).toContain('- `domain_mismatch` `capability_4_multiturn/regatta.json` record 2 (uuid `c4-sources-02`) at `$[2].domain`: domain "harbour" differs from the file name; expected "regatta"');
    // VAKRA rejects the same 4 (3 records and the file that is not an array); a place already reported is not reported twice.
    expect(r.stdout).toContain("VAKRA's validate_output.py would reject 4 record(s) or file(s).");
    expect(r.stdout).not.toContain("vakra_rejects");
    noStackTrace(r.stderr);

    const json = cli("validate", `${F}/bundles/bad`, "--json");
    expect(json.code).toBe(1);
    const report = JSON.parse(json.stdout);
    expect(report).toMatchObject({ valid: false, benchmark: null, summary: { errors: 5, vakraRejected: 4 } });
    expect(report.errors).toContainEqual({ severity: "error", code: "domain_mismatch", file: "capability_4_multiturn/regatta.json", record: 2, uuid: "c4-sources-02", path: "$[2].domain", message: expect.any(String) });
  });

  it("says where VAKRA's checker would reject a file Agentboard reads (exit 0, vakra_rejects warnings)", () => {
    const r = cli("validate", `${F}/bundles/vakra-rejects`);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("VAKRA's validate_output.py would reject 1 record(s) or file(s)");
    expect(r.stdout).toContain("`vakra_rejects` `capability_1_bi_apis/cider_house.json` record 0 (uuid `c1-press-01`) at `$[0].error`: VAKRA's validate_output.py rejects this: expected a string (empty when there was none), found null");
    expect(r.stdout).toContain("at `$[0].output[0].answer`: VAKRA's validate_output.py rejects this: expected a string, found a number");
    expect(r.stdout).toContain('at `$[0].output[0].sequence.tool_call[0].arguments`: VAKRA\'s validate_output.py rejects this: "arguments" is required (an object)');
  });

  it("reads a ZIP of the same bundle alike", () => {
    const zip = path.join(work, "good.zip");
    writeZip(zip, [{ name: "output/capability_4_multiturn/regatta.json", data: readFileSync(path.join(REPO, GOOD, "output/capability_4_multiturn/regatta.json")) }]);
    const r = cli("validate", zip);
    expect(r.code, r.stdout).toBe(0);
    expect(r.stdout).toContain("(zip, 1 output files) · 2 dialogues read · 0 error(s)");
  });

  it("still refuses a bundle that does not exist (exit 2)", () => {
    const r = cli("validate", `${F}/bundles/nowhere`);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`bundle not found: ${F}/bundles/nowhere`);
  });
});

describe.each(Object.entries(LAYOUTS))("--benchmark at VAKRA's layout as it is: %s", (_name, layout) => {
  it("validates against its ground truth", () => {
    const r = cli("validate", GOOD, "--benchmark", layout);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("## Validation: ✅ valid");
    expect(r.stdout).toMatch(/\| API chaining \(`api_chaining`\) \| yes \| 2 \| 2 \| 0 \|/);
    expect(r.stdout).toMatch(/\| Multi-hop multi-source \+ policy \(`multiturn`\) \| yes \| 2 \| 2 \| 0 \|/);
    // Only the capabilities VAKRA's folder has: no "folder missing" for the other two.
    expect(r.stdout).not.toContain("tool_selection");
  });

  it("refuses a bundle with a uuid its ground truth lacks", () => {
    const r = cli("validate", `${F}/bundles/vakra-rejects`, "--benchmark", layout);
    expect(r.code).toBe(0);
    const bad = cli("validate", `${F}/bundles/bad`, "--benchmark", layout);
    expect(bad.code).toBe(1);
    expect(bad.stdout).toContain("unknown_uuid");
  });

  it("scores: the policy text maps to no rule yet, so it is counted unchecked", () => {
    const r = cli("score", GOOD, "--benchmark", layout, "--quiet");
    expect(r.code, r.stderr).toBe(0);
    // api_chaining: 1 of 2 right; multiturn: both pass (the multi-source one weighs 2), one policy unchecked.
    expect(scores(r.stdout)).toMatchObject({ api_chaining: 50, multiturn: 100 });
    expect(overall(r.stdout)).toBe(75);
    expect(r.stdout).toMatch(/\(multiturn\)\s+100\.0\s+\S+ \S+\s+2\s+0\s+0\s+1$/m);
  });
});

describe("benchmark init --from-vakra", () => {
  it("writes a standalone benchmark (--out) that validate and score use unchanged, with VAKRA's capabilities, weights and an inferred policy", () => {
    const out = path.join(work, "from-data-test");
    const init = cli("benchmark", "init", "--from-vakra", LAYOUTS["data/test (VAKRA's release)"], "--out", out);
    expect(init.code, init.stderr).toBe(0);
    expect(init.stdout).toContain("Multi-hop multi-source + policy (multiturn) · capability_4_multiturn · 1 domain(s), 2 dialogue(s), 1 multi-source (weight 2)");
    expect(init.stdout).toContain("Policies: 1 additional_instructions text(s): 1 rule(s) inferred, 0 left unchecked.");
    expect(init.stdout).toContain("Loaded back: 4 ground-truth item(s).");
    const spec = parseYaml(readFileSync(path.join(out, "benchmark.yaml"), "utf8"));
    expect(spec.capabilities.map((c: { directory: string }) => c.directory)).toEqual(["capability_1_bi_apis", "capability_4_multiturn"]);
    expect(spec.capabilities[1]).toMatchObject({ id: "multiturn", policies: true, weights: { multiSource: 2 } });
    expect(spec.policyTable).toEqual([{ text: "Only use retrievers for Food & Drink, which is/are about Topics related to recipes, restaurants and beverages.", denyTools: ["query_regatta"] }]);
    expect(existsSync(path.join(out, "groundtruth/capability_4_multiturn/regatta.json"))).toBe(true);

    const valid = cli("validate", GOOD, "--benchmark", out);
    expect(valid.code, valid.stderr).toBe(0);
    expect(valid.stdout).toContain("## Validation: ✅ valid");
    const scored = cli("score", GOOD, "--benchmark", out, "--quiet", "--out", path.join(work, "results.json"));
    expect(scored.code, scored.stderr).toBe(0);
    // The policy is now checked: the agent's retrieval breaks it, so multiturn is 100 × 2/3.
    expect(scores(scored.stdout)).toMatchObject({ api_chaining: 50, multiturn: 66.7 });
    expect(overall(scored.stdout)).toBe(58.3);
    const results = JSON.parse(readFileSync(path.join(work, "results.json"), "utf8"));
    const byUuid = Object.fromEntries(results.items.map((i: { uuid: string }) => [i.uuid, i]));
    expect(byUuid["c4-policy-01"]).toMatchObject({ score: 0, stage: "policy", policy: "fail", weight: 1 });
    expect(byUuid["c4-sources-02"]).toMatchObject({ score: 1, weight: 2, sources: "multi_source" });
  });

  it("writes benchmark.yaml beside VAKRA's files without --out; the folder then scores the same", () => {
    const copy = path.join(work, "sample-data");
    cpSync(path.join(REPO, LAYOUTS["sample_data pairs"]), copy, { recursive: true });
    const init = cli("benchmark", "init", "--from-vakra", copy);
    expect(init.code, init.stderr).toBe(0);
    expect(init.stdout).toContain("from VAKRA's sample_data layout");
    expect(existsSync(path.join(copy, "benchmark.yaml"))).toBe(true);
    expect(existsSync(path.join(copy, "groundtruth"))).toBe(false);
    const scored = cli("score", GOOD, "--benchmark", copy, "--quiet");
    expect(scored.code, scored.stderr).toBe(0);
    expect(overall(scored.stdout)).toBe(58.3);
    // Nothing is overwritten.
    const again = cli("benchmark", "init", "--from-vakra", copy);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain("benchmark.yaml exists already; nothing was written");
  });

  it("refuses precisely what it cannot infer, writing nothing", () => {
    const out = path.join(work, "refused");
    const r = cli("benchmark", "init", "--from-vakra", `${F}/refused`, "--out", out);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("capability_5_forecasting: not one of VAKRA's capabilities");
    expect(r.stderr).toContain("its label, scorer and weights cannot be inferred: add it to benchmark.yaml by hand");
    expect(r.stderr).toContain("capability_1_bi_apis/output.json: holds records of 2 domains (cider_house, harbour); one domain per file is read");
    expect(existsSync(out)).toBe(false);
    noStackTrace(r.stderr);

    const splits = cli("benchmark", "init", "--from-vakra", `${F}/data`, "--out", out);
    expect(splits.code).toBe(2);
    expect(splits.stderr).toContain(`${F}/data: holds VAKRA's data split test, not capability folders: use one of them (${F}/data/test)`);
    const ours = cli("benchmark", "init", "--from-vakra", "test/fixtures/mini-benchmark", "--out", out);
    expect(ours.code).toBe(2);
    expect(ours.stderr).toContain("already an Agentboard benchmark folder");
  });
});
