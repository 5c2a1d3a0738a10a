/**
 * scoreBundle's `boundHeap` (the CLI's `score` sets it): the garbage left before scoring (the
 * files read and checked) is collected before the run adds to it, and again whenever the heap
 * grows past what the last collection left (heap-bound.ts). Without it V8 let the compat run's
 * heap grow past 250 MB with some 80 MB live.
 */
import { getHeapStatistics } from "node:v8";
import { describe, expect, it } from "vitest";
import { loadBenchmark } from "@/lib/benchmark/load-benchmark";
import { scoreBundle } from "@/lib/aggregate/score-bundle";
import { createRecordedReplay } from "@/lib/replay/recorded-replay";
import { createGrader, resolveJudgeSettings } from "@/lib/judges/judge-settings";
import { enableCollector } from "@/lib/validate/heap-bound";
import { GOOD_BUNDLE, MINI_BENCHMARK } from "../../helpers/mini-fixtures";

const MiB = 1024 * 1024;
const used = () => getHeapStatistics().used_heap_size;

/** About 40 MiB of parsed-file-like garbage, dropped at once. */
function churn(): void {
  let junk: unknown[] | null = Array.from({ length: 200_000 }, (_, i) => ({ uuid: `id-${i}`, turns: [{ answer: "x".repeat(100) + i }] }));
  junk = null;
}

/** The heap in use when scoring starts (its first progress call), with 40 MiB of garbage left before it. */
async function heapAtStart(boundHeap: boolean): Promise<{ before: number; atStart: number }> {
  const benchmark = await loadBenchmark(MINI_BENCHMARK);
  const grader = createGrader(resolveJudgeSettings({ flags: { judge: "rules" }, env: {} }));
  churn();
  const before = used();
  let atStart = -1;
  const run = await scoreBundle(benchmark, GOOD_BUNDLE, { grader, replay: createRecordedReplay(), boundHeap, onProgress: (done) => void (done === 0 && atStart < 0 && (atStart = used())) });
  expect(run.kind).toBe("scored");
  return { before, atStart };
}

describe("scoreBundle's boundHeap", () => {
  it("leaves the heap alone when not asked", async () => {
    enableCollector();
    const { before, atStart } = await heapAtStart(false);
    expect(atStart).toBeGreaterThan(before - 10 * MiB);
  });

  it("collects the garbage left before scoring when asked (a collector enabled)", async () => {
    enableCollector();
    const { before, atStart } = await heapAtStart(true);
    expect(atStart).toBeLessThan(before - 25 * MiB);
  });
});
