/**
 * A run of k trials (a bundle's `trial_1/ … trial_k/`): each trial's overall and capability
 * scores, their spread from one run to the next, and pass^k, the share of items solved in every
 * trial. The scores themselves (the mean over trials, with a two-level bootstrap interval) are
 * aggregate.ts's; this is what a single mean hides.
 */

/** A trial's figures for the run (overall) or one capability; scores are points, 0–100. */
export interface TrialSpread {
  /** The score of each trial, trial 1 first. */
  perTrial: number[];
  /** The sample standard deviation of `perTrial` (k − 1 in the denominator); null for one trial. */
  sd: number | null;
  /**
   * pass^k in points: the weighted share of items with full marks (score 1, the item table's
   * "lost no points") in all k trials; a capability not submitted counts 0. Overall: the plain
   * mean of the capabilities', as the overall score is.
   */
  passK: number;
}

export interface CapabilityTrials extends TrialSpread {
  /** Items solved in all k trials, and the items of the capability (ground-truth items, not item-trials). */
  nPassK: number;
  nItems: number;
}

export interface TrialStats {
  k: number;
  overall: TrialSpread;
  capabilities: Record<string, CapabilityTrials>;
}

/** Sample standard deviation (n − 1); null for fewer than two values. */
export function sampleSd(values: readonly number[]): number | null {
  const n = values.length;
  if (n < 2) return null;
  const mean = values.reduce((a, b) => a + b, 0) / n;
  const ss = values.reduce((a, v) => a + (v - mean) ** 2, 0);
  return Math.sqrt(ss / (n - 1));
}
