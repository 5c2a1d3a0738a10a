/** Validation's heap bound: a full collection between files once the heap has grown, and only where a collector was enabled. */
import { getHeapStatistics } from "node:v8";
import { describe, expect, it } from "vitest";
import { boundHeap, enableCollector } from "@/lib/validate/heap-bound";

/** About 40 MiB of parsed-file-like garbage, dropped at once. */
function churn(): number {
  let junk: unknown[] | null = Array.from({ length: 200_000 }, (_, i) => ({ uuid: `id-${i}`, turns: [{ answer: "x".repeat(100) + i }] }));
  const n = junk.length;
  junk = null;
  return n;
}

describe("boundHeap", () => {
  it("collects the garbage of a file read once the heap is past the bound", () => {
    enableCollector();
    boundHeap(0);
    const settled = getHeapStatistics().used_heap_size;
    churn();
    const grown = getHeapStatistics().used_heap_size;
    expect(grown - settled).toBeGreaterThan(20 * 1024 * 1024);
    boundHeap(settled + 10 * 1024 * 1024);
    expect(getHeapStatistics().used_heap_size).toBeLessThan(settled + 10 * 1024 * 1024);
  });
});
