/** Shapes leaderboard entries into plain chart series. Pure: used on the server, charts take the result as props. */
import type { LeaderboardEntry } from "@/lib/queries/types";

export interface BarSeries {
  /** Data key in each row: `e<entry id>` (agent names are not safe as keys). */
  key: string;
  name: string;
}

export interface CapabilityBarsData {
  series: BarSeries[];
  /** One row per capability: its label, and each entry's score (null when not submitted). */
  rows: ({ capability: string } & Record<string, number | string | null>)[];
}

/** Capability scores of the first `n` entries in official order (rank, then score). */
export function capabilityBarsData(capabilities: readonly { id: string; label: string }[], entries: readonly LeaderboardEntry[], n = 5): CapabilityBarsData {
  const top = [...entries].sort((a, b) => a.rank - b.rank || b.overall.score - a.overall.score || a.id - b.id).slice(0, n);
  return {
    series: top.map((e) => ({ key: `e${e.id}`, name: e.agent })),
    rows: capabilities.map((c) => {
      const row: { capability: string } & Record<string, number | string | null> = { capability: c.label };
      for (const e of top) {
        const cell = e.capabilities[c.id];
        row[`e${e.id}`] = cell?.submitted ? Math.round(cell.score * 10) / 10 : null;
      }
      return row;
    }),
  };
}

export interface BestPoint {
  /** Epoch milliseconds. */
  t: number;
  best: number;
  /** The entry holding the best score at this point. */
  agent: string;
}

/**
 * The best overall score over time: a point each time the record improves (running maximum
 * over entries by date), plus the latest entry date so the step line reaches today's board.
 * Partial entries are left out: their overall is not comparable.
 */
export function bestOverTimeData(entries: readonly LeaderboardEntry[]): BestPoint[] {
  const dated = entries
    .filter((e) => !e.badges.partial)
    .map((e) => ({ e, t: Date.parse(e.date) }))
    .filter((x) => Number.isFinite(x.t))
    .sort((a, b) => a.t - b.t || a.e.id - b.e.id);
  const points: BestPoint[] = [];
  let best = -Infinity;
  for (const { e, t } of dated) {
    if (e.overall.score <= best) continue;
    best = e.overall.score;
    points.push({ t, best: Math.round(best * 10) / 10, agent: e.agent });
  }
  const end = dated.at(-1);
  const last = points.at(-1);
  if (end && last && end.t > last.t) points.push({ ...last, t: end.t });
  return points;
}
