import { formatPercent } from "./format";

/** How far a scoring run has got: a bar plus the numbers in words. */
export function ProgressMeter({ done, total, label }: { done: number; total: number; label: string }) {
  const pct = total > 0 ? Math.min(100, (100 * done) / total) : 0;
  return (
    <div className="flex min-w-40 items-center gap-2">
      <div
        role="progressbar"
        aria-label={label}
        aria-valuemin={0}
        aria-valuemax={total}
        aria-valuenow={done}
        aria-valuetext={`${done} of ${total} items`}
        className="h-2 flex-1 overflow-hidden rounded-full bg-slate-200 dark:bg-slate-700"
      >
        <div className="h-full rounded-full bg-sky-600 dark:bg-sky-400" style={{ width: `${pct}%` }} />
      </div>
      <span className="text-xs whitespace-nowrap text-slate-600 tabular-nums dark:text-slate-400">
        {done.toLocaleString("en-US")}/{total.toLocaleString("en-US")} ({formatPercent(done, total)})
      </span>
    </div>
  );
}
