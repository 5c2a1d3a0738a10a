/** Shapes leaderboard entries into plain chart series. Pure: used on the server, charts take the result as props. */
import { officialOrder } from "@/components/leaderboard/view-state";
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

const round1 = (x: number) => Math.round(x * 10) / 10;

/** Capability scores of the first `n` entries in official order (rank, then score). */
export function capabilityBarsData(capabilities: readonly { id: string; label: string }[], entries: readonly LeaderboardEntry[], n = 5): CapabilityBarsData {
  const top = [...entries].sort(officialOrder).slice(0, n);
  return {
    series: top.map((e) => ({ key: `e${e.id}`, name: e.agent })),
    rows: capabilities.map((c) => {
      const row: { capability: string } & Record<string, number | string | null> = { capability: c.label };
      for (const e of top) {
        const cell = e.capabilities[c.id];
        row[`e${e.id}`] = cell?.submitted ? round1(cell.score) : null;
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
    points.push({ t, best: round1(best), agent: e.agent });
  }
  const end = dated.at(-1);
  const last = points.at(-1);
  if (end && last && end.t > last.t) points.push({ ...last, t: end.t });
  return points;
}

/** UTC calendar days the points fall on: a line over time needs two of them to say anything. */
export function distinctDays(points: readonly { t: number }[]): number {
  return new Set(points.map((p) => new Date(p.t).toISOString().slice(0, 10))).size;
}

export type CostAxis = "cost" | "latency";

/** `auto` is cost when any entry reports one, else latency (what every scored bundle has). */
export function resolveCostAxis(entries: readonly LeaderboardEntry[], choice: "auto" | CostAxis): CostAxis {
  if (choice !== "auto") return choice;
  return entries.some((e) => e.cost.costUsd !== null) ? "cost" : "latency";
}

export interface CostPoint {
  id: number;
  agent: string;
  /** Dollars, or median seconds per item. */
  x: number;
  /** Overall score, one decimal. */
  y: number;
  partial: boolean;
  /** No other (complete) entry is at least as cheap and at least as good, and better in one. */
  front: boolean;
}

export interface CostChartData {
  axis: CostAxis;
  /** Entries with a value on the axis, in official order. */
  points: CostPoint[];
  /** The Pareto front, cheapest first. */
  front: CostPoint[];
  /** Entries left out because they report no value on this axis. */
  unknown: number;
}

/**
 * Which points lie on the Pareto front of "lower x, higher y": those that no other point beats,
 * i.e. none has x ≤ and y ≥ with one of them strict. Identical points are all on it. O(n log n).
 */
export function paretoFront(points: readonly { x: number; y: number }[]): boolean[] {
  const order = points.map((_, i) => i).sort((a, b) => points[a]!.x - points[b]!.x || points[b]!.y - points[a]!.y);
  const onFront = points.map(() => false);
  let bestBefore = -Infinity; // the highest y among points strictly cheaper than the current group
  for (let i = 0; i < order.length; ) {
    const x = points[order[i]!]!.x;
    let j = i;
    while (j < order.length && points[order[j]!]!.x === x) j++;
    const top = points[order[i]!]!.y; // sorted by y descending within the group
    for (let k = i; k < j; k++) {
      const p = points[order[k]!]!;
      onFront[order[k]!] = p.y === top && p.y > bestBefore;
    }
    bestBefore = Math.max(bestBefore, top);
    i = j;
  }
  return onFront;
}

/**
 * Overall score against cost (or latency) for the entries that report it. Partial entries are
 * drawn but kept off the front: they are cheap because they did less, and their overall is not
 * comparable.
 */
export function costChartData(entries: readonly LeaderboardEntry[], axis: CostAxis): CostChartData {
  const xOf = (e: LeaderboardEntry) => (axis === "cost" ? e.cost.costUsd : e.cost.latencyMedianS);
  const known = [...entries].sort(officialOrder).filter((e) => xOf(e) !== null);
  const complete = known.filter((e) => !e.badges.partial);
  const front = paretoFront(complete.map((e) => ({ x: xOf(e)!, y: e.overall.score })));
  const onFront = new Set(complete.filter((_, i) => front[i]).map((e) => e.id));
  const points = known.map((e) => ({ id: e.id, agent: e.agent, x: xOf(e)!, y: round1(e.overall.score), partial: e.badges.partial, front: onFront.has(e.id) }));
  return { axis, points, front: points.filter((p) => p.front).sort((a, b) => a.x - b.x || b.y - a.y), unknown: entries.length - known.length };
}

/**
 * Ticks for a log axis from `lo` to `hi` (both > 0): 1, 2, 5 times each power of ten, from the
 * last at or below `lo` to the first at or above `hi`, which also bound the axis.
 */
export function logTicks(lo: number, hi: number): number[] {
  if (!(lo > 0) || !(hi >= lo) || !Number.isFinite(hi)) return [];
  const ticks: number[] = [];
  for (let exp = Math.floor(Math.log10(lo)); ticks.length === 0 || ticks.at(-1)! < hi; exp++) {
    for (const m of [1, 2, 5]) {
      const t = Number((m * 10 ** exp).toPrecision(1));
      if (t <= lo) ticks.length = 0;
      ticks.push(t);
      if (t >= hi) break;
    }
  }
  return ticks;
}
