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
import type { CalibrationReport } from "@/lib/scoring/calibration-report";
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

function benchmarkWith(name: string, cases: Record<string, unknown>[]): string {
  const root = path.join(work, name);
  cpSync(MINI_BENCHMARK, root, { recursive: true });
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
