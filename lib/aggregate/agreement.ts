/**
 * How well a judge agrees with labels a person gave (calibration), as plain statistics:
 *
 * - pass/fail labels: the confusion matrix (label × judge), accuracy (the share of cases where
 *   they agree) and Cohen's κ = (pₒ − pₑ) / (1 − pₑ), where pₒ is that share and pₑ the share
 *   two raters with the same pass rates would agree on by chance. κ is undefined (null) when
 *   pₑ = 1: both the labels and the judge put every case in the same one class, so there is
 *   no disagreement to beat and 0/0 is not a number we may print.
 * - score labels in [0, 1]: mean absolute error, and Spearman's ρ: Pearson's correlation of
 *   the two sides' ranks, tied values sharing the average of the ranks they span. ρ is
 *   undefined (null) with fewer than two cases or when either side is constant.
 *
 * Each comes with a 95% percentile bootstrap interval: the cases are resampled with
 * replacement AGREEMENT_BOOTSTRAP.resamples times (1,000) by the seeded generator the board's
 * intervals use (rng.ts, seed 20260522), the statistic is recomputed on every resample, and
 * the 2.5th and 97.5th percentiles of the results are the interval. Resamples on which the
 * statistic is undefined (a κ of a resample holding one class only) are left out; when none
 * is defined the interval is null. No cases at all: every value is null.
 */
import { BOOTSTRAP_ITERATIONS, BOOTSTRAP_SEED, percentileInterval } from "./aggregate";
import { createRng } from "./rng";

export const AGREEMENT_BOOTSTRAP = { seed: BOOTSTRAP_SEED, resamples: BOOTSTRAP_ITERATIONS } as const;

export interface BootstrapOptions {
  seed?: number;
  resamples?: number;
}

/** A statistic and its 95% interval; null where undefined (see above). */
export interface Estimate {
  value: number | null;
  ciLow: number | null;
  ciHigh: number | null;
}

/** Label × judge: `passPass` = labelled pass and judged pass, `passFail` = labelled pass, judged fail, … */
export interface Confusion {
  passPass: number;
  passFail: number;
  failPass: number;
  failFail: number;
}

export interface PassFailPair {
  /** The person's label: true = pass. */
  label: boolean;
  /** The judge's grade: true = pass. */
  judge: boolean;
}

export interface ScorePair {
  label: number;
  judge: number;
}

export interface PassFailAgreement {
  n: number;
  accuracy: Estimate;
  kappa: Estimate;
  confusion: Confusion;
}

export interface ScoreAgreement {
  n: number;
  meanAbsoluteError: Estimate;
  spearman: Estimate;
}

export function confusionOf(pairs: readonly PassFailPair[]): Confusion {
  const c: Confusion = { passPass: 0, passFail: 0, failPass: 0, failFail: 0 };
  for (const p of pairs) {
    if (p.label) p.judge ? c.passPass++ : c.passFail++;
    else p.judge ? c.failPass++ : c.failFail++;
  }
  return c;
}

const total = (c: Confusion) => c.passPass + c.passFail + c.failPass + c.failFail;

export function accuracyOf(c: Confusion): number | null {
  const n = total(c);
  return n === 0 ? null : (c.passPass + c.failFail) / n;
}

/**
 * Cohen's κ from the counts, in whole numbers until the one division:
 * κ = (n·agree − Σ rowₖ·colₖ) / (n² − Σ rowₖ·colₖ). Null when n = 0 or pₑ = 1.
 */
export function cohensKappa(c: Confusion): number | null {
  const n = total(c);
  if (n === 0) return null;
  const labelPass = c.passPass + c.passFail;
  const judgePass = c.passPass + c.failPass;
  const chance = labelPass * judgePass + (n - labelPass) * (n - judgePass);
  const denominator = n * n - chance;
  if (denominator === 0) return null;
  return (n * (c.passPass + c.failFail) - chance) / denominator;
}

export function meanAbsoluteError(pairs: readonly ScorePair[]): number | null {
  if (pairs.length === 0) return null;
  let sum = 0;
  for (const p of pairs) sum += Math.abs(p.label - p.judge);
  return sum / pairs.length;
}

/** 1-based ranks, ties sharing the average of the ranks they span: [10, 20, 20, 30] → [1, 2.5, 2.5, 4]. */
export function averageRanks(values: readonly number[]): number[] {
  const order = values.map((v, i) => [v, i] as const).sort((a, b) => a[0] - b[0]);
  const ranks = new Array<number>(values.length);
  for (let start = 0; start < order.length; ) {
    let end = start;
    while (end + 1 < order.length && order[end + 1]![0] === order[start]![0]) end++;
    const rank = (start + end) / 2 + 1;
    for (let k = start; k <= end; k++) ranks[order[k]![1]] = rank;
    start = end + 1;
  }
  return ranks;
}

function pearson(x: readonly number[], y: readonly number[]): number | null {
  const n = x.length;
  if (n < 2) return null;
  let mx = 0;
  let my = 0;
  for (let i = 0; i < n; i++) {
    mx += x[i]!;
    my += y[i]!;
  }
  mx /= n;
  my /= n;
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  for (let i = 0; i < n; i++) {
    const dx = x[i]! - mx;
    const dy = y[i]! - my;
    sxy += dx * dy;
    sxx += dx * dx;
    syy += dy * dy;
  }
  if (sxx === 0 || syy === 0) return null;
  return sxy / Math.sqrt(sxx * syy);
}

export function spearmanRho(pairs: readonly ScorePair[]): number | null {
  return pearson(
    averageRanks(pairs.map((p) => p.label)),
    averageRanks(pairs.map((p) => p.judge)),
  );
}

/** The statistic on the cases and on each seeded resample of them, with the percentile interval of the defined resamples. */
function bootstrap<T>(items: readonly T[], stat: (sample: readonly T[]) => number | null, opts: BootstrapOptions): Estimate {
  const value = stat(items);
  if (items.length === 0) return { value: null, ciLow: null, ciHigh: null };
  const rng = createRng(opts.seed ?? AGREEMENT_BOOTSTRAP.seed);
  const resamples = opts.resamples ?? AGREEMENT_BOOTSTRAP.resamples;
  const n = items.length;
  const sample = new Array<T>(n);
  const defined: number[] = [];
  for (let b = 0; b < resamples; b++) {
    for (let i = 0; i < n; i++) sample[i] = items[Math.floor(rng() * n)]!;
    const s = stat(sample);
    if (s !== null && Number.isFinite(s)) defined.push(s);
  }
  if (defined.length === 0) return { value, ciLow: null, ciHigh: null };
  const [ciLow, ciHigh] = percentileInterval(Float64Array.from(defined));
  return { value, ciLow, ciHigh };
}

export function passFailAgreement(pairs: readonly PassFailPair[], opts: BootstrapOptions = {}): PassFailAgreement {
  return {
    n: pairs.length,
    accuracy: bootstrap(pairs, (s) => accuracyOf(confusionOf(s)), opts),
    kappa: bootstrap(pairs, (s) => cohensKappa(confusionOf(s)), opts),
    confusion: confusionOf(pairs),
  };
}

export function scoreAgreement(pairs: readonly ScorePair[], opts: BootstrapOptions = {}): ScoreAgreement {
  return {
    n: pairs.length,
    meanAbsoluteError: bootstrap(pairs, meanAbsoluteError, opts),
    spearman: bootstrap(pairs, spearmanRho, opts),
  };
}
