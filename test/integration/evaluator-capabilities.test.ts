/**
 * The NVIDIA-style demo as a leaderboard benchmark (qa, trajectory and report capabilities)
 * through the whole pipeline on an in-memory database: ingest, validate, score with the
 * evaluators, publish, and read back through the page queries. A judge fault from the fake
 * OpenAI server leaves the entry unpublished with the faulty items named.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase, type Db } from "@/db/client";
import { getLeaderboard } from "@/lib/queries/leaderboard";
import { getItem, getSubmission } from "@/lib/queries/submission";
import { listItems } from "@/lib/queries/item-list";
import { loadItemGroundTruth } from "@/lib/queries/item-ground-truth";
import { loadDemoEntries } from "@/lib/submissions/demo-entries";
import { registerBenchmark } from "@/lib/submissions/benchmarks";
import { ingestBundle } from "@/lib/submissions/ingest";
import { createScoringDeps } from "@/lib/submissions/scoring-deps";
import { runWorker } from "@/lib/submissions/worker";
import { eq } from "drizzle-orm";
import { scoringRuns } from "@/db/schema";
import { NVIDIA_DEMO_DIR } from "@/scripts/demo/build-demo";
import { fastRetries, startFakeOpenAiServer, type FakeOpenAiServer } from "../helpers/fake-openai-server";

let clock = 0;
const now = () => new Date(Date.UTC(2026, 10, 22) + clock++ * 1000);

/** Item means of the rules evaluators over both domains, as the eval CLI computes them (see the demo's README). */
const EXPECTED: Record<string, Record<string, number | null>> = {
  "reference-agent": { video_qa: 0.9524, tool_trajectory: 0.9219, incident_report: 0.8785 },
  "vss-baseline": { video_qa: 0.7214, tool_trajectory: 0.6696, incident_report: 0.4923 },
  "caption-only": { video_qa: 0.1274, tool_trajectory: 0.2089, incident_report: 0.1602 },
  "qa-only": { video_qa: 0.8095, tool_trajectory: null, incident_report: null },
};

describe("the NVIDIA-style demo on the leaderboard", () => {
  let db: Db;
  beforeAll(async () => {
    db = openDatabase(":memory:");
    const deps = createScoringDeps(db, { now });
    try {
      const r = await loadDemoEntries(db, NVIDIA_DEMO_DIR, deps);
      expect(r).toMatchObject({ created: 4, scored: 4, published: 4 });
    } finally {
      await deps.close();
    }
  }, 60_000);

  it("ranks the entries with one column per evaluator capability", async () => {
    const board = (await getLeaderboard(db, { benchmark: "demo-nvidia" }))!;
    expect(board.benchmark.capabilities.map((c) => `${c.id}:${c.scorer}`)).toEqual(["video_qa:qa", "tool_trajectory:trajectory", "incident_report:report"]);
    expect(board.entries.map((e) => e.agent)).toEqual(["reference-agent", "vss-baseline", "qa-only", "caption-only"]);
    for (const e of board.entries) {
      for (const [cap, expected] of Object.entries(EXPECTED[e.agent]!)) {
        const cell = e.capabilities[cap]!;
        if (expected === null) expect(cell.submitted, `${e.agent} ${cap}`).toBe(false);
        else expect(cell.score / 100, `${e.agent} ${cap}`).toBeCloseTo(expected, 4);
      }
    }
    const reference = board.entries[0]!;
    expect(reference.overall.score / 100).toBeCloseTo((0.9524 + 0.9219 + 0.8785) / 3, 3);
    expect(reference.badges.partial).toBe(false);
    expect(board.entries.find((e) => e.agent === "qa-only")!.badges.partial).toBe(true);
  });

  it("shows evaluator results on the detail and item views, and no waterfall funnel", async () => {
    const id = (await getLeaderboard(db, { benchmark: "demo-nvidia" }))!.entries[0]!.id;
    const detail = (await getSubmission(db, id))!;
    expect(detail.funnel).toBeNull();
    expect(detail.trajectory).toEqual([]);
    expect(detail.evaluators.map((r) => [r.capability, r.scorer, r.nItems, r.nScored])).toEqual([
      ["video_qa", "qa", 14, 14],
      ["tool_trajectory", "trajectory", 10, 10],
      ["incident_report", "report", 4, 4],
    ]);
    expect(detail.evaluators[2]!.subScores.vlm_field).toBeGreaterThan(0);
    expect(detail.domains.filter((d) => d.capability === "incident_report").map((d) => d.domain)).toEqual(["loading_dock", "parking_lot"]);

    const items = (await listItems(db, detail.run!.id, { capability: "incident_report" }));
    expect(items.total).toBe(4);
    expect(items.facets.outcomes).toEqual(["qa", "trajectory", "report"]);
    // This demo shows its ground truth, so the evaluator's evidence is there.
    expect(detail.benchmark.showGroundTruth).toBe(true);
    const report = (await getItem(db, detail.run!.id, "incident_report", items.rows[0]!.uuid, { showGroundTruth: true }))!;
    expect(report.stage).toBe("report");
    expect(report.evaluation).toMatchObject({ kind: "report", status: "scored", judge: "rules" });
    expect(Object.keys(report.evaluation!.details!)).toContain("sections");
    const truth = await loadItemGroundTruth(db, id, "incident_report", report.uuid);
    expect(truth?.answer).toMatchObject({ title: expect.any(String) });

    const turn = (await getItem(db, detail.run!.id, "tool_trajectory", "conv-dock_turn_2", { showGroundTruth: true }))!;
    expect(turn.calls.length).toBeGreaterThan(0);
    expect(turn.evaluation?.kind).toBe("trajectory");
    // The evaluator's comparison is shown call by call, the expected side only where the ground truth is public.
    expect(turn.trajectory!.calls!.length).toBeGreaterThan(0);
    expect(turn.trajectory!.calls!.some((c) => c.call !== null && c.expected !== null)).toBe(true);
    const closed = (await getItem(db, detail.run!.id, "tool_trajectory", "conv-dock_turn_2", { showGroundTruth: false }))!;
    expect(closed.trajectory!.calls!.map((c) => c.call?.name)).toEqual(turn.trajectory!.calls!.filter((c) => c.call).map((c) => c.call!.name));
    expect(closed.trajectory!.calls!.every((c) => c.expected === null)).toBe(true);
  });
});

describe("an LLM judge fault in an evaluator capability", () => {
  let fake: FakeOpenAiServer;
  const tmp = mkdtempSync(path.join(tmpdir(), "agentboard-evalcap-"));
  beforeAll(async () => {
    fake = await startFakeOpenAiServer();
  });
  afterAll(async () => {
    await fake.close();
    rmSync(tmp, { recursive: true, force: true });
  });

  it("stops the entry at error with the faulty items, never a silent 0", async () => {
    // The demo judged by an LLM, with the reference agent's answers and tool calls (its reports
    // left out): QA prompts get scores, every trajectory prompt fails.
    const bench = path.join(tmp, "bench");
    const keep = (src: string) => !src.includes(`${path.sep}submissions${path.sep}`) || (src.includes("reference-agent") && !src.includes(`reference-agent${path.sep}report`));
    cpSync(NVIDIA_DEMO_DIR, bench, { recursive: true, filter: keep });
    const yaml = path.join(bench, "benchmark.yaml");
    writeFileSync(yaml, readFileSync(yaml, "utf8").replace('version: "1.0"', `version: "1.0"\njudge: { kind: openai, model: grader, baseUrl: "${fake.baseUrl}" }`));
    fake.setResponder((req) => (/tool use/.test(req.rawBody) ? { status: 500, body: { error: "down" } } : { content: JSON.stringify({ score: 0.5, reasoning: "fake: half" }) }));

    const db = openDatabase(":memory:");
    const { versionId } = await registerBenchmark(db, bench, { isDefault: true, now: now() });
    const a = await ingestBundle(db, { versionId, bundlePath: path.join(bench, "submissions/reference-agent"), source: "local", sourceRef: "x", actor: "cli" }, now);
    // The worker's judge comes from benchmark.yaml through the one factory; only the transport is the test's.
    const sleeps: number[] = [];
    const { baseUrl: _b, ...transport } = fastRetries(fake.baseUrl, sleeps);
    const deps = createScoringDeps(db, { now, env: { AGENTBOARD_JUDGE_API_KEY: "sk-test-secret" }, transport });
    try {
      await runWorker(db, deps, { untilIdle: true });
    } finally {
      await deps.close();
    }
    const detail = (await getSubmission(db, a.submissionId))!;
    expect(detail.state).toBe("error");
    expect(detail.timeline.find((t) => t.toState === "error")?.reason).toMatch(/^10 item\(s\) could not be judged or replayed/);
    const faulty = (await listItems(db, detail.run!.id, { outcome: "judge_error" }));
    expect(faulty.total).toBe(10);
    expect(new Set(faulty.rows.map((r) => r.capability))).toEqual(new Set(["tool_trajectory"]));
    // The judge's failure is private detail: a private benchmark shows only that it could not judge.
    const item = (await getItem(db, detail.run!.id, "tool_trajectory", faulty.rows[0]!.uuid, { showGroundTruth: true }))!;
    expect(item.detail).toMatch(/HTTP 500/);
    expect(item.reason).toMatch(/no usable reply/);
    expect((await getItem(db, detail.run!.id, "tool_trajectory", faulty.rows[0]!.uuid, { showGroundTruth: false }))!.detail).toBeNull();
    // The run records the judge it was scored with, never its key.
    const run = (await db.select().from(scoringRuns).where(eq(scoringRuns.id, detail.run!.id)).limit(1))[0]!;
    expect(run.judge).toEqual({ id: "openai:grader", kind: "openai", model: "grader", baseUrl: fake.baseUrl, concurrency: 16 });
    expect(JSON.stringify(run)).not.toContain("sk-test-secret");
    const qa = (await listItems(db, detail.run!.id, { capability: "video_qa" }));
    expect(qa.rows.every((r) => r.status === "scored" && r.score === 0.5)).toBe(true);
    expect((await listItems(db, detail.run!.id, { capability: "incident_report" })).rows.every((r) => r.status === "missing")).toBe(true);
    expect((await getLeaderboard(db))!.entries).toEqual([]);
  }, 60_000);
});

describe("the worker's judge from the one factory", () => {
  let fake: FakeOpenAiServer;
  const tmp = mkdtempSync(path.join(tmpdir(), "agentboard-workerjudge-"));
  beforeAll(async () => {
    fake = await startFakeOpenAiServer();
  });
  afterAll(async () => {
    await fake.close();
    rmSync(tmp, { recursive: true, force: true });
  });

  it("scores against benchmark.yaml's endpoint when the env names none, and records the resolved judge without its key", async () => {
    // Regression: the worker used to ignore benchmark.yaml's baseUrl. The env carries only a key.
    const bench = path.join(tmp, "bench");
    const keep = (src: string) => !src.includes(`${path.sep}submissions${path.sep}`) || (src.includes("reference-agent") && !src.includes(`reference-agent${path.sep}report`));
    cpSync(NVIDIA_DEMO_DIR, bench, { recursive: true, filter: keep });
    const yaml = path.join(bench, "benchmark.yaml");
    writeFileSync(yaml, readFileSync(yaml, "utf8").replace('version: "1.0"', `version: "1.0"\njudge: { kind: openai, model: m, baseUrl: "${fake.baseUrl}", concurrency: 2 }`));
    fake.setResponder(() => ({ delayMs: 5, content: JSON.stringify({ score: 0.75, reasoning: "fake: mostly" }) }));

    const db = openDatabase(":memory:");
    const { versionId } = await registerBenchmark(db, bench, { isDefault: true, now: now() });
    const a = await ingestBundle(db, { versionId, bundlePath: path.join(bench, "submissions/reference-agent"), source: "local", sourceRef: "x", actor: "cli" }, now);
    const sleeps: number[] = [];
    const { baseUrl: _b, ...transport } = fastRetries("unused", sleeps);
    const deps = createScoringDeps(db, { now, env: { AGENTBOARD_JUDGE_API_KEY: "sk-test-secret" }, transport });
    try {
      await runWorker(db, deps, { untilIdle: true });
    } finally {
      await deps.close();
    }

    // Every QA and trajectory item went to the fake server, as model m, with the env's key, two at a time at most.
    expect(fake.requestCount).toBe(14 + 10);
    expect(fake.requests.every((r) => (r.json as { model?: string }).model === "m")).toBe(true);
    expect(fake.requests.every((r) => r.headers.authorization === "Bearer sk-test-secret")).toBe(true);
    expect(fake.maxInFlight).toBeLessThanOrEqual(2);
    expect(sleeps).toEqual([]);

    const detail = (await getSubmission(db, a.submissionId))!;
    expect(detail.run!.status).toBe("completed");
    expect(detail.state).toBe("scored");
    expect((await listItems(db, detail.run!.id, { outcome: "judge_error" })).total).toBe(0);
    for (const capability of ["video_qa", "tool_trajectory"]) {
      const rows = (await listItems(db, detail.run!.id, { capability })).rows;
      expect(rows.length).toBeGreaterThan(0);
      expect(rows.every((r) => r.status === "scored" && r.score === 0.75), capability).toBe(true);
    }
    const run = (await db.select().from(scoringRuns).where(eq(scoringRuns.id, detail.run!.id)).limit(1))[0]!;
    expect(run.judge).toEqual({ id: "openai:m", kind: "openai", model: "m", baseUrl: fake.baseUrl, concurrency: 2 });
    expect(JSON.stringify(run)).not.toContain("sk-test-secret");
  }, 60_000);
});
