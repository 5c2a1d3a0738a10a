/**
 * Scoring on worker threads gives the results scoring on one thread gives, whichever thread
 * scores which shard, and falls back to the calling thread when a worker cannot start.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadBenchmark, type Benchmark } from "../../../lib/benchmark/load-benchmark";
import { createNoReplay, createRecordedReplay } from "../../../lib/replay/recorded-replay";
import { createGrader } from "../../../lib/judges/judge-settings";
import { scoreBundle } from "../../../lib/aggregate/score-bundle";
import type { ScoreResults } from "../../../lib/aggregate/score-results";
import { startScoreThreads, type ScoreThreadOptions } from "../../../lib/scoring/score-threads";
import { writeAgentBundle, writeSyntheticBenchmark } from "../../../scripts/synthetic/generate";
import { tsWorker } from "../../helpers/ts-worker";

const tmp = mkdtempSync(path.join(tmpdir(), "agentboard-score-threads-"));
const root = path.join(tmp, "benchmark");
const bundle = path.join(tmp, "bundle");
const trials = path.join(tmp, "trials");
const judge = { kind: "rules" as const, concurrency: 16 };
let benchmark: Benchmark;

beforeAll(async () => {
  const bench = await writeSyntheticBenchmark(root, { seed: 9, domains: 5, perCapability: [30, 20, 20, 25] });
  await writeAgentBundle(bench, bundle, { name: "threads", accuracy: 0.6, errorRate: 0.05, missRate: 0.1, breaksPolicy: true }, 4);
  // A bundle of two trials over every item (no misses, so both cover the same items).
  for (const [t, accuracy] of [[1, 0.6], [2, 0.7]] as const) await writeAgentBundle(bench, path.join(trials, `trial_${t}`), { name: "trials", accuracy, errorRate: 0.05 }, 10 + t);
  benchmark = await loadBenchmark(root);
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** What a run's results say, without its clock (when it ran, how long each judge call took). */
function comparable(r: ScoreResults): string {
  return JSON.stringify({ ...r, createdAt: null }).replace(/"latencyMs":\d+/g, '"latencyMs":0');
}

async function score(replayMode: "recorded" | "none", threads?: Awaited<ReturnType<typeof startScoreThreads>>, at = bundle): Promise<ScoreResults> {
  const run = await scoreBundle(benchmark, at, { grader: createGrader(judge), replay: replayMode === "recorded" ? createRecordedReplay() : createNoReplay(), ...(threads ? { threads } : {}) });
  if (run.kind !== "scored") throw new Error("the bundle should score");
  return run.results;
}

const options = (more: Partial<ScoreThreadOptions> = {}): ScoreThreadOptions => ({ entry: tsWorker("lib/scoring/score-worker.ts"), count: 1, benchmark: root, bundle, judge, replay: "recorded", ...more });

describe("scoring on worker threads", () => {
  it("scores every shard a worker took exactly as this thread does", async () => {
    for (const replay of ["recorded", "none"] as const) {
      const alone = await score(replay);
      expect(alone.items.length).toBe(95);
      expect(new Set(alone.items.map((i) => i.stage)).size).toBeGreaterThan(2);
      const threads = await startScoreThreads(options({ replay }));
      try {
        // Left alone, the worker takes every shard: all results come from it.
        await threads.drained();
        expect(threads.take("api_chaining", "airline")).toBeInstanceOf(Promise);
        expect(comparable(await score(replay, threads))).toBe(comparable(alone));
      } finally {
        await threads.close();
      }
    }
  });

  it("gives the same results when the threads share the shards", async () => {
    const alone = await score("recorded");
    const threads = await startScoreThreads(options({ count: 2 }));
    try {
      expect(comparable(await score("recorded", threads))).toBe(comparable(alone));
    } finally {
      await threads.close();
    }
  });

  it("scores on this thread what a worker that cannot start would have", async () => {
    const broken = path.join(tmp, "broken-worker.mjs");
    writeFileSync(broken, 'throw new Error("this worker fails at start");\n');
    const alone = await score("recorded");
    const threads = await startScoreThreads(options({ entry: pathToFileURL(broken), count: 2 }));
    try {
      await threads.drained();
      expect(comparable(await score("recorded", threads))).toBe(comparable(alone));
    } finally {
      await threads.close();
    }
  });

  it("scores a bundle of trials the same on threads: the workers take trial 1's shards, this thread the other trials", async () => {
    const alone = await score("recorded", undefined, trials);
    expect(alone.trials).toBe(2);
    expect(alone.items.filter((i) => i.trial === 2)).toHaveLength(alone.items.length / 2);
    const threads = await startScoreThreads(options({ bundle: trials, count: 2 }));
    try {
      await threads.drained();
      expect(comparable(await score("recorded", threads, trials))).toBe(comparable(alone));
    } finally {
      await threads.close();
    }
    // Trial 1's items are trial 1's predictions: the same as scoring that folder alone.
    const first = await score("recorded", undefined, path.join(trials, "trial_1"));
    const strip = (items: ScoreResults["items"]) => JSON.stringify(items.map((i) => ({ ...i, trial: 0 }))).replace(/"latencyMs":\d+/g, '"latencyMs":0');
    expect(strip(alone.items.filter((i) => i.trial === 1))).toBe(strip(first.items));
  });
});
