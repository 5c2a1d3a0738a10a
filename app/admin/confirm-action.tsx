import Link from "next/link";
import { Notice } from "@/components/common/notice";
import { StateBadge } from "@/components/common/state-badge";
import { buttonClass, controlClass, secondaryButtonClass } from "@/components/common/styles";
import type { ReviewRow } from "@/lib/queries/types";
import type { ConfirmedAction } from "@/lib/submissions/review";
import { FlagMessages } from "./flag-messages";
import { overallText } from "./review-table";

/** The destructive button of a confirmation: red, with its words saying what it does. */
const dangerButtonClass =
  "rounded-md bg-red-700 px-3 py-1.5 text-sm font-medium text-white hover:bg-red-800 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-red-600 dark:bg-red-700 dark:hover:bg-red-600";

const VERBS: Record<ConfirmedAction, string> = { reject: "Reject", withdraw: "Withdraw", approve: "Approve", rescore: "Rescore" };
const PAST: Record<ConfirmedAction, string> = { reject: "rejected", withdraw: "withdrawn", approve: "approved", rescore: "rescored" };

/** What each confirmed action does to the entry, in the words the maintainer reads before confirming. */
function consequences(action: ConfirmedAction, state: string): string[] {
  const onBoard = state === "published";
  const inFlight = state === "queued" || state === "scoring";
  if (action === "approve") {
    return [
      "It goes on the leaderboard at once, with a flagged badge that lists the kinds of flag above.",
      "Its page shows every flag and what triggered it to everyone.",
      "If the flags hold up, reject it instead (or withdraw it): the reason is public.",
    ];
  }
  if (action === "rescore") {
    return [
      onBoard ? "It leaves the leaderboard now, and comes back only when a maintainer approves the new run's scores." : "Its current scores are replaced by the new run's when it completes; publishing them needs an approval.",
      inFlight ? "The run under way is closed unscored when the worker reaches it." : "A new scoring run is queued: the worker replays and judges every item again (judge verdicts come from the cache where they can).",
      "A reason, if you give one, is public in the entry's timeline (and on its GitHub issue, for a submission made there).",
    ];
  }
  if (action === "reject") {
    return [
      onBoard ? "It leaves the leaderboard at once." : "It will not be published.",
      "The reason is public: on the changelog and on the submission's GitHub issue.",
      "A rejected entry cannot be restored; it can be rescored, which needs a fresh approval.",
    ];
  }
  return [
    onBoard ? "Withdrawn entries leave the board at once." : inFlight ? "Its scoring run is stopped; nothing of it is published." : "It will not be published while it stays withdrawn.",
    "You can restore it from this page (or with /restore on its GitHub issue): it goes back to the state it was withdrawn from.",
    "A reason, if you give one, is public on the changelog and the issue.",
  ];
}

/**
 * The confirmation step for reject, withdraw and rescore (and a flagged approval), without JavaScript: it names the entry, its
 * state and what the action does, and posts the action with `confirm` set to the state shown
 * (the server refuses the post if the entry has moved on since). Cancel is a link back.
 */
export function ConfirmAction({ row, action, allowed, cancelHref }: { row: ReviewRow; action: ConfirmedAction; allowed: boolean; cancelHref: string }) {
  const verb = VERBS[action];
  return (
    <section id="confirm" aria-labelledby="confirm-title" className="mb-6 max-w-2xl space-y-4 rounded-md border border-amber-300 bg-amber-50/60 p-4 dark:border-amber-700 dark:bg-amber-950/30">
      <h2 id="confirm-title" className="text-lg font-semibold tracking-tight">
        {verb} {row.agent} (#{row.id})?
      </h2>
      <dl className="grid grid-cols-[auto_1fr] items-center gap-x-3 gap-y-1 text-sm">
        <dt className="text-slate-600 dark:text-slate-400">Benchmark</dt>
        <dd>{row.benchmark}</dd>
        <dt className="text-slate-600 dark:text-slate-400">State</dt>
        <dd>
          <StateBadge state={row.state} />
        </dd>
        <dt className="text-slate-600 dark:text-slate-400">Overall</dt>
        <dd className="tabular-nums">{overallText(row)}</dd>
      </dl>
      {row.flags.length ? (
        <div className="space-y-1" data-testid="confirm-flags">
          <h3 className="text-sm font-semibold">{`Integrity flags (${row.flags.length})`}</h3>
          <FlagMessages flags={row.flags} />
        </div>
      ) : null}
      {allowed ? (
        <>
          <ul className="list-disc space-y-1 pl-5 text-sm">
            {consequences(action, row.state).map((c) => (
              <li key={c}>{c}</li>
            ))}
          </ul>
          <form method="post" action="/admin/actions" className="flex flex-col gap-3">
            <input type="hidden" name="submissionId" value={row.id} />
            <input type="hidden" name="confirm" value={row.state} />
            {action === "approve" ? null : (
              <>
                <label htmlFor="confirm-reason" className="text-sm font-medium">
                  {action === "reject" ? "Reason (required, public)" : "Reason (optional, public)"}
                </label>
                <textarea id="confirm-reason" name="reason" required={action === "reject"} maxLength={2000} rows={3} className={controlClass} />
              </>
            )}
            <div className="flex flex-wrap gap-2">
              <button name="action" value={action} className={action === "approve" || action === "rescore" ? buttonClass : dangerButtonClass}>
                {verb} {row.agent}
              </button>
              <Link href={cancelHref} className={secondaryButtonClass}>
                Cancel
              </Link>
            </div>
          </form>
        </>
      ) : (
        <>
          <Notice kind="problem">
            A {row.state} entry cannot be {PAST[action]}.
          </Notice>
          <Link href={cancelHref} className={secondaryButtonClass}>
            Back to the list
          </Link>
        </>
      )}
    </section>
  );
}
