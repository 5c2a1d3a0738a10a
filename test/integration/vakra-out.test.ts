/**
 * `agentboard score --vakra-out` writes the files VAKRA's own evaluator writes, byte for byte:
 * compared through the real CLI with files VAKRA's evaluator wrote for the same bundles and the
 * same verdicts (test/fixtures/vakra-out/README.md says how they were made). Text, not parsed
 * JSON, so `1.0` against `1`, key order, escaping, indentation and the last byte all count.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { AGENTBOARD, REPO } from "../helpers/run-cli";

const F = "test/fixtures";
const CASES = [
  { name: "layouts-good", bundle: `${F}/vakra-layouts/bundles/good`, benchmark: `${F}/vakra-layouts/evaluator-layout` },
  { name: "shapes-ok", bundle: `${F}/vakra-shapes/predictions/ok`, benchmark: `${F}/vakra-shapes` },
  { name: "missing-and-unicode", bundle: `${F}/vakra-out/bundle`, benchmark: `${F}/vakra-out/benchmark` },
];
const work = mkdtempSync(path.join(tmpdir(), "agentboard-vakra-out-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/**
 * The differences docs/vakra.md lists, applied to VAKRA's text: these runs replay no calls,
 * which VAKRA's evaluator always does; and the judges' explanations are each side's own words
 * (the fixtures' are Agentboard's, through stand-in judges), so only their presence is compared.
 */
function documented(text: string): string {
  return text
    .replaceAll('"execute_mcp_tools": true', '"execute_mcp_tools": false')
    .replace(/^(\s+"(?:answer|exactmatch|groundedness|policy)": )"(?:[^"\\]|\\.)*"/gm, '$1"<explanation>"');
}

describe.each(CASES)("--vakra-out on $name", ({ name, bundle, benchmark }) => {
  const out = path.join(work, name);
  const run = spawnSync(process.execPath, [...AGENTBOARD, "score", bundle, "--benchmark", benchmark, "--quiet", "--vakra-out", out], { cwd: REPO, encoding: "utf8", env: { ...process.env, FORCE_COLOR: "0" } });
  const expectedDir = path.join(REPO, F, "vakra-out/expected", name);
  const files = readdirSync(expectedDir).sort();

  it("writes one file per capability VAKRA's evaluator would", () => {
    expect(run.status, run.stderr).toBe(0);
    expect(readdirSync(out).sort()).toEqual(files);
  });

  it.each(files)("%s equals VAKRA's, byte for byte", (file) => {
    const ours = readFileSync(path.join(out, file), "utf8");
    const vakra = readFileSync(path.join(expectedDir, file), "utf8");
    expect(documented(ours)).toBe(documented(vakra));
  });
});

describe("--vakra-out after MCP replay", () => {
  // VAKRA's own values, by its evaluator's rules for capability_bi_apis with MCP (it cannot run
  // here without its servers): the first turn's calls start with get_data(<uuid>) on both
  // sides and the ground truth's initialize_active_data is dropped, and it counts them so.
  // The ground truth has 3 and 4 calls (initialize_active_data first), the predictions 2 and 3.
  const M = `${F}/vakra-out/mcp`;
  const out = path.join(work, "mcp");
  const run = spawnSync(process.execPath, [...AGENTBOARD, "score", `${M}/bundle`, "--benchmark", `${M}/benchmark`, "--quiet", "--vakra-out", out], { cwd: REPO, encoding: "utf8", env: { ...process.env, FORCE_COLOR: "0" } });

  it("says the calls were executed and counts the environment's own calls as VAKRA does", () => {
    expect(run.status, run.stderr).toBe(0);
    const doc = JSON.parse(readFileSync(path.join(out, "capability_1_bi_apis_results.json"), "utf8"));
    const dialogues = doc.domains.harbor.dialogues as { metadata: { policy: { execute_mcp_tools: boolean } }; details: { per_turn: { metadata: Record<string, number> }[] } }[];
    expect(dialogues.map((d) => d.metadata.policy.execute_mcp_tools)).toEqual([true, true]);
    expect(dialogues.map((d) => d.details.per_turn[0]!.metadata)).toMatchObject([
      { gt_steps: 3, pred_steps: 3, extra_steps: 0 },
      { gt_steps: 4, pred_steps: 4, extra_steps: 0 },
    ]);
  });
});
