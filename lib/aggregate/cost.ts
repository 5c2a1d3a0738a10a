/**
 * What an entry cost to run, beside what it scored: latency per item (a dialogue's
 * `duration_s`, or the span of an evaluator output's timestamps and trajectory events), and
 * tokens and dollars when the bundle reports them (`usage` per record, else `usage` in the
 * metadata for the whole run). Never part of a score.
 */
import { readUsage, type Usage } from "../formats/usage";
import { latencyStats, outputLatency } from "../evaluators/latency";
import type { Submission, TrialPredictions } from "../validate/validate-bundle";

export interface UsageTotals {
  /** `records`: summed over the records that carry `usage`; `metadata`: the run's own figures. */
  source: "records" | "metadata";
  /** Records that carried usage (0 for metadata). */
  records: number;
  /**
   * Each total is null unless every usage it sums gave that field: a sum that silently skipped
   * some records would understate what the run cost.
   */
  inputTokens: number | null;
  outputTokens: number | null;
  totalTokens: number | null;
  costUsd: number | null;
}

export interface CostSummary {
  /** Predicted dialogues and evaluator outputs in the bundle (every trial's). */
  items: number;
  /**
   * A bundle of k > 1 trials: latency is over every trial's items, and tokens and dollars are
   * per trial (the bundle's totals divided by k, a metadata `usage` being the whole bundle's),
   * so an entry of 4 trials compares with one of a single run. Absent for one trial.
   */
  trials?: number;
  /**
   * Seconds per item over the `n` items that report it (errored records included: the agent
   * spent that time): median and 95th percentile interpolate between ranks, as numpy does;
   * rounded to the millisecond.
   */
  latency: { n: number; medianS: number; p95S: number; meanS: number } | null;
  usage: UsageTotals | null;
}

type UsageField = keyof Usage;
const FIELDS: UsageField[] = ["inputTokens", "outputTokens", "totalTokens", "costUsd"];

/** Field by field: the sum when every usage has the field, else null. */
function sumUsage(usages: readonly Usage[]): Pick<UsageTotals, UsageField> {
  const out = { inputTokens: 0, outputTokens: 0, totalTokens: 0, costUsd: 0 } as Record<UsageField, number | null>;
  for (const u of usages) {
    for (const f of FIELDS) {
      const v = u[f];
      out[f] = v === null || out[f] === null ? null : out[f] + v;
    }
  }
  // Dollars are summed in floating point: round away the binary noise (0.1 + 0.2).
  if (out.costUsd !== null) out.costUsd = Math.round(out.costUsd * 1e6) / 1e6;
  return out;
}

/** Seconds to the millisecond: what the files hold, without the sums' binary noise (15.780000000000001). */
const ms = (s: number) => Math.round(s * 1000) / 1000;

type Predictions = Pick<TrialPredictions, "capabilities" | "outputs">;

export function summarizeCost(submission: Predictions & Pick<Submission, "metadata"> & { trials?: Predictions[] }): CostSummary {
  const seconds: number[] = [];
  const usages: Usage[] = [];
  let items = 0;
  const trials = submission.trials ?? [submission];
  for (const trial of trials) {
    for (const dialogues of trial.capabilities.values()) {
      for (const d of dialogues.values()) {
        items++;
        if (d.durationS !== null) seconds.push(d.durationS);
        if (d.usage) usages.push(d.usage);
      }
    }
    for (const outputs of trial.outputs.values()) {
      for (const o of outputs.values()) {
        items++;
        const s = outputLatency(o);
        if (s !== null) seconds.push(s);
      }
    }
  }
  let usage: UsageTotals | null = null;
  if (usages.length > 0) usage = { source: "records", records: usages.length, ...sumUsage(usages) };
  else {
    // Warnings about it were given when the bundle was validated.
    const meta = readUsage(submission.metadata?.usage, "$.usage", () => {});
    if (meta) usage = { source: "metadata", records: 0, ...sumUsage([meta]) };
  }
  const k = trials.length;
  if (usage && k > 1) usage = { ...usage, ...perTrial(usage, k) };
  const stats = latencyStats(seconds);
  return {
    items,
    ...(k > 1 ? { trials: k } : {}),
    latency: stats.n > 0 ? { n: stats.n, medianS: ms(stats.p50!), p95S: ms(stats.p95!), meanS: ms(stats.average!) } : null,
    usage,
  };
}

/** Totals of k trials as one trial's: tokens to whole numbers, dollars to the micro-dollar. */
function perTrial(u: UsageTotals, k: number): Pick<UsageTotals, UsageField> {
  const tokens = (v: number | null) => (v === null ? null : Math.round(v / k));
  return { inputTokens: tokens(u.inputTokens), outputTokens: tokens(u.outputTokens), totalTokens: tokens(u.totalTokens), costUsd: u.costUsd === null ? null : Math.round((u.costUsd / k) * 1e6) / 1e6 };
}
