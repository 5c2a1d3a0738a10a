/**
 * `judge.minKappa` through the orchestrator on each engine: a run graded by an LLM judge (the
 * fake OpenAI-compatible server) with no stored calibration, or one below the bar, is approved
 * but not published, and the review list says why; storing a calibration that meets the bar
 * publishes it (re-checked on store). The run's manifest names the calibration its judge had.
 * A run graded by the rules judge is never held.
 */
import { cpSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { and, eq } from "drizzle-orm";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { auditLog, scoringRuns, submissions } from "@/db/schema";
import { buildCalibrationReport, calibratedJudge } from "@/lib/aggregate/calibration-report";
import { createGrader, recordedJudge, resolveJudgeSettings, type JudgeSettings } from "@/lib/judges/judge-settings";
import type { CalibrationLabel } from "@/lib/formats/calibration-case";
import { passFail } from "@/lib/judges/grader";
import { getCalibrations } from "@/lib/queries/calibration";
import { getReviewEntry } from "@/lib/queries/activity";
import { getLeaderboard } from "@/lib/queries/leaderboard";
import { manifestJudge, parseManifest } from "@/lib/scoring/manifest";
import { registerBenchmark } from "@/lib/submissions/benchmarks";
import { CalibrationStoreError, storeCalibration } from "@/lib/submissions/calibrations";
import { ingestBundle } from "@/lib/submissions/ingest";
import { loadIssueStatus, renderStatusComment } from "@/lib/submissions/github-status";
import { approve, rescore, restore, withdraw } from "@/lib/submissions/review";
import { createScoringDeps } from "@/lib/submissions/scoring-deps";
import { runWorker } from "@/lib/submissions/worker";
import { ENGINES, freshDatabase, type TestDatabase } from "../helpers/engines";
import { startFakeOpenAiServer, type FakeOpenAiServer } from "../helpers/fake-openai-server";
import { GOOD_BUNDLE, MINI_BENCHMARK, tickingClock } from "../helpers/mini-fixtures";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";

const work = mkdtempSync(path.join(tmpdir(), "agentboard-calibration-gate-"));

/** The mini benchmark judged by an LLM (the fake server's model "grader") and held to κ ≥ 0.6. */
function gatedBenchmark(): string {
  const root = path.join(work, `mini-${Math.random().toString(36).slice(2)}`);
  cpSync(MINI_BENCHMARK, root, { recursive: true });
  const yaml = readFileSync(path.join(root, "benchmark.yaml"), "utf8");
  writeFileSync(path.join(root, "benchmark.yaml"), `${yaml}judge:\n  kind: openai\n  model: grader\n  minKappa: 0.6\n`);
  return root;
}

/**
 * A report of the openai:grader judge on the mini benchmark with these label × judge pairs.
 * κ 0.5: labels P P F F, judge P F F F → pₒ 3/4, pₑ (2·1 + 2·3)/16 = 1/2, κ = (3/4 − 1/2)/(1/2) = 0.5.
 * κ 1: ten cases, every one agreed, five of each class.
 */
function report(pairs: [CalibrationLabel, boolean][], baseUrl: string) {
  const graded = pairs.map(([label, pass], i) => ({
    case: { id: `c-${i}`, stage: "correctness" as const, capability: "tool_selection", question: "q", reference: "r", answer: "a", label, labelledBy: "me", file: "calibration/x.jsonl", line: i + 1 },
    grade: passFail(pass, "fake"),
  }));
  return buildCalibrationReport(graded, {
    benchmark: { slug: "mini", version: "1.0", contentHash: null },
    judge: manifestJudge({ id: "openai:grader", kind: "openai", model: "grader", baseUrl, concurrency: 16 }),
    agentboard: { version: "test", commit: null },
    createdAt: new Date(Date.UTC(2026, 10, 20)),
    files: ["calibration/x.jsonl"],
  });
}
const HALF: [CalibrationLabel, boolean][] = [
  ["pass", true],
  ["pass", false],
  ["fail", false],
  ["fail", false],
];
const FULL: [CalibrationLabel, boolean][] = Array.from({ length: 10 }, (_, i) => [i < 5 ? "pass" : "fail", i < 5]);

describe.each(ENGINES)("judge.minKappa on %s", (engine) => {
  let t: TestDatabase;
  let server: FakeOpenAiServer;
  const now = tickingClock();
  const who = () => ({ actor: "maintainer:ada", at: now() });

  beforeEach(async () => {
    t = await freshDatabase(engine);
    server = await startFakeOpenAiServer();
  });
  afterEach(async () => {
    await server.close();
    await t.close();
  });

  async function scoredEntry(root: string, run: { judgeKind?: "rules" | "openai" } = {}): Promise<{ id: number; versionId: number }> {
    const { versionId } = await registerBenchmark(t.db, root, { now: now() });
    const { submissionId } = await ingestBundle(t.db, { versionId, bundlePath: GOOD_BUNDLE, source: "local", sourceRef: GOOD_BUNDLE, actor: "cli", run }, now);
    await scoreQueue();
    return { id: submissionId, versionId };
  }

  async function scoreQueue() {
    const deps = createScoringDeps(t.db, { now, env: { AGENTBOARD_JUDGE_BASE_URL: server.baseUrl } });
    try {
      await runWorker(t.db, deps, { untilIdle: true });
    } finally {
      await deps.close();
    }
  }

  const stateOf = async (id: number) => (await t.db.select({ state: submissions.state }).from(submissions).where(eq(submissions.id, id)))[0]!.state;
  const manifestOf = async (id: number) => {
    const [sub] = await t.db.select({ runId: submissions.currentRunId }).from(submissions).where(eq(submissions.id, id));
    return (await t.db.select({ manifest: scoringRuns.manifest, judgeId: scoringRuns.judgeId }).from(scoringRuns).where(eq(scoringRuns.id, sub!.runId!)))[0]!;
  };

  it("holds an LLM-judged run until a calibration at or above the bar is stored, then publishes it", async () => {
    const { id, versionId } = await scoredEntry(gatedBenchmark());
    const run = await manifestOf(id);
    expect(run.judgeId).toBe("openai:grader");
    expect(run.manifest!.judge).toMatchObject({ kind: "openai", model: "grader", endpoint: "local", calibration: null });
    expect(server.requestCount).toBeGreaterThan(0);

    await approve(t.db, id, who());
    expect(await stateOf(id)).toBe("approved");
    expect((await getLeaderboard(t.db))!.entries).toEqual([]);
    const missing = "the openai:grader judge has no stored calibration for this benchmark version and its prompts; judge.minKappa asks for κ ≥ 0.60 (agentboard calibrate --store)";
    expect((await getReviewEntry(t.db, id))!.held).toBe(missing);
    const [heldRow] = await t.db.select().from(auditLog).where(and(eq(auditLog.submissionId, id), eq(auditLog.action, "publication:held")));
    expect(heldRow).toMatchObject({ actor: "maintainer:ada", reason: missing });
    // The submission's GitHub status comment says it too (markdown neutralised: "\(" for "(").
    expect(renderStatusComment(await loadIssueStatus(t.db, { author: "lab", problem: null, submissionId: id }, "https://board.example"))).toContain("Not published yet: the openai:grader judge has no stored calibration for this benchmark version and its prompts; judge.minKappa asks for κ ≥ 0.60 \\(agentboard calibrate --store\\)");

    // Below the bar: still held, and the reason says by how much.
    const low = await storeCalibration(t.db, report(HALF, server.baseUrl), who());
    expect(low.released).toEqual([]);
    expect(await stateOf(id)).toBe("approved");
    expect((await getReviewEntry(t.db, id))!.held).toBe("the openai:grader judge's calibration shows κ 0.50 on 4 labelled cases, below judge.minKappa 0.60");

    // At the bar: published on store, by whoever stored it.
    const good = await storeCalibration(t.db, report(FULL, server.baseUrl), who());
    expect(good).toMatchObject({ id: low.id, versionId, judgeId: "openai:grader", released: [id] });
    expect(await stateOf(id)).toBe("published");
    expect((await getLeaderboard(t.db))!.entries.map((e) => e.id)).toEqual([id]);
    expect((await getReviewEntry(t.db, id))!.held).toBeNull();
    const published = await t.db.select().from(auditLog).where(and(eq(auditLog.submissionId, id), eq(auditLog.toState, "published")));
    expect(published).toHaveLength(1);
    expect(published[0]!.details).toMatchObject({ runId: expect.any(Number), overall: expect.any(Number) });

    // /about's figures: one judge on the version, κ 1 over 10 cases.
    expect(await getCalibrations(t.db, versionId)).toEqual([expect.objectContaining({ id: good.id, judgeId: "openai:grader", endpoint: "local", n: 10, cases: 10, accuracy: 1, kappa: 1, kappaLow: 1, kappaHigh: 1 })]);

    // A later run's manifest names the calibration its judge had.
    await rescore(t.db, id, who());
    await scoreQueue();
    const later = (await manifestOf(id)).manifest!;
    expect(later.judge.calibration).toEqual({ id: good.id, kappa: 1, accuracy: 1, n: 10 });
    // `agentboard verify` reads it back as a manifest.
    expect(parseManifest(JSON.parse(JSON.stringify(later)))).toEqual({ ok: true, manifest: later });
  });

  it("keeps a restored entry off the board while its judge's calibration falls short", async () => {
    const root = gatedBenchmark();
    const { id } = await scoredEntry(root);
    await storeCalibration(t.db, report(FULL, server.baseUrl), who());
    await approve(t.db, id, who());
    expect(await stateOf(id)).toBe("published");
    await withdraw(t.db, id, who(), "checking");
    // A newer calibration of the same judge and prompts replaces the one it was published under.
    await storeCalibration(t.db, report(HALF, server.baseUrl), who());
    await restore(t.db, id, who());
    expect(await stateOf(id)).toBe("approved");
    expect((await getReviewEntry(t.db, id))!.held).toMatch(/shows κ 0\.50 on 4 labelled cases, below judge\.minKappa 0\.60$/);
    const released = await storeCalibration(t.db, report(FULL, server.baseUrl), who());
    expect(released.released).toEqual([id]);
    expect(await stateOf(id)).toBe("published");
  });

  it("never holds a run the rules judge graded, and refuses a report it cannot store", async () => {
    const { id } = await scoredEntry(gatedBenchmark(), { judgeKind: "rules" });
    expect((await manifestOf(id)).manifest!.judge).toMatchObject({ kind: "rules", promptHashes: {}, calibration: null });
    await approve(t.db, id, who());
    expect(await stateOf(id)).toBe("published");

    const other = report(FULL, server.baseUrl);
    await expect(storeCalibration(t.db, { ...other, benchmark: { ...other.benchmark, version: "9.9" } }, who())).rejects.toThrow(new CalibrationStoreError("benchmark mini v9.9 is not on this board: register it first (agentboard submit, or calibrate --store --benchmark <dir>)"));
    await expect(storeCalibration(t.db, { ...other, summary: { ...other.summary, unjudged: 2 } }, who())).rejects.toThrow(/^the report has 2 case\(s\) the judge could not judge/);
  });

  it("stores a panel's calibration under the name its runs give their judge, and a literal judge's under its kind", async () => {
    const { versionId } = await registerBenchmark(t.db, gatedBenchmark(), { now: now() });
    const reportOf = (settings: JudgeSettings) => ({ ...report(FULL, server.baseUrl), judge: calibratedJudge(recordedJudge(settings), createGrader(settings)) });
    const panel = resolveJudgeSettings({ config: { panel: { rule: "primary", judges: [{ kind: "rules" }, { kind: "literal" }] } } });
    const stored = await storeCalibration(t.db, reportOf(panel), who());
    expect(stored.judgeId).toBe("panel:primary(rules,literal)");
    expect((await storeCalibration(t.db, reportOf(resolveJudgeSettings({ flags: { judge: "literal" } })), who())).judgeId).toBe("literal");
    expect((await getCalibrations(t.db, versionId)).map((c) => c.judgeId).sort()).toEqual(["literal", "panel:primary(rules,literal)"]);
  });
});
