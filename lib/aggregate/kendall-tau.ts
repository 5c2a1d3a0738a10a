/**
 * Kendall's τ-b: how alike two rankings of the same entries are, from −1 (one is the other
 * reversed) through 0 to 1 (the same order). `rejudge` compares a board's order under its
 * judge with the order under another.
 *
 *   τ-b = (C − D) / √((n₀ − n₁)(n₀ − n₂))
 *
 * over the n₀ = n(n−1)/2 pairs of entries: C pairs ordered alike by both, D ordered oppositely;
 * n₁ pairs tied in the first ranking, n₂ in the second. A pair tied in either is neither
 * concordant nor discordant; the −b correction keeps τ = 1 reachable when there are ties.
 *
 * Undefined (null) with fewer than two entries, or when one ranking ties every entry (the
 * denominator is 0): there is no order to compare, and 0 would claim "no agreement".
 */

/** τ-b of `x` and `y`, paired by index (higher is better in both, or lower in both). */
export function kendallTauB(x: readonly number[], y: readonly number[]): number | null {
  if (x.length !== y.length) throw new RangeError(`kendallTauB: the rankings differ in length (${x.length} and ${y.length})`);
  const n = x.length;
  if (n < 2) return null;
  let concordant = 0;
  let discordant = 0;
  let tiedX = 0;
  let tiedY = 0;
  // O(n²): a board's entries number in the thousands at most; exact and obviously right.
  for (let i = 0; i < n; i++) {
    for (let j = i + 1; j < n; j++) {
      const dx = Math.sign(x[i]! - x[j]!);
      const dy = Math.sign(y[i]! - y[j]!);
      if (dx === 0) tiedX++;
      if (dy === 0) tiedY++;
      if (dx !== 0 && dy !== 0) {
        if (dx === dy) concordant++;
        else discordant++;
      }
    }
  }
  const pairs = (n * (n - 1)) / 2;
  const denominator = Math.sqrt((pairs - tiedX) * (pairs - tiedY));
  return denominator === 0 ? null : (concordant - discordant) / denominator;
}
