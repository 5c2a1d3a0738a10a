/**
 * A run of k trials: the per-trial scores, their spread and pass^k (the share of items solved in
 * all k trials). Shape only for now; the aggregation comes with issue 16.
 */
export interface TrialStats {
  k: number;
  overall: { perTrial: number[]; sd: number | null };
  capabilities: Record<string, { perTrial: number[]; sd: number | null; passK: number | null }>;
}
