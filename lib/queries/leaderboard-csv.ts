/**
 * The leaderboard as CSV (RFC 4180: comma-separated, CRLF line ends, quoted when needed).
 * Text that a spreadsheet would run as a formula gets a single quote before the trigger
 * (= + - @, tab or CR, or their full-width forms). Not only at the start: a spreadsheet set to
 * another separator (`;` in many locales, or tab or `|`) splits the cell again, so a trigger
 * after any separator or line break (spaces and quotes between allowed) is defused as well.
 * Pure: no database access.
 */
import type { CapabilityInfo, LeaderboardEntry } from "./types";

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

function num(x: number, digits: number): string {
  return Number.isFinite(x) ? String(Number(x.toFixed(digits))) : "";
}

export function badgeNames(b: LeaderboardEntry["badges"]): string[] {
  return [b.verified && "verified", b.partial && "partial", b.demo && "demo"].filter((x): x is string => !!x);
}

export function leaderboardCsvHeader(capabilities: readonly Pick<CapabilityInfo, "id">[]): string[] {
  return ["rank", "agent", "models", "maintainer", "overall", "overall_ci_low", "overall_ci_high", ...capabilities.map((c) => c.id), "coverage", "date", "badges"];
}

/** Entries in the order given (apply the view first). A capability not submitted is an empty cell. */
export function leaderboardCsv(capabilities: readonly Pick<CapabilityInfo, "id">[], entries: readonly LeaderboardEntry[]): string {
  const lines = [leaderboardCsvHeader(capabilities).map(csvCell).join(",")];
  for (const e of entries) {
    const caps = capabilities.map((c) => {
      const cell = e.capabilities[c.id];
      return cell?.submitted ? num(cell.score, 2) : "";
    });
    lines.push(
      [
        String(e.rank),
        csvCell(e.agent),
        csvCell(e.models.join("; ")),
        csvCell(e.maintainer),
        num(e.overall.score, 2),
        num(e.overall.ciLow, 2),
        num(e.overall.ciHigh, 2),
        ...caps,
        num(e.coverage, 4),
        csvCell(e.date),
        csvCell(badgeNames(e.badges).join("; ")),
      ].join(","),
    );
  }
  return `${lines.join("\r\n")}\r\n`;
}
