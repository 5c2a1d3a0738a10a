/**
 * `agentboard calibrate` end to end, as a user runs it, against the fake OpenAI-compatible
 * judge (a real HTTP server on 127.0.0.1):
 * - a judge that flips a known 10% of 100 pass/fail labels yields exactly the κ that share
 *   implies, the confusion matrix it implies, and asks each case exactly the request the
 *   waterfall's correctness stage would send (same messages, so the same grade-cache key);
 * - a case the judge cannot judge is counted apart (exit 3), never as a fail;
 * - the report names the judge as a run's manifest does, and `--store` / `calibration store`
 *   keep it on the board.
 */
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { eq } from "drizzle-orm";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { closeDatabase, openDatabase } from "@/db/client";
import { auditLog, judgeCalibrations } from "@/db/schema";
import { gradePrompt } from "@/lib/judges/grade-prompt";
import { judgePromptHashes } from "@/lib/scoring/manifest";
import { verdictRequests } from "@/lib/scoring/waterfall";
import { DEFAULT_FIELD_TEMPLATE, DEFAULT_QA_TEMPLATE, scoreMessages } from "@/lib/evaluators/prompts";
import { NVIDIA_DEMO_DIR } from "@/scripts/demo/build-demo";
import type { CalibrationReport } from "@/lib/aggregate/calibration-report";
import { startFakeOpenAiServer, type FakeOpenAiServer, type RecordedRequest } from "../helpers/fake-openai-server";
import { MINI_BENCHMARK } from "../helpers/mini-fixtures";
import { runCli } from "../helpers/run-cli";

const work = mkdtempSync(path.join(tmpdir(), "agentboard-calibrate-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

let server: FakeOpenAiServer;
beforeEach(async () => {
  server = await startFakeOpenAiServer();
});
afterEach(async () => {
  await server.close();
});

const N = 100;
/** Cases 0–59 are labelled pass, 60–99 fail. */
const labelOf = (i: number) => (i < 60 ? "pass" : "fail");
/** The judge disagrees on 10 of 100: 6 of the passes and 4 of the fails. */
const FLIPPED = new Set([0, 1, 2, 3, 4, 5, 60, 61, 62, 63]);
const tag = (i: number) => `case-${String(i).padStart(3, "0")}`;

function benchmarkWith(name: string, cases: Record<string, unknown>[], from = MINI_BENCHMARK): string {
  const root = path.join(work, name);
  cpSync(from, root, { recursive: true });
  mkdirSync(path.join(root, "calibration"));
  writeFileSync(path.join(root, "calibration/cases.jsonl"), cases.map((c) => JSON.stringify(c)).join("\n") + "\n");
  return root;
}

const correctnessCase = (i: number) => ({
  id: tag(i),
  stage: "correctness",
  capability: "tool_selection",
  question: `How many cranes does berth ${i} have?`,
  reference: String(i % 7),
  answer: `${tag(i)}: berth ${i} has ${i % 7} cranes`,
  label: labelOf(i),
  labelledBy: "harbor-maintainer",
});

const userMessage = (r: RecordedRequest) => ((r.json as { messages: { role: string; content: string }[] }).messages.find((m) => m.role === "user")?.content ?? "");
const caseOf = (r: RecordedRequest) => Number(/case-(\d{3})/.exec(userMessage(r))![1]);

/** Says the label's verdict, except on the flipped cases. */
const flippingJudge = (r: RecordedRequest) => {
  const i = caseOf(r);
  const pass = (labelOf(i) === "pass") !== FLIPPED.has(i);
  return { content: JSON.stringify({ verdict: pass ? "correct" : "incorrect", reason: "fake" }) };
};

const judgeFlags = () => ["--judge", "openai", "--judge-model", "grader", "--judge-base-url", server.baseUrl];

describe("agentboard calibrate", () => {
  it("measures a judge that flips 10% of pass/fail labels at the κ that share implies", async () => {
    const root = benchmarkWith("flips", Array.from({ length: N }, (_, i) => correctnessCase(i)));
    server.setResponder(flippingJudge);
    const out = path.join(work, "flips-report.json");
    const run = await runCli(["calibrate", "--benchmark", root, ...judgeFlags(), "--out", out]);
    expect(run.stderr).toContain(`calibrating ${N}/${N} (100%)`);
    expect(run.code).toBe(0);

    const report = JSON.parse(readFileSync(out, "utf8")) as CalibrationReport;
    // Flipped confusion (label × judge): pass·pass 60 − 6 = 54, pass·fail 6, fail·pass 4, fail·fail 40 − 4 = 36.
    // pₒ = (54 + 36)/100 = 0.90. Labels pass 60, the judge passes 54 + 4 = 58:
    // pₑ = 0.60·0.58 + 0.40·0.42 = 0.348 + 0.168 = 0.516. κ = (0.90 − 0.516)/(1 − 0.516) = 0.384/0.484 = 0.793388…
    const pf = report.summary.passFail!;
    expect(pf.confusion).toEqual({ passPass: 54, passFail: 6, failPass: 4, failFail: 36 });
    expect(pf.n).toBe(100);
    expect(pf.accuracy.value).toBeCloseTo(0.9, 12);
    expect(pf.kappa.value).toBeCloseTo(0.384 / 0.484, 12);
    expect(pf.kappa.ciLow!).toBeLessThan(pf.kappa.value!);
    expect(pf.kappa.ciHigh!).toBeGreaterThan(pf.kappa.value!);
    expect(report.summary).toMatchObject({ cases: 100, unjudged: 0, scores: null });
    expect(report.groups.map((g) => [g.stage, g.capability, g.cases, g.passFail?.kappa.value])).toEqual([["correctness", "tool_selection", 100, pf.kappa.value]]);
    // The judge as a run's manifest names it: kind, model, endpoint class (never the URL), prompt-template hashes.
    expect(report.judge).toEqual({ kind: "openai", model: "grader", endpoint: "local", promptHashes: judgePromptHashes() });
    expect(JSON.stringify(report)).not.toContain(server.baseUrl);
    expect(report.benchmark).toMatchObject({ slug: "mini", version: "1.0", contentHash: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(report.bootstrap).toEqual({ seed: 20_260_522, resamples: 1000 });

    // One request per case, the very messages the waterfall's correctness stage sends for such a turn.
    expect(server.requestCount).toBe(N);
    const first = server.requests.find((r) => caseOf(r) === 7)!;
    const waterfall = verdictRequests({ question: "How many cranes does berth 7 have?", reference: "0", prediction: { answer: `${tag(7)}: berth 7 has 0 cranes` }, predictedResponses: [], compat: "strict", window: 20, evidenceMaxChars: 24_000 });
    expect((first.json as { messages: unknown }).messages).toEqual(gradePrompt(waterfall.correctness, "grader"));

    // The table: the group, then all, with κ and its interval.
    expect(run.stdout).toMatch(/correctness\s+tool_selection\s+100\s+0\s+100\s+90\.0% \[\d+\.\d, \d+\.\d\]\s+0\.79 \[0\.\d\d, 0\.\d\d\]\s+54\/6\/4\/36/);
    expect(run.stdout).toContain("judge openai:grader (local endpoint)");
  });

  it("counts a case the judge cannot judge apart, never as a fail (exit 3, not stored)", async () => {
    const root = benchmarkWith("faults", [0, 10, 60].map(correctnessCase));
    // Case 60 (labelled fail) never gets a readable reply: a silent fail would agree with its label.
    server.setResponder((r) => (caseOf(r) === 60 ? { content: "I would rather not say." } : flippingJudge(r)));
    const out = path.join(work, "faults-report.json");
    const dbFile = path.join(work, "faults.db");
    const run = await runCli(["calibrate", "--benchmark", root, ...judgeFlags(), "--out", out, "--store", "--db", dbFile], { AGENTBOARD_JUDGE_MAX_DELAY_MS: "1" });
    expect(run.code).toBe(3);
    expect(run.stderr).toContain("1 case(s) could not be judged; they are counted apart, not as fails");
    const report = JSON.parse(readFileSync(out, "utf8")) as CalibrationReport;
    expect(report.summary.unjudged).toBe(1);
    expect(report.summary.passFail!.n).toBe(2);
    // Case 0 is flipped (labelled pass, judged fail), case 10 agrees: no fail·fail pair from the unjudged case.
    expect(report.summary.passFail!.confusion).toEqual({ passPass: 1, passFail: 1, failPass: 0, failFail: 0 });
    expect(report.cases.find((c) => c.id === tag(60))).toMatchObject({ outcome: "unjudged", score: null, reason: "the openai:grader judge gave no usable reply" });
    const db = openDatabase(dbFile);
    try {
      expect(await db.select().from(judgeCalibrations)).toEqual([]);
    } finally {
      await closeDatabase(db);
    }
  });

  it("refuses an invalid calibration set before asking the judge anything", async () => {
    const root = benchmarkWith("invalid", [correctnessCase(0), { ...correctnessCase(1), label: "perhaps" }, { ...correctnessCase(2), capability: "cranes" }]);
    const run = await runCli(["calibrate", "--benchmark", root, ...judgeFlags()]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('calibration/cases.jsonl:2: $.label: expected "pass", "fail" or a score from 0 to 1, found "perhaps"');
    expect(run.stderr).toContain('calibration/cases.jsonl:3: $.capability: the benchmark has no capability "cranes"');
    expect(run.stderr).toContain("error: the calibration set is invalid (2 problem(s)); nothing was graded");
    expect(server.requestCount).toBe(0);
  });

  it("stores the report on the board with --store, and again from its file with calibration store", async () => {
    const root = benchmarkWith("store", Array.from({ length: 20 }, (_, i) => correctnessCase(i < 10 ? i : 60 + i)));
    server.setResponder(flippingJudge);
    const dbFile = path.join(work, "store.db");
    const out = path.join(work, "store-report.json");
    const run = await runCli(["calibrate", "--benchmark", root, ...judgeFlags(), "--store", "--db", dbFile, "--out", out, "--quiet"]);
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(/^stored calibration #1 for openai:grader on benchmark version 1 in /m);
    const again = await runCli(["calibration", "store", out, "--db", dbFile]);
    expect(again.code).toBe(0);
    expect(again.stdout).toBe("stored calibration #1 for openai:grader on mini v1.0\n");
    const db = openDatabase(dbFile);
    try {
      const rows = await db.select().from(judgeCalibrations);
      // One row per (judge, prompts, version): the second store replaced the first.
      expect(rows).toHaveLength(1);
      const report = JSON.parse(readFileSync(out, "utf8")) as CalibrationReport;
      expect(rows[0]).toMatchObject({ judgeId: "openai:grader", endpoint: "local", n: 20, cases: 20, unjudged: 0, kappa: report.summary.passFail!.kappa.value, accuracy: report.summary.passFail!.accuracy.value });
      expect(rows[0]!.report).toEqual(report);
      expect(await db.select({ action: auditLog.action }).from(auditLog).where(eq(auditLog.action, "calibration:stored"))).toHaveLength(2);
    } finally {
      await closeDatabase(db);
    }
    const bad = await runCli(["calibration", "store", path.join(root, "benchmark.yaml"), "--db", dbFile]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^error: cannot read .*benchmark\.yaml: not JSON/);
  });
});

describe("agentboard calibrate on the evaluators' stages", () => {
  it("asks each qa, trajectory and report-field case what the capability's evaluator asks, and measures scores by MAE and ρ", async () => {
    const description = "A forklift reversed into the path of a worker while a box truck was unloading.";
    const root = benchmarkWith(
      "nvidia",
      [
        { id: "qa-1", stage: "qa", capability: "video_qa", question: "How many forklifts crossed bay 2?", reference: "3 forklifts", answer: "three forklifts", label: 0.9, labelledBy: "vss-maintainer" },
        { id: "tr-1", stage: "trajectory", capability: "tool_trajectory", question: "Show the clip of cam-07 at 08:40.", reference: [{ step: 1, name: "get_clip", params: { camera: "cam-07" } }], answer: [{ name: "get_clip", params: { camera: "cam-07" } }], label: 1, labelledBy: "vss-maintainer" },
        { id: "rf-1", stage: "report_field", capability: "incident_report", question: "report.Incident Summary.Description", reference: description, answer: "A reversing forklift nearly hit a worker.", label: "pass", labelledBy: "vss-maintainer" },
        { id: "rf-2", stage: "report_field", capability: "incident_report", question: "report.Incident Summary.Camera", reference: "cam-07", answer: "cam-07", label: "pass", labelledBy: "vss-maintainer" },
      ],
      NVIDIA_DEMO_DIR,
    );
    // The judge's scores: qa 0.8, trajectory 0.7, the report field 0.6 (a pass at 0.5 or above).
    server.setResponder((r) => {
      const u = userMessage(r);
      const score = u.includes("forklifts crossed") ? 0.8 : u.includes("get_clip") ? 0.7 : 0.6;
      return { content: JSON.stringify({ score, reasoning: "fake" }) };
    });
    const out = path.join(work, "nvidia-report.json");
    const run = await runCli(["calibrate", "--benchmark", root, ...judgeFlags(), "--out", out, "--quiet"]);
    expect(run.code).toBe(3);
    const report = JSON.parse(readFileSync(out, "utf8")) as CalibrationReport;
    expect(report.cases.map((c) => [c.id, c.outcome, c.score])).toEqual([
      ["qa-1", "scored", 0.8],
      ["tr-1", "scored", 0.7],
      ["rf-1", "scored", 0.6],
      ["rf-2", "unjudged", null],
    ]);
    // The Camera field is compared by exact match, never by a judge: nothing to calibrate, and said so.
    expect(report.cases[3]!.reason).toBe('capability "incident_report" does not grade the report field "report.Incident Summary.Camera" with a judge (llm_judge) in its metrics');
    // Three requests, one per judged case: the others the report evaluator would send are never sent.
    expect(server.requestCount).toBe(3);
    const sent = server.requests.map((r) => (r.json as { messages: unknown }).messages);
    expect(sent).toContainEqual(scoreMessages(DEFAULT_QA_TEMPLATE, { question: "How many forklifts crossed bay 2?", answer: "three forklifts", reference: "3 forklifts" }));
    expect(sent).toContainEqual(scoreMessages(DEFAULT_FIELD_TEMPLATE, { field_context: "\n\nField being evaluated: Description (what happened, in one or two sentences)", reference: description, actual: "A reversing forklift nearly hit a worker." }));
    // Scores: |0.9 − 0.8| and |1 − 0.7| → MAE (0.1 + 0.3)/2 = 0.2. Ranks: labels (1, 2), judge (2, 1): ρ = −1.
    const scores = report.summary.scores!;
    expect(scores.n).toBe(2);
    expect(scores.meanAbsoluteError.value).toBeCloseTo(0.2, 12);
    expect(scores.spearman.value).toBeCloseTo(-1, 12);
    // The report field's pass label against 0.6: agreed.
    expect(report.summary.passFail!.confusion).toEqual({ passPass: 1, passFail: 0, failPass: 0, failFail: 0 });
    expect(report.groups.map((g) => [g.stage, g.capability, g.cases, g.unjudged])).toEqual([
      ["qa", "video_qa", 1, 0],
      ["trajectory", "tool_trajectory", 1, 0],
      ["report_field", "incident_report", 2, 1],
    ]);
  });
});
