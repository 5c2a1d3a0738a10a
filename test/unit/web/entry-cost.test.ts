/**
 * Cost and latency from bundle to page, on a real (in-memory) database: the scoring job stores
 * the run's summary, the board reads its four numbers, the entry page the whole summary; a
 * stored value that is not what we wrote reads as unknown.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { openDatabase } from "@/db/client";
import { entryCost, getRunCost, readRunCost } from "@/lib/queries/entry-cost";
import { getLeaderboard } from "@/lib/queries/leaderboard";
import { getSubmission } from "@/lib/queries/submission";
import { registerBenchmark } from "@/lib/submissions/benchmarks";
import { ingestBundle } from "@/lib/submissions/ingest";
import { approve } from "@/lib/submissions/review";
import { createScoringDeps } from "@/lib/submissions/scoring-deps";
import { runWorker } from "@/lib/submissions/worker";
import { GOOD_BUNDLE, MINI_BENCHMARK, tickingClock } from "../../helpers/mini-fixtures";

const tmp = mkdtempSync(path.join(tmpdir(), "agentboard-entry-cost-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe("an entry's cost on the board and its page", () => {
  it("is read from the scored run: latency from duration_s, tokens and dollars from the metadata's usage", async () => {
    const now = tickingClock();
    const db = openDatabase(":memory:");
    const { versionId } = await registerBenchmark(db, MINI_BENCHMARK, { isDefault: true, now: now() });
    const bundle = path.join(tmp, "bundle");
    cpSync(GOOD_BUNDLE, bundle, { recursive: true });
    const meta = path.join(bundle, "output/metadata.json");
    writeFileSync(meta, JSON.stringify({ ...JSON.parse(readFileSync(meta, "utf8")), usage: { prompt_tokens: 9000, completion_tokens: 1000, cost_usd: 0.125 } }));
    const { submissionId } = await ingestBundle(db, { versionId, bundlePath: bundle, source: "local", sourceRef: bundle, actor: "cli" }, now);
    const deps = createScoringDeps(db, { now });
    try {
      await runWorker(db, deps, { untilIdle: true });
    } finally {
      await deps.close();
    }
    approve(db, submissionId, { actor: "maintainer:ada", at: now() });

    const entry = getLeaderboard(db)!.entries.find((e) => e.id === submissionId)!;
    expect(entry.cost).toMatchObject({ totalTokens: 10_000, costUsd: 0.125 });
    expect(entry.cost.latencyMedianS).toBeGreaterThan(0);
    expect(entry.cost.latencyP95S).toBeGreaterThanOrEqual(entry.cost.latencyMedianS!);

    const run = getRunCost(db, getSubmission(db, submissionId)!.run!.id)!;
    expect(run.usage).toEqual({ source: "metadata", records: 0, inputTokens: 9000, outputTokens: 1000, totalTokens: 10_000, costUsd: 0.125 });
    expect(run.latency?.n).toBe(run.items);
    expect(getRunCost(db, 999_999)).toBeNull();
    db.$client.close();
  }, 60_000);
});

describe("readRunCost", () => {
  it("keeps only the numbers it finds where it expects them", () => {
    expect(readRunCost(null)).toBeNull();
    expect(readRunCost("cheap")).toBeNull();
    expect(readRunCost({ items: "many", latency: { n: 2, medianS: "fast", p95S: 3 }, usage: { source: "guess", costUsd: 1 } })).toEqual({ items: 0, latency: null, usage: null });
    expect(readRunCost({ items: 3, latency: { n: 3, medianS: 1, p95S: 2 }, usage: { source: "records", records: 3, inputTokens: -1, outputTokens: null, totalTokens: Infinity, costUsd: 0.5 } })).toEqual({
      items: 3,
      latency: { n: 3, medianS: 1, p95S: 2, meanS: 1 },
      usage: { source: "records", records: 3, inputTokens: null, outputTokens: null, totalTokens: null, costUsd: 0.5 },
    });
  });

  it("gives the board its four numbers, rounded, and nulls for a run without a summary", () => {
    expect(entryCost(null)).toEqual({ latencyMedianS: null, latencyP95S: null, totalTokens: null, costUsd: null });
    expect(entryCost({ items: 2, latency: { n: 2, medianS: 1.23456, p95S: 9.87654, meanS: 2 }, usage: { source: "records", records: 2, inputTokens: 1, outputTokens: 2, totalTokens: 3, costUsd: 0.12345678 } })).toEqual({
      latencyMedianS: 1.23,
      latencyP95S: 9.88,
      totalTokens: 3,
      costUsd: 0.123457,
    });
  });
});
