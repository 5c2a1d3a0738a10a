/**
 * A score on the 0-100 axis as a bar with a whisker for its 95% interval. Drawn with plain
 * elements on the server (no chart library, no client JS); the numbers are written beside it,
 * so the graphic itself is hidden from screen readers.
 */
import { axisPercent } from "./format";

export function CiBar({ score, ciLow, ciHigh, submitted = true, size = "md" }: { score: number; ciLow: number; ciHigh: number; submitted?: boolean; size?: "sm" | "md" }) {
  const h = size === "sm" ? "h-2.5" : "h-4";
  if (!submitted) {
    return <div aria-hidden="true" className={`${h} w-full rounded-sm border border-dashed border-slate-300 dark:border-slate-600`} />;
  }
  const lo = axisPercent(Math.min(ciLow, score));
  const hi = axisPercent(Math.max(ciHigh, score));
  return (
    <div aria-hidden="true" className={`relative ${h} w-full rounded-sm bg-slate-100 dark:bg-slate-800`}>
      <div className="absolute inset-y-0 left-0 rounded-sm bg-sky-600/80 dark:bg-sky-500/80" style={{ width: `${axisPercent(score)}%` }} />
      {/* whisker: a line between the bounds, with end caps */}
      <div className="absolute top-1/2 h-0 border-t-2 border-slate-900 dark:border-slate-100" style={{ left: `${lo}%`, width: `${hi - lo}%` }} />
      <div className="absolute inset-y-0 w-0 border-l-2 border-slate-900 dark:border-slate-100" style={{ left: `${lo}%` }} />
      <div className="absolute inset-y-0 w-0 border-l-2 border-slate-900 dark:border-slate-100" style={{ left: `calc(${hi}% - 2px)` }} />
    </div>
  );
}
