/**
 * What an entry cost to run, beside what it scored: latency per dialogue (VAKRA's
 * `duration_s`, or the span of an evaluator output's timestamps), and tokens and dollars
 * when the bundle reports them (`usage` per record, else `usage` in the metadata for the
 * whole run). Never part of a score.
 */
import { readUsage, type Usage } from "../formats/usage";
import type { Submission } from "../validate/validate-bundle";

export interface CostSummary {
  /** Predicted dialogues and evaluator outputs in the bundle. */
  items: number;
  /** Seconds per item: median and 95th percentile (linear interpolation), over `n` items that report it. */
  latency: { n: number; medianS: number; p95S: number; meanS: number } | null;
  /** Token totals; `input`/`output` null when only totals were reported. */
  tokens: { input: number | null; output: number | null; total: number } | null;
  costUsd: number | null;
  /** Where tokens and cost came from. */
  usageSource: "records" | "metadata" | null;
}

/** The q-quantile (0..1) of sorted values, interpolating between ranks as numpy does by default. */
export function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return NaN;
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (pos - lo);
}

function addUsage(into: { input: number | null; output: number | null; total: number; cost: number | null; n: number }, u: Usage): void {
  into.n++;
  if (u.inputTokens !== null) into.input = (into.input ?? 0) + u.inputTokens;
  if (u.outputTokens !== null) into.output = (into.output ?? 0) + u.outputTokens;
  into.total += u.totalTokens ?? (u.inputTokens ?? 0) + (u.outputTokens ?? 0);
  if (u.costUsd !== null) into.cost = (into.cost ?? 0) + u.costUsd;
}

export function summarizeCost(submission: Pick<Submission, "capabilities" | "outputs" | "metadata">): CostSummary {
  const seconds: number[] = [];
  const sums = { input: null as number | null, output: null as number | null, total: 0, cost: null as number | null, n: 0 };
  let items = 0;
  for (const dialogues of submission.capabilities.values()) {
    for (const d of dialogues.values()) {
      items++;
      if (d.durationS !== null) seconds.push(d.durationS);
      if (d.usage) addUsage(sums, d.usage);
    }
  }
  for (const outputs of submission.outputs.values()) {
    for (const o of outputs.values()) {
      items++;
      const ts = o.timestamps.filter(Number.isFinite);
      if (ts.length >= 2) seconds.push(Math.max(...ts) - Math.min(...ts));
    }
  }
  let usageSource: CostSummary["usageSource"] = sums.n > 0 ? "records" : null;
  if (!usageSource) {
    const meta = readUsage(submission.metadata?.usage, "$.usage", () => {});
    if (meta) {
      addUsage(sums, meta);
      usageSource = "metadata";
    }
  }
  seconds.sort((a, b) => a - b);
  return {
    items,
    latency: seconds.length ? { n: seconds.length, medianS: quantile(seconds, 0.5), p95S: quantile(seconds, 0.95), meanS: seconds.reduce((a, b) => a + b, 0) / seconds.length } : null,
    tokens: usageSource && (sums.total > 0 || sums.input !== null || sums.output !== null) ? { input: sums.input, output: sums.output, total: sums.total } : null,
    costUsd: sums.cost,
    usageSource,
  };
}
