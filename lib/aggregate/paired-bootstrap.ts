/**
 * Is entry A better than entry B on the same items? A paired bootstrap resamples items (the
 * same indices for both entries) and reads the 95% interval of the difference: when it
 * excludes 0, the difference is significant.
 *
 * Stratified as the board's own intervals are (aggregate.ts): items are resampled within each
 * capability, every capability's weighted mean is recomputed for both entries on the same
 * resample, and the overall difference of a resample is the plain mean of the capability
 * differences, so the overall interval is consistent with the capability ones. Same seed,
 * same number of resamples, same percentile interval as the board.
 */
import { BOOTSTRAP_ITERATIONS, BOOTSTRAP_SEED, percentileInterval } from "./aggregate";
import { createRng } from "./rng";

export interface PairedItem {
  weight: number;
  /** 0..1: A's score on this item (0 when A has no prediction or did not submit the capability). */
  a: number;
  b: number;
}

export interface PairedDifference {
  /** Points (0-100): A minus B. */
  diff: number;
  ciLow: number;
  ciHigh: number;
  significant: boolean;
  nItems: number;
}

/** One capability's paired items. */
export interface PairedStratum {
  id: string;
  items: readonly PairedItem[];
}

export interface StratifiedPairedDifference {
  /** The plain mean over capabilities of A's minus B's capability score. */
  overall: PairedDifference;
  strata: Record<string, PairedDifference>;
}

export interface PairedBootstrapOptions {
  seed?: number;
  iterations?: number;
}

/** An item set as columns: weight, weight × A's score, weight × B's score (typed arrays: the bootstrap's inner loop). */
interface Columns {
  w: Float64Array;
  wa: Float64Array;
  wb: Float64Array;
}

function columns(items: readonly PairedItem[]): Columns {
  return { w: Float64Array.from(items, (i) => i.weight), wa: Float64Array.from(items, (i) => i.weight * i.a), wb: Float64Array.from(items, (i) => i.weight * i.b) };
}

/** Weighted mean of A minus weighted mean of B (0..1) over the items `pick` chooses, one per item. */
function meanDifference({ w, wa, wb }: Columns, pick: (k: number) => number): number {
  let sa = 0;
  let sb = 0;
  let tw = 0;
  for (let k = 0; k < w.length; k++) {
    const i = pick(k);
    sa += wa[i]!;
    sb += wb[i]!;
    tw += w[i]!;
  }
  return tw > 0 ? (sa - sb) / tw : 0;
}

function summarize(diff: number, resampled: Float64Array, nItems: number): PairedDifference {
  const [lo, hi] = percentileInterval(resampled);
  return { diff: 100 * diff, ciLow: 100 * lo, ciHigh: 100 * hi, significant: lo > 0 || hi < 0, nItems };
}

export function stratifiedPairedBootstrap(strata: readonly PairedStratum[], opts: PairedBootstrapOptions = {}): StratifiedPairedDifference {
  const iterations = opts.iterations ?? BOOTSTRAP_ITERATIONS;
  const rng = createRng(opts.seed ?? BOOTSTRAP_SEED);
  const overall = new Float64Array(iterations);
  const result: StratifiedPairedDifference["strata"] = {};
  let overallDiff = 0;
  for (const { id, items } of strata) {
    const n = items.length;
    const cols = columns(items);
    const diff = meanDifference(cols, (k) => k);
    const resampled = new Float64Array(iterations);
    for (let b = 0; b < iterations; b++) {
      const d = n > 0 ? meanDifference(cols, () => (rng() * n) | 0) : 0;
      resampled[b] = d;
      overall[b] = overall[b]! + d;
    }
    overallDiff += diff;
    result[id] = summarize(diff, resampled, n);
  }
  const k = strata.length;
  if (k > 0) for (let b = 0; b < iterations; b++) overall[b] = overall[b]! / k;
  const nItems = strata.reduce((n, s) => n + s.items.length, 0);
  return { overall: summarize(k > 0 ? overallDiff / k : 0, overall, nItems), strata: result };
}

/** One set of items, unstratified. */
export function pairedBootstrap(items: readonly PairedItem[], opts: PairedBootstrapOptions = {}): PairedDifference {
  return stratifiedPairedBootstrap([{ id: "items", items }], opts).overall;
}
