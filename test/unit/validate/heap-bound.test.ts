/** Validation's heap bound: a full collection between files once the heap has grown, and only where a collector was enabled. */
import { getHeapStatistics } from "node:v8";
import { describe, expect, it } from "vitest";
import { boundHeap, enableCollector } from "@/lib/validate/heap-bound";

const MiB = 1024 * 1024;
const used = () => getHeapStatistics().used_heap_size;

/** About 40 MiB of parsed-file-like garbage, dropped at once. */
function churn(): number {
  let junk: unknown[] | null = Array.from({ length: 200_000 }, (_, i) => ({ uuid: `id-${i}`, turns: [{ answer: "x".repeat(100) + i }] }));
  const n = junk.length;
  junk = null;
  return n;
}

describe("boundHeap", () => {
  // In this order: the first test runs before any collector is enabled in this file's module.
  it("does nothing where no collector was enabled", () => {
    const before = used();
    churn();
    const grown = used();
    expect(grown - before).toBeGreaterThan(20 * MiB);
    boundHeap(0);
    expect(used()).toBeGreaterThan(before + 20 * MiB);
  });

  it("collects the garbage of a file read once the heap is past the bound, and not below it", () => {
    enableCollector();
    boundHeap(0);
    const settled = used();
    churn();
    const grown = used();
    expect(grown - settled).toBeGreaterThan(20 * MiB);
    // Below the bound: nothing is collected.
    boundHeap(grown + 100 * MiB);
    expect(used()).toBeGreaterThan(settled + 20 * MiB);
    boundHeap(settled + 10 * MiB);
    expect(used()).toBeLessThan(settled + 10 * MiB);
  });
});
