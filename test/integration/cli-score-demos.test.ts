/**
 * `score` through the real CLI process on both demos: every capability kind the worker can
 * score (the waterfall with MCP replay, and the qa, trajectory and report evaluators), with
 * the same numbers as the entries the main job publishes (the demos' READMEs).
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runCli, type CliRun } from "../helpers/run-cli";

const work = mkdtempSync(path.join(tmpdir(), "agentboard-cli-demos-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

interface Results {
  overall: { score: number };
  capabilities: Record<string, { score: number; submitted: boolean }>;
  flags: { kind: string; capability?: string; share?: number; message: string }[];
  unsupportedAnswers: { threshold: number | null; capabilities: Record<string, { share: number | null } | null> };
  trials: number;
  trialStats: { overall: { perTrial: number[]; sd: number | null; passK: number } };
}

async function score(benchmark: string, agent: string): Promise<CliRun & { results: Results }> {
  const out = path.join(work, `${path.basename(benchmark)}-${agent}.json`);
  const r = await runCli(["score", path.join(benchmark, "submissions", agent), "--benchmark", benchmark, "--quiet", "--out", out]);
  return { ...r, results: r.code === 0 || r.code === 3 ? JSON.parse(readFileSync(out, "utf8")) : null };
}

const one = (x: number) => Math.round(x * 10) / 10;

describe("cli score on the VSS-style demo (evaluator capabilities)", () => {
  const expected: Record<string, Record<string, number | null>> = {
    "reference-agent": { video_qa: 95.2, tool_trajectory: 92.2, incident_report: 87.9 },
    "vss-baseline": { video_qa: 72.1, tool_trajectory: 67.0, incident_report: 49.2 },
    "caption-only": { video_qa: 12.7, tool_trajectory: 20.9, incident_report: 16.0 },
    "qa-only": { video_qa: 81.0, tool_trajectory: null, incident_report: null },
  };
  it.each(Object.keys(expected))("%s scores as published", async (agent) => {
    const r = await score("benchmarks/demo-nvidia", agent);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("Overall");
    for (const [cap, value] of Object.entries(expected[agent]!)) {
      const c = r.results.capabilities[cap]!;
      if (value === null) expect(c.submitted).toBe(false);
      else expect(one(c.score), cap).toBe(value);
    }
    // Evaluator capabilities have no groundedness stage: no unsupported-answer share, no flag.
    expect(r.results.flags).toEqual([]);
    expect(Object.values(r.results.unsupportedAnswers.capabilities).every((c) => c === null)).toBe(true);
  });
});

describe("cli score on the VAKRA-style demo (the waterfall over MCP replay)", () => {
  // Four of the seven agents (each spawns its MCP servers): a strong one, the policy breaker,
  // the fabricator and the 4-trial steady agent. All go through the same engine entry point in
  // demo-benchmark.test.ts.
  const expected: Record<string, number> = { "strong-agent": 85.2, "policy-breaker": 79.4, fabricator: 2.9, "steady-agent": 75.2 };
  it("scores sample agents as published", async () => {
    const runs = await Promise.all(Object.keys(expected).map(async (agent) => [agent, await score("benchmarks/demo", agent)] as const));
    for (const [agent, r] of runs) {
      expect(r.code, `${agent}: ${r.stderr}`).toBe(0);
      expect(one(r.results.overall.score), agent).toBe(expected[agent]);
      // results.json's top-level flags: the fabricator's right answers without supporting calls, in every capability.
      const flagged = r.results.flags.map((f) => `${f.kind}:${f.capability}:${f.share}`);
      expect(flagged, agent).toEqual(agent === "fabricator" ? ["api_chaining", "tool_selection", "multihop", "multiturn"].map((c) => `unsupported_answers:${c}:1`) : []);
      expect(r.results.unsupportedAnswers.threshold).toBe(0.5);
      expect(r.results.trials, agent).toBe(agent === "steady-agent" ? 4 : 1);
    }
    // The bundle of trials: the table adds each capability's spread and pass^4; results.json the trial stats.
    const steady = runs.find(([agent]) => agent === "steady-agent")![1];
    expect(steady.stdout).toContain("mean of 4 trials");
    expect(steady.stdout).toMatch(/SD \(trials\)\s+pass\^4/);
    expect(steady.results.trialStats.overall.perTrial.map(one)).toEqual([75.6, 75.7, 76.9, 72.5]);
    expect(one(steady.results.trialStats.overall.passK)).toBe(58.6);
  }, 240_000);
});
