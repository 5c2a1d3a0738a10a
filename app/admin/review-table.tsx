import Link from "next/link";
import { formatScore } from "@/components/common/format";
import { StickyFirstColumnTable } from "@/components/common/scroll-table";
import { stickyRowHeadClass } from "@/components/common/sticky-column";
import { StateBadge } from "@/components/common/state-badge";
import { buttonClass, linkClass, rowClass, secondaryButtonClass, tdClass } from "@/components/common/styles";
import { TimeStamp } from "@/components/common/time-stamp";
import { FlagMessages } from "./flag-messages";
import type { ReviewRow } from "@/lib/queries/types";
import type { SubmissionState } from "@/db/schema";
import { availableActions, needsConfirmation, type ReviewActionName } from "@/lib/submissions/review";
import { confirmHref } from "./confirm-href";

/** The current run's overall, marked when a capability was not submitted. */
export const overallText = (r: Pick<ReviewRow, "overall" | "complete">) => (r.overall === null ? "—" : `${formatScore(r.overall)}${r.complete ? "" : " (partial)"}`);

const LABELS: Record<ReviewActionName, string> = { approve: "Approve", rescore: "Rescore", reject: "Reject", withdraw: "Withdraw", restore: "Restore" };

/** What the issue form told maintainers (contact, agent type, notes): shown here only, never publicly. */
function SubmitterNote({ row }: { row: ReviewRow }) {
  if (!row.contact && !row.agentType && !row.notes) return null;
  return (
    <dl className="mt-1 grid grid-cols-[auto_1fr] gap-x-2 text-xs text-zinc-600 dark:text-zinc-400" data-testid={`submitter-note-${row.id}`}>
      {row.contact ? (
        <>
          <dt>Contact</dt>
          <dd className="break-all">{row.contact}</dd>
        </>
      ) : null}
      {row.agentType ? (
        <>
          <dt>Type</dt>
          <dd>{row.agentType}</dd>
        </>
      ) : null}
      {row.notes ? (
        <>
          <dt>Notes</dt>
          <dd className="whitespace-pre-line break-words">{row.notes}</dd>
        </>
      ) : null}
    </dl>
  );
}

/**
 * One row's actions: approve, rescore and restore post at once; reject and withdraw, and the
 * approval of a flagged entry, are links to their confirmation (the server refuses them
 * unconfirmed). A flagged entry's flags can be cleared, each with a reason, on /admin/flags.
 */
function Actions({ row }: { row: ReviewRow }) {
  return (
    <div className="flex flex-wrap items-start gap-2">
      {availableActions(row.state as SubmissionState).map((action) =>
        needsConfirmation(action, row.flags.length > 0) ? (
          <Link key={action} href={confirmHref(action, row.id)} className={secondaryButtonClass} aria-label={`${LABELS[action]} ${row.agent}`}>
            {LABELS[action]}…
          </Link>
        ) : (
          <form key={action} method="post" action="/admin/actions">
            <input type="hidden" name="submissionId" value={row.id} />
            <button name="action" value={action} className={action === "approve" || action === "restore" ? buttonClass : secondaryButtonClass} aria-label={`${LABELS[action]} ${row.agent}`}>
              {LABELS[action]}
            </button>
          </form>
        ),
      )}
      {row.flags.length ? (
        <Link href={`/admin/flags?id=${row.id}`} className={secondaryButtonClass} aria-label={`Clear flags of ${row.agent}`}>
          Clear flags…
        </Link>
      ) : null}
    </div>
  );
}


export function ReviewTable({ rows }: { rows: ReviewRow[] }) {
  return (
    <StickyFirstColumnTable
      label="Submissions to review"
      caption="Submissions maintainers can act on, those awaiting approval first"
      minWidth="min-w-[56rem]"
      first="Agent"
      columns={["State", "Overall", "Flags", "Actions", "Benchmark", "Updated"]}
    >
      {rows.map((r) => (
        <tr key={r.id} className={rowClass} data-testid={`review-${r.id}`}>
          <th scope="row" className={`${stickyRowHeadClass} font-normal`}>
            <Link href={`/submissions/${r.id}`} className={linkClass}>
              {r.agent}
            </Link>{" "}
            <span className="text-xs text-slate-600 tabular-nums dark:text-slate-400">#{r.id}</span>
            {r.source === "github" ? (
              <a href={r.sourceRef} className={`${linkClass} ml-2 text-xs`} rel="noreferrer">
                issue
              </a>
            ) : null}
            <SubmitterNote row={r} />
          </th>
          <td className={tdClass}>
            <StateBadge state={r.state} />
            {r.withdrawnFrom ? <span className="mt-1 block text-xs text-slate-600 dark:text-slate-400">from {r.withdrawnFrom}</span> : null}
            {r.held ? (
              <span className="mt-1 block max-w-xs text-xs text-amber-800 dark:text-amber-300" data-testid={`held-${r.id}`}>
                Not published yet: {r.held}
              </span>
            ) : null}
          </td>
          <td className={`${tdClass} tabular-nums`}>{overallText(r)}</td>
          <td className={`${tdClass} max-w-md`} data-testid={`flags-${r.id}`}>
            {r.flags.length ? <FlagMessages flags={r.flags} /> : <span className="text-slate-500 dark:text-slate-400">—</span>}
          </td>
          <td className={tdClass}>
            <Actions row={r} />
          </td>
          <td className={tdClass}>{r.benchmark}</td>
          <td className={`${tdClass} whitespace-nowrap`}>
            <TimeStamp iso={r.updatedAt} />
          </td>
        </tr>
      ))}
    </StickyFirstColumnTable>
  );
}
