/**
 * Tie-aware ranks: an entry's rank is 1 + the number of entries whose interval lies wholly
 * above its own (their lower bound exceeds its upper bound). Entries that overlap share a
 * rank, and the rank never depends on how a table happens to be sorted.
 */
export interface Rankable {
  id: string;
  score: number;
  ciLow: number;
  ciHigh: number;
}

export function rankEntries(entries: readonly Rankable[]): Map<string, number> {
  // Sort lower bounds once; count those above each upper bound by binary search: O(n log n).
  const lows = entries.map((e) => e.ciLow).sort((a, b) => a - b);
  const ranks = new Map<string, number>();
  for (const e of entries) {
    let lo = 0;
    let hi = lows.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (lows[mid]! > e.ciHigh) hi = mid;
      else lo = mid + 1;
    }
    ranks.set(e.id, 1 + (lows.length - lo));
  }
  return ranks;
}

/** Entries in display order: by rank, then score, then id (stable for equal entries). */
export function orderByRank<T extends Rankable>(entries: readonly T[]): (T & { rank: number })[] {
  const ranks = rankEntries(entries);
  return entries
    .map((e) => ({ ...e, rank: ranks.get(e.id)! }))
    .sort((a, b) => a.rank - b.rank || b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}
