/** Number and date formatting shared by the leaderboard's server and client parts (deterministic: no locale or time zone). */

export function fmtScore(x: number): string {
  return Number.isFinite(x) ? x.toFixed(1) : "—";
}

/** Half the width of an interval, shown as "±". */
export function ciHalfWidth(ciLow: number, ciHigh: number): number {
  return Math.max(0, (ciHigh - ciLow) / 2);
}

export function fmtPercent(share: number): string {
  return Number.isFinite(share) ? `${Math.round(share * 100)}%` : "—";
}

/** `2026-11-22` from an ISO timestamp (UTC, so server and browser agree). */
export function fmtDate(iso: string): string {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toISOString().slice(0, 10);
}

/** `2026-11-22 04:59 UTC` from an ISO timestamp. */
export function fmtDateTime(iso: string): string {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : `${d.toISOString().slice(0, 16).replace("T", " ")} UTC`;
}

/** Clamps a score to the 0–100 scale of the CI bars. */
export function pct(x: number): number {
  return Math.min(100, Math.max(0, Number.isFinite(x) ? x : 0));
}
