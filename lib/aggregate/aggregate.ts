/**
 * Aggregation in one place. Capability score = 100 × Σ wᵢ·sᵢ / Σ wᵢ over every ground-truth
 * item (a missing prediction counts 0); overall = plain mean of capability scores, a
 * capability not submitted counting 0 and making the entry partial. 95% intervals come from
 * a seeded bootstrap over items, resampled within each capability; the overall interval
 * uses the same resamples, so it is consistent with the capability intervals.
 */
import type { ItemStatus } from "../scoring/item-result";
import type { PolicyOutcome } from "../scoring/verdict";
import { createRng } from "./rng";

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

export function aggregate(capabilityIds: readonly string[], submitted: ReadonlySet<string>, items: readonly ScoredItem[], opts: AggregateOptions = {}): Aggregate {
  const iterations = opts.iterations ?? BOOTSTRAP_ITERATIONS;
  const rng = createRng(opts.seed ?? BOOTSTRAP_SEED);
  const byCap = new Map<string, ScoredItem[]>(capabilityIds.map((id) => [id, []]));
  for (const it of items) byCap.get(it.capability)?.push(it);

  const capabilities: Record<string, CapabilityScore> = {};
  const resampled: Float64Array[] = [];
  for (const id of capabilityIds) {
    const list = byCap.get(id)!;
    const isSubmitted = submitted.has(id);
    const statusCounts: StatusCounts = {};
    const domains: Record<string, { sw: number; w: number; n: number }> = {};
    let nPolicyUnchecked = 0;
    for (const it of list) {
      statusCounts[it.status] = (statusCounts[it.status] ?? 0) + 1;
      if (it.policy === "unchecked") nPolicyUnchecked++;
      const d = (domains[it.domain] ??= { sw: 0, w: 0, n: 0 });
      d.sw += it.weight * it.score;
      d.w += it.weight;
      d.n++;
    }
    const w = Float64Array.from(list, (it) => it.weight);
    const s = Float64Array.from(list, (it) => (isSubmitted ? it.score : 0));
    const score = 100 * weightedMean(w, s);
    const boot = isSubmitted && list.length > 0 ? bootstrap(w, s, iterations, rng) : new Float64Array(iterations).fill(score / 100);
    resampled.push(boot);
    const [lo, hi] = percentileInterval(boot);
    capabilities[id] = {
      score,
      ciLow: 100 * lo,
      ciHigh: 100 * hi,
      submitted: isSubmitted,
      nItems: list.length,
      nMissing: statusCounts.missing ?? 0,
      nError: [...ERROR_STATUSES].reduce((n, k) => n + (statusCounts[k] ?? 0), 0),
      nPolicyUnchecked,
      statusCounts,
      domains: Object.fromEntries(Object.entries(domains).map(([k, d]) => [k, { score: isSubmitted && d.w > 0 ? (100 * d.sw) / d.w : 0, nItems: d.n }])),
    };
  }

  const overallBoot = new Float64Array(iterations);
  for (let b = 0; b < iterations; b++) {
    let sum = 0;
    for (const r of resampled) sum += r[b]!;
    overallBoot[b] = resampled.length ? sum / resampled.length : 0;
  }
  const [lo, hi] = percentileInterval(overallBoot);
  const scores = capabilityIds.map((id) => capabilities[id]!.score);
  return {
    overall: {
      score: scores.length ? scores.reduce((a, b) => a + b, 0) / scores.length : 0,
      complete: capabilityIds.every((id) => submitted.has(id)),
      ciLow: 100 * lo,
      ciHigh: 100 * hi,
    },
    capabilities,
  };
}

function weightedMean(w: Float64Array, s: Float64Array): number {
  let sw = 0;
  let tw = 0;
  for (let i = 0; i < w.length; i++) {
    sw += w[i]! * s[i]!;
    tw += w[i]!;
  }
  return tw > 0 ? sw / tw : 0;
}

/** Resampled weighted means (0..1), one per iteration. */
function bootstrap(w: Float64Array, s: Float64Array, iterations: number, rng: () => number): Float64Array {
  const n = w.length;
  const out = new Float64Array(iterations);
  for (let b = 0; b < iterations; b++) {
    let sw = 0;
    let tw = 0;
    for (let k = 0; k < n; k++) {
      const i = (rng() * n) | 0;
      sw += w[i]! * s[i]!;
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
