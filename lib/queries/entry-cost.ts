/**
 * An entry's cost and latency (`scoring_runs.cost`, written by the scoring job) as pages show
 * them: the board's four numbers, and the whole summary for the entry page. Runs scored before
 * costs were recorded have none: every field is then null.
 */
import type { CostSummary, UsageTotals } from "../aggregate/cost";
import type { EntryCost } from "./types";

/** The stored summary as the entry page shows it (plain data). */
export type RunCost = CostSummary;

const finite = (v: unknown): number | null => (typeof v === "number" && Number.isFinite(v) && v >= 0 ? v : null);
const round = (v: number | null, digits: number): number | null => (v === null ? null : Number(v.toFixed(digits)));

/**
 * The stored JSON, field by field: a number only where it is one, so a hand-edited or older row
 * shows "—" rather than breaking a page.
 */
export function readRunCost(raw: unknown): RunCost | null {
  if (!raw || typeof raw !== "object") return null;
  const c = raw as Partial<Record<keyof CostSummary, unknown>>;
  const lat = c.latency && typeof c.latency === "object" ? (c.latency as Record<string, unknown>) : null;
  const latency = lat && finite(lat.n) && finite(lat.medianS) !== null && finite(lat.p95S) !== null ? { n: finite(lat.n)!, medianS: finite(lat.medianS)!, p95S: finite(lat.p95S)!, meanS: finite(lat.meanS) ?? finite(lat.medianS)! } : null;
  const u = c.usage && typeof c.usage === "object" ? (c.usage as Record<string, unknown>) : null;
  const usage: UsageTotals | null =
    u && (u.source === "records" || u.source === "metadata")
      ? { source: u.source, records: finite(u.records) ?? 0, inputTokens: finite(u.inputTokens), outputTokens: finite(u.outputTokens), totalTokens: finite(u.totalTokens), costUsd: finite(u.costUsd) }
      : null;
  const trials = finite(c.trials);
  return { items: finite(c.items) ?? 0, ...(trials !== null && trials > 1 ? { trials } : {}), latency, usage };
}

/** The board's cost fields of a run (rounded: seconds to 0.01, dollars to 0.000001). */
export function entryCost(raw: unknown): EntryCost {
  const c = readRunCost(raw);
  return {
    latencyMedianS: round(c?.latency?.medianS ?? null, 2),
    latencyP95S: round(c?.latency?.p95S ?? null, 2),
    totalTokens: c?.usage?.totalTokens ?? null,
    costUsd: round(c?.usage?.costUsd ?? null, 6),
  };
}
