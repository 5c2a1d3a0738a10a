/**
 * Is entry A better than entry B on the same items? A paired bootstrap resamples items (the
 * same indices for both entries) and reads the 95% interval of the difference in weighted
 * means: when it excludes 0, the difference is significant.
 */
import { createRng } from "./rng";

export interface PairedItem {
  weight: number;
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

export function pairedBootstrap(items: readonly PairedItem[], opts: { seed?: number; iterations?: number } = {}): PairedDifference {
  const n = items.length;
  const mean = (pick: (i: number) => number) => {
    let sw = 0;
    let tw = 0;
    for (let k = 0; k < n; k++) {
      const i = pick(k);
      sw += items[i]!.weight * (items[i]!.a - items[i]!.b);
      tw += items[i]!.weight;
    }
    return tw > 0 ? (100 * sw) / tw : 0;
  };
  const diff = mean((k) => k);
  if (n === 0) return { diff: 0, ciLow: 0, ciHigh: 0, significant: false, nItems: 0 };
  const iterations = opts.iterations ?? 2000;
  const rng = createRng(opts.seed ?? 20_261_122);
  const samples = new Float64Array(iterations);
  for (let b = 0; b < iterations; b++) samples[b] = mean(() => (rng() * n) | 0);
  samples.sort();
  const ciLow = samples[Math.floor(0.025 * (iterations - 1))]!;
  const ciHigh = samples[Math.ceil(0.975 * (iterations - 1))]!;
  return { diff, ciLow, ciHigh, significant: ciLow > 0 || ciHigh < 0, nItems: n };
}
