/** Number and date formatting shared by the leaderboard's server and client parts (deterministic: no locale or time zone). */

export function fmtScore(x: number): string {
  return Number.isFinite(x) ? x.toFixed(1) : "—";
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

/**
 * A 95% interval beside its score: `±4.0` when the two sides round to the same half-width,
 * `[81.0, 89.1]` when they differ (bootstrap intervals are often lopsided near 0 and 100).
 */
export function fmtInterval(score: number, ciLow: number, ciHigh: number): string {
  const below = Number((score - ciLow).toFixed(1));
  const above = Number((ciHigh - score).toFixed(1));
  if (below === above && below >= 0) return `±${below.toFixed(1)}`;
  return `[${fmtScore(ciLow)}, ${fmtScore(ciHigh)}]`;
}

/** Dollars: `$38.20`, `$0.0042` below a cent, `$1,204` from a hundred; "—" when unknown. */
export function fmtUsd(x: number | null): string {
  if (x === null || !Number.isFinite(x)) return "—";
  if (x === 0) return "$0";
  if (x < 0.01) return `$${Number(x.toPrecision(2))}`;
  if (x < 100) return `$${x.toFixed(2)}`;
  return `$${Math.round(x).toLocaleString("en-US")}`;
}

/** Token counts: `950`, `12.3k`, `4.56M`, `1.2B`; "—" when unknown. */
export function fmtTokens(n: number | null): string {
  if (n === null || !Number.isFinite(n)) return "—";
  // From 0.9995 of a unit up, so 999,999 reads "1M" rather than "1000k".
  for (const [unit, suffix] of TOKEN_UNITS) if (n >= unit * 0.9995) return `${Number((n / unit).toPrecision(3))}${suffix}`;
  return String(Math.round(n));
}

const TOKEN_UNITS = [
  [1e9, "B"],
  [1e6, "M"],
  [1e3, "k"],
] as const;

/** Seconds: `1.25 s`, `12.3 s`, `184 s` (a no-break space, so a cell never wraps them); "—" when unknown. */
export function fmtSeconds(s: number | null): string {
  if (s === null || !Number.isFinite(s)) return "—";
  return `${s < 10 ? s.toFixed(2) : s < 100 ? s.toFixed(1) : Math.round(s).toLocaleString("en-US")}\u00a0s`;
}
