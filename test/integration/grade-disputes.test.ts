/**
 * A judge panel through the orchestrator on each engine: runs store their disputed grades and
 * the panel's agreement; a maintainer's decision is stored once per grade key, audited, and
 * re-aggregates every run that asked that grade from its stored items; a submission scored
 * afterwards with the same grade request takes the decision instead of the judges. The panel's
 * judges are OpenAI graders against a fake OpenAI-compatible server on 127.0.0.1: judge `a`
 * passes everything, judge `b` fails the answer naming the wrong ship.
 */
import { cpSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditLog, capabilityScores, gradeDisputeRuns, itemResults, scoringRuns, submissions } from "@/db/schema";
import { listDisputes } from "@/lib/queries/disputes";
import { getItem, getSubmission } from "@/lib/queries/submission";
import { registerBenchmark } from "@/lib/submissions/benchmarks";
import { decideDispute } from "@/lib/submissions/grade-disputes";
import { ingestBundle } from "@/lib/submissions/ingest";
import { createScoringDeps } from "@/lib/submissions/scoring-deps";
import { TransitionError } from "@/lib/submissions/transitions";
import { runWorker } from "@/lib/submissions/worker";
import type { WaterfallItemResult } from "@/lib/scoring/item-result";
import { ENGINES } from "../helpers/engines";
import { startFakeOpenAiServer, systemPrompt, type FakeOpenAiServer } from "../helpers/fake-openai-server";
import { MINI_BENCHMARK, renamedGoodBundle, tickingClock } from "../helpers/mini-fixtures";
import { useMiniDb } from "../helpers/mini-db";

let server: FakeOpenAiServer;
beforeAll(async () => {
  server = await startFakeOpenAiServer((req) => {
    const model = (req.json as { model?: string }).model;
    if (/grounded/i.test(systemPrompt(req))) return { content: JSON.stringify({ verdict: "grounded", reason: `${model}: supported` }) };
    const wrongShip = model === "b" && req.rawBody.includes("Ocean Queen");
    return { content: JSON.stringify({ verdict: wrongShip ? "incorrect" : "correct", reason: `${model}: compared with the reference` }) };
  });
});
afterAll(() => server.close());

describe.each(ENGINES)("judge panel disputes and decisions (%s)", (engine) => {
  const now = tickingClock();
  const mini = useMiniDb(now, engine);
  const who = () => ({ actor: "maintainer (admin page)", at: now() });

  /** The mini benchmark judged by a panel of judges a and b (primary: a's grade stands). */
  async function panelBenchmark(): Promise<number> {
    const dir = mini.scratch("panel-benchmark");
    cpSync(MINI_BENCHMARK, dir, { recursive: true });
    const yaml = readFileSync(path.join(dir, "benchmark.yaml"), "utf8").replace("slug: mini", "slug: panel-mini");
    writeFileSync(path.join(dir, "benchmark.yaml"), `${yaml}judge:\n  panel:\n    rule: primary\n    judges:\n      - { kind: openai, model: a, baseUrl: "${server.baseUrl}" }\n      - { kind: openai, model: b, baseUrl: "${server.baseUrl}" }\n`);
    return (await registerBenchmark(mini.db, dir, { now: now() })).versionId;
  }

  async function submit(versionId: number, agent: string): Promise<number> {
    const bundle = renamedGoodBundle(mini.scratch(agent), agent);
    const { submissionId } = await ingestBundle(mini.db, { versionId, bundlePath: bundle, source: "local", sourceRef: bundle, actor: "cli" }, now);
    return submissionId;
  }

  async function scoreAll() {
    const deps = createScoringDeps(mini.db, { now });
    try {
      await runWorker(mini.db, deps, { untilIdle: true });
    } finally {
      await deps.close();
    }
  }

  const runOf = async (id: number) => (await mini.db.select().from(submissions).where(eq(submissions.id, id)))[0]!.currentRunId!;
  const overallOf = async (runId: number) => (await mini.db.select({ o: scoringRuns.overallScore }).from(scoringRuns).where(eq(scoringRuns.id, runId)))[0]!.o!;
  const itemOf = async (runId: number, uuid: string) => (await mini.db.select().from(itemResults).where(and(eq(itemResults.runId, runId), eq(itemResults.uuid, uuid))))[0]!;
  const capScore = async (runId: number, capability: string) =>
    (await mini.db.select().from(capabilityScores).where(and(eq(capabilityScores.runId, runId), eq(capabilityScores.capability, capability))))[0]!;

  it("stores the disputes, re-aggregates every run that asked a decided grade, and reuses the decision for the same request", async () => {
    const versionId = await panelBenchmark();
    const first = await submit(versionId, "first-agent");
    const second = await submit(versionId, "second-agent");
    await scoreAll();
    const [runA, runB] = [await runOf(first), await runOf(second)];

    // Judge b disagrees on the wrong ship: one disputed grade, asked by both runs.
    const open = await listDisputes(mini.db, "open");
    expect(open).toHaveLength(1);
    const dispute = open[0]!;
    expect(dispute).toMatchObject({ kind: "correctness", passFail: true, capability: "tool_selection", rule: "primary", decision: null });
    expect(dispute.request.answer).toBe("The largest is Ocean Queen.");
    expect(dispute.request.reference).toBeTruthy();
    expect(dispute.members.map((m) => [m.judge, m.outcome])).toEqual([
      ["openai:a", "pass"],
      ["openai:b", "fail"],
    ]);
    expect(dispute.entries.map((e) => e.submissionId)).toEqual([first, second]);

    // The primary judge's pass stands until a maintainer decides; the panel's agreement is stored with the run.
    const before = await itemOf(runA, "ts-2");
    expect(before.score).toBe(1);
    expect((before.result as WaterfallItemResult).panel?.find((p) => p.key === dispute.key)).toMatchObject({ disputed: true, decided: null });
    const detail = await getSubmission(mini.db, first);
    const agreement = detail!.manifest!.panel!.agreement.tool_selection!;
    expect(agreement.compared - agreement.agreed).toBe(1);
    expect(detail!.manifest!.panel).toMatchObject({ disputed: 1, decided: 0 });
    const overallBefore = await overallOf(runA);
    const capBefore = await capScore(runA, "tool_selection");
    const weights = await mini.db.select({ w: itemResults.weight }).from(itemResults).where(and(eq(itemResults.runId, runA), eq(itemResults.capability, "tool_selection")));
    const totalWeight = weights.reduce((s, r) => s + r.w, 0);

    // A pass/fail grade is decided pass or fail, not by a score.
    await expect(decideDispute(mini.db, { key: dispute.key, outcome: "scored", score: 0.5 }, who())).rejects.toBeInstanceOf(TransitionError);
    const moved = await decideDispute(mini.db, { key: dispute.key, outcome: "fail", reason: "Sea Dragon is the largest" }, who());
    expect(moved.map((m) => m.runId).sort()).toEqual([runA, runB].sort());
    // Once per key: a second decision is refused.
    await expect(decideDispute(mini.db, { key: dispute.key, outcome: "pass" }, who())).rejects.toThrow("already decided");

    for (const runId of [runA, runB]) {
      const item = await itemOf(runId, "ts-2");
      expect(item).toMatchObject({ score: 0, status: "scored", stage: "correctness", bucket: "correctness_failed" });
      const cap = await capScore(runId, "tool_selection");
      expect(cap.score).toBeCloseTo(capBefore.score - (100 * before.weight) / totalWeight, 9);
      expect(await overallOf(runId)).toBeLessThan(overallBefore);
    }
    expect(await overallOf(runA)).toBe(await overallOf(runB));

    // The public item page says who decided, and quotes no reference.
    const view = await getItem(mini.db, runA, "tool_selection", "ts-2", { showGroundTruth: false });
    expect(view!.reason).toBe("failed: decided by a maintainer");
    expect(view!.panel).toEqual(expect.arrayContaining([expect.objectContaining({ kind: "correctness", decided: true, outcome: "fail", disputed: true })]));
    expect(JSON.stringify(view)).not.toContain("Sea Dragon");
    expect((await getSubmission(mini.db, first))!.manifest!.panel).toMatchObject({ decided: 1 });

    // Audited: the decision, and each entry whose run moved (its public timeline says so without the reference).
    const audit = await mini.db.select().from(auditLog).where(eq(auditLog.action, "dispute:decided"));
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({ actor: "maintainer (admin page)", details: expect.objectContaining({ key: dispute.key, outcome: "fail", score: 0 }) });
    const moves = await mini.db.select().from(auditLog).where(eq(auditLog.action, "run:reaggregated"));
    expect(moves.map((m) => m.submissionId).sort()).toEqual([first, second].sort());
    expect(JSON.stringify(moves)).not.toContain("Sea Dragon");
    expect(await listDisputes(mini.db, "open")).toEqual([]);
    expect((await listDisputes(mini.db, "decided"))[0]!.decision).toMatchObject({ outcome: "fail", score: 0, reason: "Sea Dragon is the largest" });

    // A later submission with the same grade request takes the decision: no new dispute, the same scores.
    const third = await submit(versionId, "third-agent");
    await scoreAll();
    const runC = await runOf(third);
    const item = await itemOf(runC, "ts-2");
    expect(item.score).toBe(0);
    expect(item.result.reason).toBe("failed: decided by a maintainer");
    expect((item.result as WaterfallItemResult).panel?.find((p) => p.key === dispute.key)).toMatchObject({ decided: { outcome: "fail", score: 0 }, disputed: false, members: [] });
    expect(await overallOf(runC)).toBe(await overallOf(runA));
    expect(await mini.db.select().from(gradeDisputeRuns).where(eq(gradeDisputeRuns.runId, runC))).toEqual([]);
  });
});
