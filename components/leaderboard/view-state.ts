/**
 * The leaderboard's view state (sort, search, badge filters, hidden columns, the score shown)
 * and how it maps to the URL. Pure and browser-safe: the client table and `GET /api/leaderboard`
 * both call `applyView`, so a download holds exactly the rows on screen. Official ranks are
 * never touched.
 */
import type { LeaderboardEntry } from "@/lib/queries/types";

export type SortDir = "asc" | "desc";
/** A badge filter: any entry, only entries with the badge, or only entries without it. */
export type BadgeFilter = "any" | "only" | "hide";
export const BADGE_FILTERS = ["verified", "partial", "demo", "flagged"] as const;
export type BadgeFilterKey = (typeof BADGE_FILTERS)[number];

/** The x axis of the accuracy-versus-cost chart; `auto` is cost when any entry reports one, else latency. */
export const COST_AXES = ["auto", "cost", "latency"] as const;
export type CostAxisChoice = (typeof COST_AXES)[number];

/**
 * What the overall and capability cells show: the mean score (with its interval), or pass^k,
 * the share of items solved in all k trials (`metric=passk`), for entries of k > 1 trials; an
 * entry of one trial has no pass^k ("—", sorted last).
 */
export const METRICS = ["score", "passk"] as const;
export type Metric = (typeof METRICS)[number];

export interface ViewState {
  /** Column id: a fixed column or a capability id. */
  sort: string;
  dir: SortDir;
  q: string;
  /** Hidden column ids. */
  hide: string[];
  verified: BadgeFilter;
  partial: BadgeFilter;
  demo: BadgeFilter;
  /** Entries with an integrity flag (`flagged=0` hides them). */
  flagged: BadgeFilter;
  /** The cost chart's x axis (`vs=cost|latency`). */
  vs: CostAxisChoice;
  /** The score the overall and capability cells show (`metric=passk`). */
  metric: Metric;
}

/**
 * Fixed columns in display order; capability columns go right after `overall`. Rank, agent and
 * overall come first: they stay in view (sticky) when a phone scrolls the table sideways.
 */
export const FIXED_COLUMNS = ["rank", "agent", "overall", "trials", "cost", "tokens", "latency", "latency_p95", "coverage", "models", "maintainer", "date", "badges"] as const;
const LEADING_COLUMNS = 3;
/** Columns that cannot be hidden. */
export const PINNED_COLUMNS: readonly string[] = ["rank", "agent"];
const TEXT_COLUMNS = new Set(["agent", "models", "maintainer"]);
/** Cheaper and faster is better: these sort ascending first. */
const COST_COLUMNS = new Set(["cost", "tokens", "latency", "latency_p95"]);
const UNSORTABLE = new Set(["badges"]);

export const DEFAULT_VIEW: ViewState = Object.freeze({
  sort: "rank",
  dir: "asc",
  q: "",
  hide: [],
  verified: "any",
  partial: "any",
  demo: "any",
  flagged: "any",
  vs: "auto",
  metric: "score",
}) as ViewState;

/**
 * The board's own default: these columns are shown only when asked for (the Columns menu), so
 * the default columns (rank, agent, overall, capabilities, trials, cost, badges) fit 1400 px
 * with the flag badges in view. The export API's default hides nothing.
 */
export const OPTIONAL_COLUMNS: readonly string[] = ["tokens", "latency", "latency_p95", "coverage", "models", "maintainer", "date"];
export const BOARD_VIEW: ViewState = Object.freeze({ ...DEFAULT_VIEW, hide: [...OPTIONAL_COLUMNS] }) as ViewState;

export const MAX_QUERY_LENGTH = 200;

/** Every column id of a benchmark, in display order. */
export function columnIds(capabilityIds: readonly string[]): string[] {
  const fixed: string[] = [...FIXED_COLUMNS];
  const caps = capabilityIds.filter((id) => !fixed.includes(id));
  return [...fixed.slice(0, LEADING_COLUMNS), ...caps, ...fixed.slice(LEADING_COLUMNS)];
}

export function isSortable(columnId: string, capabilityIds: readonly string[]): boolean {
  return !UNSORTABLE.has(columnId) && columnIds(capabilityIds).includes(columnId);
}

/** Scores, dates and coverage sort best/newest first; rank, names, cost and latency sort ascending. */
export function defaultDir(columnId: string): SortDir {
  return columnId === "rank" || TEXT_COLUMNS.has(columnId) || COST_COLUMNS.has(columnId) ? "asc" : "desc";
}

type ParamSource = URLSearchParams | Record<string, string | string[] | undefined>;

function param(src: ParamSource, key: string): string | undefined {
  if (src instanceof URLSearchParams) return src.get(key) ?? undefined;
  const v = src[key];
  return Array.isArray(v) ? v[0] : v;
}

function parseBadge(v: string | undefined): BadgeFilter {
  return v === "1" ? "only" : v === "0" ? "hide" : "any";
}

/**
 * Reads the view from URL parameters; anything unknown or malformed falls back to `defaults`
 * (the API's DEFAULT_VIEW, the board's BOARD_VIEW). `hide` present, even empty, is exactly the
 * hidden columns; absent, the defaults' are.
 */
export function parseView(src: ParamSource, capabilityIds: readonly string[], defaults: ViewState = DEFAULT_VIEW): ViewState {
  const cols = columnIds(capabilityIds);
  const sortParam = param(src, "sort");
  const sort = sortParam && isSortable(sortParam, capabilityIds) ? sortParam : DEFAULT_VIEW.sort;
  const dirParam = param(src, "dir");
  const dir: SortDir = dirParam === "asc" || dirParam === "desc" ? dirParam : defaultDir(sort);
  const hideable = new Set(cols.filter((c) => !PINNED_COLUMNS.includes(c)));
  const hideParam = param(src, "hide");
  const hide = hideParam === undefined ? defaults.hide : [...new Set(hideParam.split(",").map((s) => s.trim()))].filter((c) => hideable.has(c));
  return {
    sort,
    dir,
    q: (param(src, "q") ?? "").trim().slice(0, MAX_QUERY_LENGTH),
    hide: cols.filter((c) => hide.includes(c)),
    verified: parseBadge(param(src, "verified")),
    partial: parseBadge(param(src, "partial")),
    demo: parseBadge(param(src, "demo")),
    flagged: parseBadge(param(src, "flagged")),
    vs: COST_AXES.find((a) => a !== "auto" && a === param(src, "vs")) ?? "auto",
    metric: METRICS.find((m) => m === param(src, "metric")) ?? "score",
  };
}

/** URL parameters for a view, leaving out `defaults`; the order is stable so links are comparable. */
export function serializeView(view: ViewState, defaults: ViewState = DEFAULT_VIEW): URLSearchParams {
  const p = new URLSearchParams();
  if (view.sort !== DEFAULT_VIEW.sort || view.dir !== DEFAULT_VIEW.dir) {
    p.set("sort", view.sort);
    p.set("dir", view.dir);
  }
  const q = view.q.trim();
  if (q) p.set("q", q);
  // Hidden columns other than the defaults' are written out, none as `hide=`.
  if (view.hide.join(",") !== defaults.hide.join(",")) p.set("hide", view.hide.join(","));
  for (const key of BADGE_FILTERS) {
    if (view[key] !== "any") p.set(key, view[key] === "only" ? "1" : "0");
  }
  if (view.vs !== "auto") p.set("vs", view.vs);
  if (view.metric !== "score") p.set("metric", view.metric);
  return p;
}

/** A query string (without `?`) that leaves commas readable: `hide=maintainer,date`. */
export function queryString(params: URLSearchParams): string {
  return params.toString().replace(/%2C/gi, ",");
}

export function isDefaultView(view: ViewState, defaults: ViewState = DEFAULT_VIEW): boolean {
  return serializeView(view, defaults).size === 0;
}

/** The next view after clicking a column header: flips the direction, or starts a new column at its default. */
export function toggleSort(view: ViewState, columnId: string): ViewState {
  if (view.sort === columnId) return { ...view, dir: view.dir === "asc" ? "desc" : "asc" };
  return { ...view, sort: columnId, dir: defaultDir(columnId) };
}

function badgeOf(e: LeaderboardEntry, key: BadgeFilterKey): boolean {
  return key === "flagged" ? e.badges.flagged === true : key === "verified" ? e.badges.verified : key === "partial" ? e.badges.partial : e.badges.demo;
}

/** The lowercase search terms; an entry matches when every term is in its agent, models or maintainer. */
export function searchTerms(q: string): string[] {
  return q.toLowerCase().split(/\s+/).filter(Boolean);
}

export function matchesSearch(e: LeaderboardEntry, terms: readonly string[]): boolean {
  if (!terms.length) return true;
  const hay = `${e.agent}\n${e.models.join("\n")}\n${e.maintainer}`.toLowerCase();
  return terms.every((t) => hay.includes(t));
}

/** Official order: rank, then overall score, then id. Used as the tie-breaker of every sort (and by the charts). */
export function officialOrder(a: LeaderboardEntry, b: LeaderboardEntry): number {
  return a.rank - b.rank || b.overall.score - a.overall.score || a.id - b.id;
}

const collator = new Intl.Collator("en", { sensitivity: "base", numeric: true });

/** What a score cell shows under a metric: the mean score, or pass^k (null for one trial or a capability not submitted). */
export function metricValue(e: LeaderboardEntry, scope: "overall" | string, metric: Metric): number | null {
  if (scope === "overall") return metric === "passk" ? (e.passK?.overall ?? null) : e.overall.score;
  const cell = e.capabilities[scope];
  if (!cell?.submitted) return null;
  return metric === "passk" ? (e.passK?.capabilities[scope] ?? null) : cell.score;
}

/** The sort key of an entry for a column; `null` (a capability not submitted, a cost not reported) always sorts last. */
function sortKey(e: LeaderboardEntry, columnId: string, metric: Metric): string | number | null {
  switch (columnId) {
    case "rank":
      return e.rank;
    case "agent":
      return e.agent;
    case "models":
      return e.models.join(", ");
    case "maintainer":
      return e.maintainer;
    case "overall":
      return metricValue(e, "overall", metric);
    case "trials":
      return e.trials;
    case "coverage":
      return e.coverage;
    case "cost":
      return e.cost.costUsd;
    case "tokens":
      return e.cost.totalTokens;
    case "latency":
      return e.cost.latencyMedianS;
    case "latency_p95":
      return e.cost.latencyP95S;
    case "date": {
      const t = Date.parse(e.date);
      return Number.isNaN(t) ? null : t;
    }
    default:
      return metricValue(e, columnId, metric);
  }
}

/** Filters and sorts entries for a view. Returns a new array; entries (and their ranks) are unchanged. */
export function applyView(entries: readonly LeaderboardEntry[], view: ViewState): LeaderboardEntry[] {
  const terms = searchTerms(view.q);
  const kept = entries.filter(
    (e) =>
      BADGE_FILTERS.every((k) => view[k] === "any" || (view[k] === "only") === badgeOf(e, k)) && matchesSearch(e, terms),
  );
  const sign = view.dir === "asc" ? 1 : -1;
  if (view.sort === "rank") return kept.sort((a, b) => sign * officialOrder(a, b));
  const keyed = kept.map((e) => ({ e, k: sortKey(e, view.sort, view.metric) }));
  keyed.sort((x, y) => {
    if (x.k !== y.k) {
      if (x.k === null) return 1;
      if (y.k === null) return -1;
      const c = typeof x.k === "number" && typeof y.k === "number" ? x.k - y.k : collator.compare(String(x.k), String(y.k));
      if (c !== 0) return sign * c;
    }
    return officialOrder(x.e, y.e);
  });
  return keyed.map((x) => x.e);
}

/** How many entries share each official rank (a count above 1 means a tie). */
export function rankCounts(entries: readonly LeaderboardEntry[]): Map<number, number> {
  const counts = new Map<number, number>();
  for (const e of entries) counts.set(e.rank, (counts.get(e.rank) ?? 0) + 1);
  return counts;
}
