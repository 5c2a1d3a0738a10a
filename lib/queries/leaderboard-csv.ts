/**
 * The leaderboard's exports: CSV (RFC 4180: comma-separated, CRLF line ends, quoted when needed)
 * and JSON records with the same fields, for the board's visible columns. Each column gives one
 * or more fields: the agent column its entry's id and URL too, every score its 95% interval.
 * Text that a spreadsheet would run as a formula gets a single quote before the trigger
 * (= + - @, tab or CR, or their full-width forms). Not only at the start: a spreadsheet set to
 * another separator (`;` in many locales, or tab or `|`) splits the cell again, so a trigger
 * after any separator or line break (spaces and quotes between allowed) is defused as well.
 * Pure: no database access.
 */
import type { CapabilityInfo, LeaderboardEntry, ScoreCell } from "./types";

// Where a spreadsheet may start a cell (the start, or after a separator or line break, then
// spaces or quotes), followed by a character that makes the cell a formula.
const FORMULA_TRIGGER = /(?<=^|[,;|\t\r\n])([ "']*)(?=[=+\-@\t\r\uFF1D\uFF0B\uFF0D\uFF20])/g;

/** Text with a `'` before every formula trigger a spreadsheet could meet at the start of a cell. */
export function defuseFormulas(value: string): string {
  return value.replace(FORMULA_TRIGGER, "$1'");
}

/** One text cell, safe for spreadsheets and quoted when it holds a comma, quote or line break. */
export function csvCell(value: string): string {
  const safe = defuseFormulas(value);
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

export function badgeNames(b: LeaderboardEntry["badges"]): string[] {
  return [b.verified && "verified", b.partial && "partial", b.demo && "demo", b.flagged && "flagged"].filter((x): x is string => !!x);
}

/** One exported value: a number, text, a list of texts, or null when unknown (an empty CSV cell). */
export type ExportValue = number | string | string[] | null;

export interface ExportOptions {
  /**
   * The board's visible column ids in display order (`rank`, `agent`, `overall`, capability ids,
   * `trials`, `cost`, `tokens`, `latency`, `latency_p95`, `coverage`, `models`, `maintainer`,
   * `date`, `badges`: the view's `columnIds` without its hidden ones); unknown ids give nothing.
   */
  columns: readonly string[];
  /**
   * What the score columns hold, as on screen: the mean score with its interval (default), or
   * pass^k (`overall_pass_k`, `<id>_pass_k`; empty for an entry of one trial).
   */
  metric?: "score" | "passk";
  /** The site's origin (`https://board.example`): entry URLs are absolute with it, paths without. */
  origin?: string | null;
}

interface Field {
  name: string;
  value: (e: LeaderboardEntry) => ExportValue;
}

const round = (x: number | null | undefined, digits: number): number | null => (x === null || x === undefined || !Number.isFinite(x) ? null : Number(x.toFixed(digits)));

function scoreFields(name: string, cell: (e: LeaderboardEntry) => ScoreCell | undefined, passK: ((e: LeaderboardEntry) => number | undefined) | null): Field[] {
  if (passK) return [{ name: `${name}_pass_k`, value: (e) => (name === "overall" || cell(e)?.submitted ? round(passK(e), 2) : null) }];
  const submitted = (e: LeaderboardEntry) => {
    const c = cell(e);
    return c?.submitted ? c : undefined;
  };
  return [
    { name, value: (e) => round(submitted(e)?.score, 2) },
    { name: `${name}_ci_low`, value: (e) => round(submitted(e)?.ciLow, 2) },
    { name: `${name}_ci_high`, value: (e) => round(submitted(e)?.ciHigh, 2) },
  ];
}

/** The fields of one board column; capability ids are the columns not named here. */
function columnFields(column: string, capabilityIds: ReadonlySet<string>, origin: string | null, passK: boolean): Field[] {
  switch (column) {
    case "rank":
      return [{ name: "rank", value: (e) => e.rank }];
    case "agent":
      return [
        { name: "id", value: (e) => e.id },
        { name: "agent", value: (e) => e.agent },
        { name: "url", value: (e) => `${origin ?? ""}/submissions/${e.id}` },
      ];
    case "overall":
      return scoreFields("overall", (e) => e.overall, passK ? (e) => e.passK?.overall : null);
    case "trials":
      return [{ name: "trials", value: (e) => e.trials }];
    case "cost":
      return [{ name: "cost_usd", value: (e) => round(e.cost.costUsd, 6) }];
    case "tokens":
      return [{ name: "total_tokens", value: (e) => e.cost.totalTokens }];
    case "latency":
      return [{ name: "latency_median_s", value: (e) => round(e.cost.latencyMedianS, 2) }];
    case "latency_p95":
      return [{ name: "latency_p95_s", value: (e) => round(e.cost.latencyP95S, 2) }];
    case "coverage":
      return [{ name: "coverage", value: (e) => round(e.coverage, 4) }];
    case "models":
      return [{ name: "models", value: (e) => e.models }];
    case "maintainer":
      return [{ name: "maintainer", value: (e) => e.maintainer }];
    case "date":
      return [{ name: "date", value: (e) => e.date }];
    case "badges":
      return [{ name: "badges", value: (e) => badgeNames(e.badges) }];
    default:
      return capabilityIds.has(column) ? scoreFields(column, (e) => e.capabilities[column], passK ? (e) => e.passK?.capabilities[column] : null) : [];
  }
}

function fields(capabilities: readonly Pick<CapabilityInfo, "id">[], opts: ExportOptions): Field[] {
  const capIds = new Set(capabilities.map((c) => c.id));
  // A capability whose id is also a field's name (`url`, `cost_usd`) would repeat a header: the first one stays.
  const byName = new Map<string, Field>();
  for (const f of opts.columns.flatMap((c) => columnFields(c, capIds, opts.origin ?? null, opts.metric === "passk"))) if (!byName.has(f.name)) byName.set(f.name, f);
  return [...byName.values()];
}

export function leaderboardCsvHeader(capabilities: readonly Pick<CapabilityInfo, "id">[], opts: ExportOptions): string[] {
  return fields(capabilities, opts).map((f) => f.name);
}

function csvValue(v: ExportValue): string {
  if (v === null) return "";
  if (typeof v === "number") return String(v);
  return csvCell(Array.isArray(v) ? v.join("; ") : v);
}

/** Entries in the order given (apply the view first). A value not known (a capability not submitted, a cost not reported) is an empty cell. */
export function leaderboardCsv(capabilities: readonly Pick<CapabilityInfo, "id">[], entries: readonly LeaderboardEntry[], opts: ExportOptions): string {
  const fs = fields(capabilities, opts);
  const lines = [fs.map((f) => csvCell(f.name)).join(",")];
  for (const e of entries) lines.push(fs.map((f) => csvValue(f.value(e))).join(","));
  return `${lines.join("\r\n")}\r\n`;
}

/** The same fields as the CSV, as JSON records (numbers stay numbers, lists stay lists, unknown is null). */
export function leaderboardRecords(capabilities: readonly Pick<CapabilityInfo, "id">[], entries: readonly LeaderboardEntry[], opts: ExportOptions): Record<string, ExportValue>[] {
  const fs = fields(capabilities, opts);
  return entries.map((e) => Object.fromEntries(fs.map((f) => [f.name, f.value(e)])));
}
