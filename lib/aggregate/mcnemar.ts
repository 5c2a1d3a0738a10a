/**
 * McNemar's exact test on paired pass/fail outcomes: only the discordant items count (A passed
 * and B failed: `b`; A failed and B passed: `c`). Under "neither entry is better" each
 * discordant item goes either way with probability ½, so the two-sided p-value is twice the
 * binomial tail of the smaller count, capped at 1.
 */

export interface McNemarResult {
  /** Items A passed and B failed. */
  b: number;
  /** Items A failed and B passed. */
  c: number;
  /** Two-sided exact p-value. */
  pValue: number;
}

export function mcnemarExact(b: number, c: number): McNemarResult {
  if (!Number.isInteger(b) || !Number.isInteger(c) || b < 0 || c < 0) throw new RangeError(`discordant counts must be whole numbers ≥ 0 (got ${b}, ${c})`);
  const n = b + c;
  const k = Math.min(b, c);
  // P(X ≤ k) for X ~ Binomial(n, ½), summed in log space so tens of thousands of items neither overflow nor lose the tail.
  const logHalfN = -n * Math.LN2;
  let logC = 0; // log C(n, 0)
  let logTail = logHalfN;
  for (let i = 1; i <= k; i++) {
    logC += Math.log(n - i + 1) - Math.log(i);
    const term = logC + logHalfN;
    const hi = Math.max(logTail, term);
    logTail = hi + Math.log(Math.exp(logTail - hi) + Math.exp(term - hi));
  }
  return { b, c, pValue: Math.min(1, 2 * Math.exp(logTail)) };
}
