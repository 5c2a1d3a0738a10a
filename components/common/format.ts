/** Number, date and id formatting shared by the pages: one place, so every page reads the same. */

/** A 0-100 score with one decimal. */
export function formatScore(score: number): string {
  return score.toFixed(1);
}

/** A 0-1 score (an item's, a sub-score) with two decimals: 0.98, not a rounded 1.0. */
export function formatFraction(x: number): string {
  return x.toFixed(2);
}

/** "76.0–92.0": the 95% interval of a score. */
export function formatInterval(low: number, high: number): string {
  return `${low.toFixed(1)}–${high.toFixed(1)}`;
}

/** A signed difference in points: "+9.3", "−4.0". */
export function formatSigned(n: number): string {
  const v = Math.abs(n) < 0.05 ? 0 : n;
  return `${v > 0 ? "+" : v < 0 ? "−" : "±"}${Math.abs(v).toFixed(1)}`;
}

/** "2026-11-22 04:59 UTC": the same on server and client, whatever the time zone. */
export function formatDateTime(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return `${d.toISOString().slice(0, 16).replace("T", " ")} UTC`;
}

export function formatPercent(part: number, whole: number): string {
  if (whole <= 0) return "0%";
  const p = (100 * part) / whole;
  return `${p < 10 && p > 0 ? p.toFixed(1) : Math.round(p)}%`;
}

export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n.toLocaleString("en-US")} ${n === 1 ? one : many}`;
}

/** Percent of the 0-100 axis, clamped, for CSS widths. */
export function axisPercent(score: number): number {
  return Math.min(100, Math.max(0, score));
}
