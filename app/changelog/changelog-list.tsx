import Link from "next/link";
import { formatScore, formatSigned } from "@/components/common/format";
import { linkClass } from "@/components/common/styles";
import { TimeStamp } from "@/components/common/time-stamp";
import type { ChangelogEvent, ChangelogKind } from "@/lib/queries/types";

/** Each kind's written label (colour is never the only signal), mark and tone. */
const KINDS: Record<ChangelogKind, { label: string; mark: string; tone: string }> = {
  published: { label: "Published", mark: "●", tone: "bg-emerald-50 text-emerald-900 ring-emerald-300 dark:bg-emerald-950 dark:text-emerald-200 dark:ring-emerald-700" },
  rescored: { label: "Rescored", mark: "↻", tone: "bg-indigo-50 text-indigo-900 ring-indigo-300 dark:bg-indigo-950 dark:text-indigo-200 dark:ring-indigo-700" },
  restored: { label: "Restored", mark: "↺", tone: "bg-teal-50 text-teal-900 ring-teal-300 dark:bg-teal-950 dark:text-teal-200 dark:ring-teal-700" },
  withdrawn: { label: "Withdrawn", mark: "–", tone: "bg-zinc-100 text-zinc-700 ring-zinc-300 dark:bg-zinc-800 dark:text-zinc-300 dark:ring-zinc-600" },
  rejected: { label: "Rejected", mark: "✕", tone: "bg-rose-50 text-rose-900 ring-rose-300 dark:bg-rose-950 dark:text-rose-200 dark:ring-rose-700" },
  unlisted: { label: "Off the board", mark: "◷", tone: "bg-amber-50 text-amber-900 ring-amber-300 dark:bg-amber-950 dark:text-amber-200 dark:ring-amber-700" },
};

function KindBadge({ kind }: { kind: ChangelogKind }) {
  const k = KINDS[kind];
  return (
    <span className={`inline-flex items-center gap-1 rounded-full px-2 py-0.5 text-xs font-medium whitespace-nowrap ring-1 ring-inset ${k.tone}`}>
      <span aria-hidden="true">{k.mark}</span>
      {k.label}
    </span>
  );
}

/** What the event means for the board, in a sentence. */
function summary(e: ChangelogEvent): string {
  const overall = e.overall === null ? "" : `overall ${formatScore(e.overall)}`;
  switch (e.kind) {
    case "published":
      return overall ? `On the board with ${overall}.` : "On the board.";
    case "rescored":
      return e.overall !== null && e.previousOverall !== null
        ? `Back on the board after a rescore: overall ${formatScore(e.previousOverall)} → ${formatScore(e.overall)} (${formatSigned(e.overall - e.previousOverall)}).`
        : "Back on the board after a rescore.";
    case "restored":
      if (e.toState === "published") return overall ? `Back on the board with ${overall}.` : "Back on the board.";
      return e.toState === "queued" ? "Restored and queued for scoring again." : `Restored as ${e.toState}, awaiting a maintainer's approval.`;
    case "withdrawn":
      return e.fromState === "published" ? "Removed from the board." : "Withdrawn before publication.";
    case "rejected":
      return e.fromState === "published" ? "Removed from the board." : "Not published.";
    case "unlisted":
      return e.toState === "validating" ? "Taken off the board: its submitter sent a new bundle." : "Taken off the board to be rescored; it returns once a maintainer approves the new scores.";
  }
}

/**
 * The reader-relevant events as a list (one card per event: nothing scrolls sideways on a
 * phone). An entry's name links to its page only when `linkAll` or the entry is public now.
 */
export function ChangelogList({ events, linkAll }: { events: ChangelogEvent[]; linkAll: boolean }) {
  return (
    <ol className="divide-y divide-slate-200 border-y border-slate-200 dark:divide-slate-800 dark:border-slate-800" aria-label="Changes, newest first">
      {events.map((e) => (
        <li key={e.id} className="grid gap-1 py-3 sm:grid-cols-[12rem_1fr] sm:gap-4" data-testid={`event-${e.id}`}>
          <p className="text-sm text-slate-600 dark:text-slate-400">
            <TimeStamp iso={e.at} />
          </p>
          <div className="min-w-0 space-y-1">
            <p className="flex flex-wrap items-center gap-x-2 gap-y-1">
              <KindBadge kind={e.kind} />
              {linkAll || e.isPublic ? (
                <Link href={`/submissions/${e.submissionId}`} className={`${linkClass} font-medium break-words`}>
                  {e.agent}
                </Link>
              ) : (
                <span className="font-medium break-words">{e.agent}</span>
              )}
              <span className="text-xs text-slate-600 tabular-nums dark:text-slate-400">#{e.submissionId}</span>
              <span className="text-xs text-slate-600 dark:text-slate-400">{e.benchmark}</span>
            </p>
            <p className="text-sm">{summary(e)}</p>
            {e.reason ? <p className="text-sm break-words text-slate-800 dark:text-slate-200">Reason: {e.reason}</p> : null}
            <p className="text-xs text-slate-600 dark:text-slate-400">
              by {e.actor} ·{" "}
              <Link href={`/changelog?entry=${e.submissionId}`} className={linkClass} aria-label={`Changes of ${e.agent} (#${e.submissionId}) only`}>
                this entry only
              </Link>
            </p>
          </div>
        </li>
      ))}
    </ol>
  );
}
