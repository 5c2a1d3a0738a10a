import Link from "next/link";
import { ProgressMeter } from "@/components/common/progress-meter";
import { StateBadge, Tag } from "@/components/common/state-badge";
import { linkClass } from "@/components/common/styles";
import { TimeStamp } from "@/components/common/time-stamp";
import type { InFlightRow } from "@/lib/queries/types";
import { formatRemaining } from "./format-remaining";


function Where({ row }: { row: InFlightRow }) {
  const box = "flex h-10 min-w-10 items-center justify-center rounded-md border px-2 text-sm font-semibold tabular-nums";
  if (row.running)
    return (
      <span className={`${box} border-sky-300 text-sky-900 dark:border-sky-700 dark:text-sky-200`}>
        <span aria-hidden="true">▶</span>
        <span className="sr-only">Running</span>
      </span>
    );
  if (row.position !== null)
    return (
      <span className={`${box} border-slate-300 dark:border-slate-600`}>
        <span className="sr-only">Position </span>
        {row.position}
      </span>
    );
  return (
    <span className={`${box} border-dashed border-slate-300 text-slate-600 dark:border-slate-600 dark:text-slate-400`}>
      <span aria-hidden="true">…</span>
      <span className="sr-only">Not yet in line</span>
    </span>
  );
}

/**
 * The submissions in flight as cards in the worker's order: running first with progress, then
 * those being validated, then the queued ones with their position. None of them is published,
 * so only a maintainer gets links to their pages.
 */
export function InFlightList({ rows, linkAll }: { rows: InFlightRow[]; linkAll: boolean }) {
  return (
    <ol className="space-y-2" aria-label="Waiting and running, in the order the worker takes them">
      {rows.map((r) => (
        <li key={r.id} className="flex gap-3 rounded-md border border-slate-200 p-3 dark:border-slate-800" data-testid={`in-flight-${r.id}`}>
          <Where row={r} />
          <div className="min-w-0 flex-1 space-y-1">
            <p className="flex flex-wrap items-center gap-x-2 gap-y-1">
              {linkAll ? (
                <Link href={`/submissions/${r.id}`} className={`${linkClass} font-medium break-words`}>
                  {r.agent}
                </Link>
              ) : (
                <span className="font-medium break-words">{r.agent}</span>
              )}
              <span className="text-xs text-slate-600 tabular-nums dark:text-slate-400">#{r.id}</span>
              <StateBadge state={r.state} />
              {r.isDemo ? <Tag title="A generated demo entry">demo</Tag> : null}
            </p>
            {r.progress ? (
              <div className="flex flex-wrap items-center gap-x-3 gap-y-1">
                <ProgressMeter done={r.progress.done} total={r.progress.total} label={`Scoring progress of ${r.agent}`} />
                {r.remainingMs !== null ? <span className="text-xs text-slate-600 dark:text-slate-400">{formatRemaining(r.remainingMs)} at its pace so far</span> : null}
              </div>
            ) : null}
            <p className="text-xs text-slate-600 dark:text-slate-400">
              {r.benchmark} · from {r.source} · {r.running ? "queued" : "waiting"} since <TimeStamp iso={r.waitingSince} />
            </p>
          </div>
        </li>
      ))}
    </ol>
  );
}
