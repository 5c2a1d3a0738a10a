/**
 * A completed run's item summary (funnel, trajectory and evaluator means) on the entry page:
 * stored by the worker in `scoring_runs.item_summary` when the run completes, and read from there,
 * so a page of a popular board does not parse every item of the run; read from the items (as
 * before) when not stored (runs completed before), or when the stored value is not a summary.
 * On each engine.
 */
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { benchmarkVersions, scoringRuns, submissions } from "@/db/schema";
import type { BenchmarkSpec } from "@/lib/benchmark/spec";
import { getSubmission, runItemSummary } from "@/lib/queries/submission";
import type { RunItemSummary } from "@/lib/queries/types";
import { itemScoresOf, parseStoredResamples, resampleRun, versionPlan } from "@/lib/queries/resampled-entries";
import { BOOTSTRAP_ITERATIONS } from "@/lib/aggregate/aggregate";
import { ENGINES } from "../../helpers/engines";
import { scoreThroughWorker, useMiniDb } from "../../helpers/mini-db";
import { GOOD_BUNDLE, tickingClock } from "../../helpers/mini-fixtures";

const now = tickingClock();

describe.each(ENGINES)("run item summary (%s)", (engine) => {
  const mini = useMiniDb(now, engine);

  async function scored(): Promise<{ submissionId: number; runId: number; spec: BenchmarkSpec }> {
    const submissionId = await scoreThroughWorker(mini, GOOD_BUNDLE, now);
    const [row] = await mini.db
      .select({ runId: submissions.currentRunId, spec: benchmarkVersions.spec })
      .from(submissions)
      .innerJoin(benchmarkVersions, eq(benchmarkVersions.id, submissions.benchmarkVersionId))
      .where(eq(submissions.id, submissionId));
    return { submissionId, runId: row!.runId!, spec: row!.spec as unknown as BenchmarkSpec };
  }

  const shown = (d: Awaited<ReturnType<typeof getSubmission>>): RunItemSummary => ({ funnel: d!.funnel, trajectory: d!.trajectory, evaluators: d!.evaluators });

  it("is stored by the worker when the run completes, equal to the summary read from the items", async () => {
    const { runId, spec } = await scored();
    const [run] = await mini.db.select({ itemSummary: scoringRuns.itemSummary }).from(scoringRuns).where(eq(scoringRuns.id, runId));
    expect(run!.itemSummary?.funnel?.total).toBeGreaterThan(0);
    expect(run!.itemSummary).toEqual(await runItemSummary(mini.db, runId, spec));
  });

  it("shows the same summary stored as read from the items", async () => {
    const { submissionId, runId, spec } = await scored();
    const fromItems = shown(await getSubmission(mini.db, submissionId));
    expect(fromItems.funnel?.total).toBeGreaterThan(0);
    const summary = await runItemSummary(mini.db, runId, spec);
    expect(summary).toEqual(fromItems);
    await mini.db.update(scoringRuns).set({ itemSummary: summary }).where(eq(scoringRuns.id, runId));
    expect(shown(await getSubmission(mini.db, submissionId))).toEqual(fromItems);
  });

  it("reads the stored summary instead of the items, and the items when the stored value is no summary", async () => {
    const { submissionId, runId, spec } = await scored();
    const summary = await runItemSummary(mini.db, runId, spec);
    // A stored summary that differs from the items shows, so the page did not read them.
    const marked = { ...summary, funnel: { ...summary.funnel!, total: summary.funnel!.total + 1000 } };
    await mini.db.update(scoringRuns).set({ itemSummary: marked }).where(eq(scoringRuns.id, runId));
    expect((await getSubmission(mini.db, submissionId))!.funnel!.total).toBe(summary.funnel!.total + 1000);
    await mini.db
      .update(scoringRuns)
      .set({ itemSummary: { trajectory: 5 } as unknown as RunItemSummary })
      .where(eq(scoringRuns.id, runId));
    expect(shown(await getSubmission(mini.db, submissionId))).toEqual(summary);
  });

  it("stores the run's overall resampled on the plan the board builds from its items", async () => {
    const { runId, spec } = await scored();
    const [run] = await mini.db.select({ raw: scoringRuns.overallResamples }).from(scoringRuns).where(eq(scoringRuns.id, runId));
    const stored = parseStoredResamples(run!.raw, BOOTSTRAP_ITERATIONS);
    expect(stored, String(run!.raw).slice(0, 80)).not.toBeNull();
    const items = (await itemScoresOf(mini.db, [runId])).get(runId)!;
    const capabilityIds = spec.capabilities.map((c) => c.id);
    const vp = versionPlan(capabilityIds, [items]);
    const fromItems = resampleRun(vp, items, new Set(capabilityIds)).overall;
    expect(stored!.key).toBe(vp.key);
    expect(stored!.sample.score).toBe(fromItems.score);
    expect(Array.from(stored!.sample.resampled)).toEqual(Array.from(fromItems.resampled));
    expect(new Set(fromItems.resampled).size).toBeGreaterThan(1);
  });
});
