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

/** After a file: collect if the heap has grown past the bound (and a collector is enabled). */
export function boundHeap(bound = HEAP_BOUND_BYTES): void {
  if (collect && getHeapStatistics().used_heap_size > bound) collect();
}
