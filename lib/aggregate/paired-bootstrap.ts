/**
 * Is entry A better than entry B on the same items? A paired bootstrap resamples items (the
 * same indices for both entries) and reads the 95% interval of the difference: when it
 * excludes 0 on the side of the difference, A is significantly better (or worse). This one
 * test decides both the compare page's verdict and the board's ranks (rank.ts).
 *
 * Stratified as the board's own intervals are (aggregate.ts): items are resampled within each
 * capability, every capability's weighted mean is recomputed on the resample, and the overall
 * of a resample is the plain mean of the capability means. Same seed, same number of
 * resamples, same draws and same percentile interval as the board.
 *
 * The draws depend only on the items (how many per capability), never on the entries' scores,
 * so one plan resamples every entry of a benchmark version alike: an entry's resampled scores
 * are computed once, and the paired difference of any two entries is the difference of their
 * resampled scores, resample by resample. That is what lets the board test every pair it needs.
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
  /** The interval excludes 0 on the side of the difference. */
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

/** One capability of a plan: its items' weights and how often each resample draws each item. */
interface PlanStratum {
  id: string;
  weights: Float64Array;
  /** Item-major: item i is drawn counts[i·iterations + b] times in resample b. */
  counts: Uint16Array | Uint32Array;
  /** Per resample: the drawn items' total weight (the same for every entry). */
  totalWeight: Float64Array;
}

/** Which items each resample draws, per capability: one plan for every entry of a benchmark version. */
export interface ResamplePlan {
  iterations: number;
  strata: PlanStratum[];
}

/**
 * The draws of the board's bootstrap for capabilities of these item weights (in this order):
 * capability by capability, resample by resample, n draws of n items; a capability without
 * items draws nothing, as aggregate.ts.
 */
export function resamplePlan(strata: readonly { id: string; weights: readonly number[] }[], opts: PairedBootstrapOptions = {}): ResamplePlan {
  const iterations = opts.iterations ?? BOOTSTRAP_ITERATIONS;
  const rng = createRng(opts.seed ?? BOOTSTRAP_SEED);
  return {
    iterations,
    strata: strata.map(({ id, weights }) => {
      const n = weights.length;
      const w = Float64Array.from(weights);
      // An item is drawn at most n times in a resample.
      const counts = n < 0xffff ? new Uint16Array(n * iterations) : new Uint32Array(n * iterations);
      for (let b = 0; b < iterations; b++) for (let k = 0; k < n; k++) counts[((rng() * n) | 0) * iterations + b]! += 1;
      return { id, weights: w, counts, totalWeight: weightedSums(w, counts, iterations, w) };
    }),
  };
}

/** Per resample b: Σᵢ counts[i, b] · values[i] over items with a value (item order, so equal inputs give equal sums). */
function weightedSums(weights: Float64Array, counts: Uint16Array | Uint32Array, iterations: number, values: Float64Array): Float64Array {
  const out = new Float64Array(iterations);
  for (let i = 0; i < weights.length; i++) {
    const v = values[i]!;
    if (v === 0) continue;
    const row = i * iterations;
    for (let b = 0; b < iterations; b++) out[b]! += counts[row + b]! * v;
  }
  return out;
}

/** An entry's scores (0..1) on a plan: the full sample's, and each resample's. */
export interface ResampledScore {
  score: number;
  /** One value per resample. */
  resampled: Float32Array | Float64Array;
}

export interface ResampledEntry {
  /** The plain mean of the capability scores; its resamples in single precision (the board keeps one per entry). */
  overall: ResampledScore & { resampled: Float32Array };
  /** Per capability, in the plan's order: present when asked for (the compare page). */
  strata?: (ResampledScore & { resampled: Float64Array })[];
}

/**
 * One entry resampled on the plan: `scores[s][i]` is its score (0..1) on item i of capability s
 * (0 for an item it has no score on). Cost: iterations × the items it scored above 0.
 */
export function resampleEntry(plan: ResamplePlan, scores: readonly (readonly number[])[], opts: { strata?: boolean } = {}): ResampledEntry {
  const { iterations } = plan;
  const overall = new Float64Array(iterations);
  const strata: (ResampledScore & { resampled: Float64Array })[] = [];
  let score = 0;
  plan.strata.forEach((s, k) => {
    const n = s.weights.length;
    const ws = new Float64Array(n);
    const given = scores[k] ?? [];
    let sw = 0;
    let tw = 0;
    for (let i = 0; i < n; i++) {
      ws[i] = s.weights[i]! * (given[i] ?? 0);
      sw += ws[i]!;
      tw += s.weights[i]!;
    }
    const sums = weightedSums(s.weights, s.counts, iterations, ws);
    for (let b = 0; b < iterations; b++) {
      const t = s.totalWeight[b]!;
      sums[b] = t > 0 ? sums[b]! / t : 0;
      overall[b]! += sums[b]!;
    }
    const capScore = tw > 0 ? sw / tw : 0;
    score += capScore;
    if (opts.strata) strata.push({ score: capScore, resampled: sums });
  });
  const k = plan.strata.length;
  const mean = new Float32Array(iterations);
  if (k > 0) for (let b = 0; b < iterations; b++) mean[b] = overall[b]! / k;
  return { overall: { score: k > 0 ? score / k : 0, resampled: mean }, ...(opts.strata ? { strata } : {}) };
}

/** Resamples, at most, on the wrong side of 0 for a significant difference: the percentile interval's tail (24 of 1,000). */
export function tailCount(iterations: number): number {
  return Math.floor(0.025 * (iterations - 1));
}

/** A minus B in points, with the percentile interval of the resampled differences. */
export function pairedDifference(a: ResampledScore, b: ResampledScore, nItems: number): PairedDifference {
  const n = a.resampled.length;
  const d = new Float64Array(n);
  for (let i = 0; i < n; i++) d[i] = a.resampled[i]! - b.resampled[i]!;
  const diff = a.score - b.score;
  const [lo, hi] = percentileInterval(d);
  return { diff: 100 * diff, ciLow: 100 * lo, ciHigh: 100 * hi, significant: (diff > 0 && lo > 0) || (diff < 0 && hi < 0), nItems };
}

/**
 * Whether A is significantly better than B: exactly `pairedDifference(a, b)` being significant
 * with A ahead, counted instead of sorted (the interval's lower end is above 0 when at most
 * `tailCount` resamples have A at or below B), and stopping as soon as the answer is no.
 */
export function significantlyBetter(a: ResampledScore, b: ResampledScore): boolean {
  if (!(a.score > b.score)) return false;
  const ra = a.resampled;
  const rb = b.resampled;
  let left = tailCount(ra.length);
  for (let i = 0; i < ra.length; i++) if (ra[i]! <= rb[i]! && --left < 0) return false;
  return true;
}

/** The paired bootstrap of two entries' items, per capability and overall (the plan built from the items' weights). */
export function stratifiedPairedBootstrap(strata: readonly PairedStratum[], opts: PairedBootstrapOptions = {}): StratifiedPairedDifference {
  const plan = resamplePlan(strata.map((s) => ({ id: s.id, weights: s.items.map((i) => i.weight) })), opts);
  const a = resampleEntry(plan, strata.map((s) => s.items.map((i) => i.a)), { strata: true });
  const b = resampleEntry(plan, strata.map((s) => s.items.map((i) => i.b)), { strata: true });
  return {
    overall: pairedDifference(a.overall, b.overall, strata.reduce((n, s) => n + s.items.length, 0)),
    strata: Object.fromEntries(strata.map((s, k) => [s.id, pairedDifference(a.strata![k]!, b.strata![k]!, s.items.length)])),
  };
}

/** One set of items, unstratified. */
export function pairedBootstrap(items: readonly PairedItem[], opts: PairedBootstrapOptions = {}): PairedDifference {
  return stratifiedPairedBootstrap([{ id: "items", items }], opts).overall;
}
