/**
 * Aggregation in one place. Capability score = 100 × Σ wᵢ·sᵢ / Σ wᵢ over every ground-truth
 * item (a missing prediction counts 0); overall = plain mean of capability scores, a
 * capability not submitted counting 0 and making the entry partial. 95% intervals come from
 * a seeded bootstrap over items, resampled within each capability; the overall interval
 * uses the same resamples, so it is consistent with the capability intervals. A run of k
 * trials scores the mean over its trials (aggregateTrials); one run is its k = 1 case.
 */
import type { ItemStatus } from "../scoring/item-result";
import type { PolicyOutcome } from "../scoring/verdict";
import { createRng } from "./rng";
import { passes } from "../scoring/outcome";
import { sampleSd, type CapabilityTrials, type TrialStats } from "./trials";

export interface ScoredItem {
  capability: string;
  domain: string;
  weight: number;
  /** 0..1 */
  score: number;
  status: ItemStatus;
  /** Waterfall items: the policy verdict of the last scored turn. */
  policy?: PolicyOutcome | null;
}

export interface DomainScore {
  score: number;
  nItems: number;
}

export interface CapabilityScore {
  score: number;
  ciLow: number;
  ciHigh: number;
  submitted: boolean;
  /** Items scored: in a run of k trials, item-trials (each item once per trial), as every count here. */
  nItems: number;
  nMissing: number;
  /** Items without a score of their own: agent, judge or replay errors. */
  nError: number;
  /** Items whose policy text maps to no rule. */
  nPolicyUnchecked: number;
  statusCounts: StatusCounts;
  domains: Record<string, DomainScore>;
}

export interface OverallScore {
  score: number;
  /** False when a capability was not submitted. */
  complete: boolean;
  ciLow: number;
  ciHigh: number;
}

export interface Aggregate {
  overall: OverallScore;
  capabilities: Record<string, CapabilityScore>;
}

export interface AggregateOptions {
  seed?: number;
  iterations?: number;
}

export type StatusCounts = Partial<Record<ItemStatus, number>>;

/** The board's bootstrap: its seed and number of resamples (the paired comparison uses the same). */
export const BOOTSTRAP_SEED = 20_260_522;
export const BOOTSTRAP_ITERATIONS = 1000;

const ERROR_STATUSES: ReadonlySet<ItemStatus> = new Set(["agent_error", "judge_error", "replay_error"]);

/** An item's result in one trial of a run: which ground-truth item (uuid) and which trial (1-based). */
export interface TrialScoredItem extends ScoredItem {
  uuid: string;
  trial: number;
}

export interface TrialsAggregate extends Aggregate {
  trials: TrialStats;
}

/** One run of one trial: every item counted once. */
export function aggregate(capabilityIds: readonly string[], submitted: ReadonlySet<string>, items: readonly ScoredItem[], opts: AggregateOptions = {}): Aggregate {
  const { trials: _trials, ...agg } = aggregateTrials(capabilityIds, submitted, items.map((it, i) => ({ ...it, uuid: `#${i}`, trial: 1 })), 1, opts);
  return agg;
}

/**
 * A run of k trials. Per capability and trial, the weighted mean as for one run; the
 * capability's score is the mean of its k trial scores (the weighted mean of each item's mean
 * over trials, as every trial scores every item); the overall is the plain mean of capability
 * scores. The interval resamples items within each capability and, for each resampled item,
 * its k trials (a two-level bootstrap): with one trial nothing is drawn for trials, so k = 1
 * is the one-run bootstrap draw for draw. Counts (`nItems`, `statusCounts`, domains' `nItems`)
 * are of item-trials; a trial with no row for an item counts it 0.
 */
export function aggregateTrials(capabilityIds: readonly string[], submitted: ReadonlySet<string>, items: readonly TrialScoredItem[], k: number, opts: AggregateOptions = {}): TrialsAggregate {
  if (!Number.isInteger(k) || k < 1) throw new RangeError(`trials must be a positive integer, got ${k}`);
  const iterations = opts.iterations ?? BOOTSTRAP_ITERATIONS;
  const rng = createRng(opts.seed ?? BOOTSTRAP_SEED);
  const byCap = new Map<string, TrialScoredItem[]>(capabilityIds.map((id) => [id, []]));
  for (const it of items) byCap.get(it.capability)?.push(it);

  const capabilities: Record<string, CapabilityScore> = {};
  const spreads: Record<string, CapabilityTrials> = {};
  const resampled: Float64Array[] = [];
  for (const id of capabilityIds) {
    const rows = byCap.get(id)!;
    const isSubmitted = submitted.has(id);
    const statusCounts: StatusCounts = {};
    let nPolicyUnchecked = 0;
    // Items in first-seen order, their scores in one array: item i's trial t at i·k + t.
    const index = new Map<string, number>();
    const weights: number[] = [];
    const domainOf: string[] = [];
    for (const it of rows) {
      statusCounts[it.status] = (statusCounts[it.status] ?? 0) + 1;
      if (it.policy === "unchecked") nPolicyUnchecked++;
      if (!index.has(it.uuid)) {
        index.set(it.uuid, weights.length);
        weights.push(it.weight);
        domainOf.push(it.domain);
      }
    }
    const n = weights.length;
    const w = Float64Array.from(weights);
    const s = new Float64Array(n * k);
    const domains: Record<string, { sw: Float64Array; w: Float64Array; n: number }> = {};
    for (const it of rows) {
      const d = (domains[it.domain] ??= { sw: new Float64Array(k), w: new Float64Array(k), n: 0 });
      d.n++;
      if (it.trial < 1 || it.trial > k) continue;
      const i = index.get(it.uuid)!;
      s[i * k + it.trial - 1] = isSubmitted ? it.score : 0;
      d.sw[it.trial - 1]! += it.weight * it.score;
      d.w[it.trial - 1]! += it.weight;
    }
    const perTrial = Array.from({ length: k }, (_, t) => 100 * weightedMean(w, s, k, t));
    const score = perTrial.reduce((a, b) => a + b, 0) / k;
    const boot = isSubmitted && n > 0 ? bootstrap(w, s, k, iterations, rng) : new Float64Array(iterations).fill(score / 100);
    resampled.push(boot);
    const [lo, hi] = percentileInterval(boot);
    capabilities[id] = {
      score,
      ciLow: 100 * lo,
      ciHigh: 100 * hi,
      submitted: isSubmitted,
      nItems: rows.length,
      nMissing: statusCounts.missing ?? 0,
      nError: [...ERROR_STATUSES].reduce((m, key) => m + (statusCounts[key] ?? 0), 0),
      nPolicyUnchecked,
      statusCounts,
      domains: Object.fromEntries(Object.entries(domains).map(([name, d]) => [name, { score: isSubmitted ? meanOver(k, (t) => (d.w[t]! > 0 ? (100 * d.sw[t]!) / d.w[t]! : 0)) : 0, nItems: d.n }])),
    };
    const solved = solvedEverywhere(s, k);
    let nPassK = 0;
    let wPass = 0;
    let wAll = 0;
    for (let i = 0; i < n; i++) {
      wAll += w[i]!;
      if (isSubmitted && solved[i]) {
        nPassK++;
        wPass += w[i]!;
      }
    }
    spreads[id] = { perTrial, sd: sampleSd(perTrial), passK: wAll > 0 ? (100 * wPass) / wAll : 0, nPassK, nItems: n };
  }

  const overallBoot = new Float64Array(iterations);
  for (let b = 0; b < iterations; b++) {
    let sum = 0;
    for (const r of resampled) sum += r[b]!;
    overallBoot[b] = resampled.length ? sum / resampled.length : 0;
  }
  const [lo, hi] = percentileInterval(overallBoot);
  const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);
  const overallPerTrial = Array.from({ length: k }, (_, t) => mean(capabilityIds.map((id) => spreads[id]!.perTrial[t]!)));
  return {
    overall: {
      score: mean(capabilityIds.map((id) => capabilities[id]!.score)),
      complete: capabilityIds.every((id) => submitted.has(id)),
      ciLow: 100 * lo,
      ciHigh: 100 * hi,
    },
    capabilities,
    trials: {
      k,
      overall: { perTrial: overallPerTrial, sd: sampleSd(overallPerTrial), passK: mean(capabilityIds.map((id) => spreads[id]!.passK)) },
      capabilities: spreads,
    },
  };
}

/** The mean of f(0) … f(k − 1). */
function meanOver(k: number, f: (t: number) => number): number {
  let sum = 0;
  for (let t = 0; t < k; t++) sum += f(t);
  return sum / k;
}

/** Per item: full marks in every one of its k trials. */
function solvedEverywhere(s: Float64Array, k: number): boolean[] {
  const out: boolean[] = [];
  for (let i = 0; i * k < s.length; i++) {
    let all = true;
    for (let t = 0; t < k && all; t++) all = passes(s[i * k + t]!);
    out.push(all);
  }
  return out;
}

/** Trial t's weighted mean (0..1) over the items (scores laid out i·k + t). */
function weightedMean(w: Float64Array, s: Float64Array, k: number, t: number): number {
  let sw = 0;
  let tw = 0;
  for (let i = 0; i < w.length; i++) {
    sw += w[i]! * s[i * k + t]!;
    tw += w[i]!;
  }
  return tw > 0 ? sw / tw : 0;
}

/**
 * Resampled weighted means (0..1), one per iteration: n items drawn with replacement and, for
 * each, k of its trials drawn with replacement (their mean is the item's score in the resample).
 * One trial draws nothing for it, so k = 1 is the plain item bootstrap.
 */
function bootstrap(w: Float64Array, s: Float64Array, k: number, iterations: number, rng: () => number): Float64Array {
  const n = w.length;
  const out = new Float64Array(iterations);
  for (let b = 0; b < iterations; b++) {
    let sw = 0;
    let tw = 0;
    for (let draw = 0; draw < n; draw++) {
      const i = (rng() * n) | 0;
      let m: number;
      if (k === 1) m = s[i]!;
      else {
        let sum = 0;
        for (let t = 0; t < k; t++) sum += s[i * k + ((rng() * k) | 0)]!;
        m = sum / k;
      }
      sw += w[i]! * m;
      tw += w[i]!;
    }
    out[b] = tw > 0 ? sw / tw : 0;
  }
  return out;
}

/** The central 95% of the resampled values. */
export function percentileInterval(values: Float64Array): [number, number] {
  if (values.length === 0) return [0, 0];
  const sorted = Float64Array.from(values).sort();
  const lo = sorted[Math.floor(0.025 * (sorted.length - 1))]!;
  const hi = sorted[Math.ceil(0.975 * (sorted.length - 1))]!;
  return [lo, hi];
}
