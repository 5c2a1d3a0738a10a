/**
 * Keeping validation's memory to its largest file: between files, a full garbage collection
 * when the heap has grown past a bound. Validation keeps only ids, so nearly all of a grown heap
 * is parsed files already checked, which V8 would otherwise collect only when it sees fit (it
 * let peak memory wander between 170 and 230 MiB on the same 51,870-dialogue bundle). The
 * collector exists only where the caller asked for one (`enableCollector`, the built CLI):
 * elsewhere this does nothing.
 */
import { getHeapStatistics, setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

/** Collect when more than this much heap is in use after a file: a few largest files' worth. */
export const HEAP_BOUND_BYTES = 64 * 1024 * 1024;

let collect: (() => void) | null = null;

/** Makes a full collection available to this thread (V8 hands `gc` to contexts made after the flag is set). */
export function enableCollector(): void {
  if (collect) return;
  try {
    setFlagsFromString("--expose-gc");
    collect = runInNewContext("gc") as () => void;
  } catch {
    collect = null;
  }
}

/** A full collection now, where a collector is enabled (between a run's phases, so their garbage and the next phase's data do not peak together). */
export function collectGarbage(): void {
  collect?.();
}

/** After a file: collect if the heap has grown past the bound (and a collector is enabled). */
export function boundHeap(bound = HEAP_BOUND_BYTES): void {
  if (collect && getHeapStatistics().used_heap_size > bound) collect();
}

/**
 * Collect when the heap has grown this much past what the last collection left. 16 MB held the
 * compat run's peak to 140-145 MB for 0.5-1 s more CPU than 32 MB (docs/performance.md).
 */
export const HEAP_GROWTH_BYTES = 16 * 1024 * 1024;

/**
 * A bound that follows what is live, for a run whose live data is large and grows (scoring
 * keeps the ground truth, the predictions and every item's result): collect once the heap has
 * grown `growth` past what the last collection left. Items in flight outlive the young
 * generation's collections, so their garbage piles up in the old one, which V8 left to grow
 * past 250 MB on the 5,187-dialogue compat run while some 80 MB was live. Does nothing where
 * no collector was enabled.
 */
export function createHeapGrowthBound(growth = HEAP_GROWTH_BYTES): () => void {
  let base = 0;
  const check = () => {
    if (!collect || getHeapStatistics().used_heap_size <= base + growth) return;
    collect();
    base = getHeapStatistics().used_heap_size;
  };
  // What came before (the files read, parsed and checked) is collected before the run adds to it.
  check();
  return check;
}
