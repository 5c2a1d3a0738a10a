/** Validation's heap bound: a full collection between files once the heap has grown, and only where a collector was enabled. */
import { EventEmitter } from "node:events";
import { constants, PerformanceObserver } from "node:perf_hooks";
import { setImmediate as tick } from "node:timers/promises";
import { getHeapStatistics } from "node:v8";
import { describe, expect, it, vi } from "vitest";
import { loadBenchmark } from "@/lib/benchmark/load-benchmark";
import { boundHeap, createHeapGrowthBound, enableCollector, HEAP_BOUND_BYTES } from "@/lib/validate/heap-bound";
import { validateBundle } from "@/lib/validate/validate-bundle";
import { GOOD_BUNDLE, MINI_BENCHMARK } from "../../helpers/mini-fixtures";

/** Worker threads that record what they were started with, then fail at once (their files fall back to the calling thread). */
const started = vi.hoisted(() => [] as unknown[]);
vi.mock("node:worker_threads", async (original) => ({
  ...(await original<typeof import("node:worker_threads")>()),
  Worker: class extends EventEmitter {
    constructor(_entry: URL, opts: { workerData: unknown }) {
      super();
      started.push(opts.workerData);
      setImmediate(() => this.emit("error", new Error("not started in this test")));
    }
    postMessage() {}
    terminate() {
      return Promise.resolve(0);
    }
  },
}));

const MiB = 1024 * 1024;
const used = () => getHeapStatistics().used_heap_size;

/** About 40 MiB of parsed-file-like garbage, dropped at once. */
function churn(): number {
  let junk: unknown[] | null = Array.from({ length: 200_000 }, (_, i) => ({ uuid: `id-${i}`, turns: [{ answer: "x".repeat(100) + i }] }));
  const n = junk.length;
  junk = null;
  return n;
}

/**
 * How many forced (asked-for) full collections `act` caused. V8 collects on its own whenever it
 * sees fit, more so on a busy machine, so the heap's size cannot tell whether boundHeap collected;
 * a forced collection is only ever one somebody asked for. Node reports collections after a tick.
 */
async function forcedCollections(act: () => void): Promise<number> {
  const observer = new PerformanceObserver(() => {});
  observer.observe({ entryTypes: ["gc"] });
  try {
    await tick();
    observer.takeRecords();
    act();
    await tick();
    // A gc entry's detail carries its flags (Node's typings leave detail off PerformanceEntry).
    const flags = (e: PerformanceEntry) => (e as PerformanceEntry & { detail?: { flags?: number } }).detail?.flags ?? 0;
    return observer.takeRecords().filter((e) => (flags(e) & constants.NODE_PERFORMANCE_GC_FLAGS_FORCED) !== 0).length;
  } finally {
    observer.disconnect();
  }
}

describe("boundHeap", () => {
  // In this order: the first test runs before any collector is enabled in this file's module.
  it("does nothing where no collector was enabled", async () => {
    churn();
    expect(await forcedCollections(() => boundHeap(0))).toBe(0);
  });

  it("collects the garbage of a file read once the heap is past the bound, and not below it", async () => {
    enableCollector();
    boundHeap(0);
    const settled = used();
    churn();
    const grown = used();
    expect(grown - settled).toBeGreaterThan(20 * MiB);
    // Below the bound: nothing is collected.
    expect(await forcedCollections(() => boundHeap(grown + 100 * MiB))).toBe(0);
    // Past it (any heap is past 0): one full collection, which leaves about what was in use before the file.
    expect(await forcedCollections(() => boundHeap(0))).toBe(1);
    expect(used()).toBeLessThan(settled + 10 * MiB);
  });
});

describe("validation's boundHeap option", () => {
  it("reaches the worker threads too: the caller sets it once", async () => {
    const benchmark = await loadBenchmark(MINI_BENCHMARK);
    const threads = { entry: new URL("file:///unused.mjs"), count: 2, minBytes: 0 };
    for (const bound of [true, false]) {
      started.length = 0;
      const { report } = await validateBundle(GOOD_BUNDLE, benchmark, { keepPredictions: false, boundHeap: bound, threads });
      expect(report.valid).toBe(true);
      expect(started).toEqual([expect.objectContaining({ boundHeap: bound }), expect.objectContaining({ boundHeap: bound })]);
    }
  });
});

describe("createHeapGrowthBound", () => {
  it("collects what came before at once, then only when the heap has grown past what the last collection left", () => {
    enableCollector();
    churn();
    const dirty = used();
    const check = createHeapGrowthBound(30 * MiB);
    const base = used();
    expect(base).toBeLessThan(dirty - 20 * MiB);
    // Live data that grows is not garbage: kept, and the next bound is above it.
    const live = Array.from({ length: 100_000 }, (_, i) => ({ id: `live-${i}`, text: "y".repeat(100) + i }));
    check();
    expect(used()).toBeGreaterThan(base + 10 * MiB);
    const afterLive = used();
    churn();
    const grown = used();
    expect(grown).toBeGreaterThan(afterLive + 30 * MiB);
    check();
    expect(used()).toBeLessThan(afterLive + 10 * MiB);
    expect(live).toHaveLength(100_000);
  });
});

describe("validation keeping its predictions (a scoring run)", () => {
  it("collects as the heap grows past what the last collection left, not after every file once live data is past the fixed bound", async () => {
    enableCollector();
    const benchmark = await loadBenchmark(MINI_BENCHMARK);
    // A large run's ground truth and kept predictions are live, past validation's fixed bound:
    // collecting after every file would free nothing and cost a full collection each.
    const live = Array.from({ length: 600_000 }, (_, i) => ({ id: `live-${i}`, text: "y".repeat(60) + i }));
    expect(used()).toBeGreaterThan(HEAP_BOUND_BYTES);
    const observer = new PerformanceObserver(() => {});
    observer.observe({ entryTypes: ["gc"] });
    try {
      await tick();
      observer.takeRecords();
      churn();
      const { report, submission } = await validateBundle(GOOD_BUNDLE, benchmark, { boundHeap: true });
      await tick();
      expect(report.valid).toBe(true);
      expect(submission).toBeDefined();
      const flags = (e: PerformanceEntry) => (e as PerformanceEntry & { detail?: { flags?: number } }).detail?.flags ?? 0;
      // The garbage left before the files (40 MiB) is collected once; the two small files add too little for another.
      expect(observer.takeRecords().filter((e) => (flags(e) & constants.NODE_PERFORMANCE_GC_FLAGS_FORCED) !== 0)).toHaveLength(1);
    } finally {
      observer.disconnect();
    }
    expect(live).toHaveLength(600_000);
  });
});
