/** The audit log of one submission, oldest first: every state change with who, when and why. */
import type { TimelineEvent } from "@/lib/queries/types";
import { StateBadge } from "@/components/common/state-badge";
import { TimeStamp } from "@/components/common/time-stamp";

export function describeAction(e: { action: string; fromState: string | null; toState: string | null }): string {
  if (e.toState) return e.fromState ? `${e.fromState} → ${e.toState}` : `→ ${e.toState}`;
  return e.action.replace(/:/g, " ");
}

export function StatusTimeline({ events }: { events: TimelineEvent[] }) {
  if (events.length === 0) return <p className="text-sm text-slate-600 dark:text-slate-400">No events recorded.</p>;
  return (
    <ol className="relative space-y-4 border-l border-slate-200 pl-5 dark:border-slate-700">
      {events.map((e, i) => (
        <li key={i} className="relative">
          <span aria-hidden="true" className="absolute top-1.5 -left-[1.6rem] h-2.5 w-2.5 rounded-full border-2 border-white bg-slate-400 dark:border-slate-950 dark:bg-slate-500" />
          <div className="flex flex-wrap items-center gap-2 text-sm">
            {e.toState ? <StateBadge state={e.toState} /> : <span className="font-medium">{describeAction(e)}</span>}
            {e.toState && e.fromState ? <span className="text-xs text-slate-500 dark:text-slate-400">from {e.fromState}</span> : null}
          </div>
          <p className="mt-0.5 text-xs text-slate-600 dark:text-slate-400">
            <TimeStamp iso={e.at} /> · {e.actor}
          </p>
          {e.reason ? <p className="mt-0.5 text-sm text-slate-800 dark:text-slate-200">{e.reason}</p> : null}
        </li>
      ))}
    </ol>
  );
}
