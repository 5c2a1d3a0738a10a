import type { Metadata } from "next";
import type { ReactNode } from "react";
import { cookies } from "next/headers";
import Link from "next/link";
import { ColumnHeaders } from "@/components/common/column-headers";
import { formatScore } from "@/components/common/format";
import { Notice } from "@/components/common/notice";
import { PageHeader } from "@/components/common/page-header";
import { ScrollTable } from "@/components/common/scroll-table";
import { StateBadge } from "@/components/common/state-badge";
import { buttonClass, controlClass, linkClass, rowClass, secondaryButtonClass, tableClass, tdClass, theadClass } from "@/components/common/styles";
import { TimeStamp } from "@/components/common/time-stamp";
import { getReviewQueuePage } from "@/lib/queries/activity";
import { Pagination } from "@/components/common/pagination";
import { parsePage, queryString } from "@/components/common/search-params";
import { pageDb } from "@/lib/queries/db";
import type { ReviewRow } from "@/lib/queries/types";
import { adminToken, SESSION_COOKIE, sessionValid } from "./auth";
import { adminDoneMessage, adminErrorMessage } from "./messages";

export const dynamic = "force-dynamic";

export const metadata: Metadata = { title: "Maintainers", robots: { index: false } };

const PAGE_SIZE = 100;

type Search = Promise<Record<string, string | string[] | undefined>>;

const one = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);

function SignIn({ error, enabled }: { error?: string; enabled: boolean }) {
  return (
    <div className="max-w-md">
      {error ? <Notice kind="problem">{error}</Notice> : null}
      {enabled ? (
        <form method="post" action="/admin/login" className="mt-4 flex flex-col gap-3">
          <label htmlFor="token" className="text-sm font-medium">
            Maintainer token
          </label>
          <input id="token" name="token" type="password" autoComplete="current-password" required className={controlClass} />
          <button type="submit" className={`${buttonClass} self-start`}>
            Sign in
          </button>
        </form>
      ) : (
        <p className="mt-4 text-sm">Sign-in is disabled on this server: set AGENTBOARD_ADMIN_TOKEN to enable it.</p>
      )}
    </div>
  );
}

/** One action on one submission: a form posting to /admin/actions. */
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

function ActionForm({ row, action, label, primary = false, children }: { row: ReviewRow; action: string; label: string; primary?: boolean; children?: ReactNode }) {
  return (
    <form method="post" action="/admin/actions" className={children ? "flex gap-1" : undefined}>
      <input type="hidden" name="submissionId" value={row.id} />
      {children}
      <button name="action" value={action} className={primary ? buttonClass : secondaryButtonClass} aria-label={`${label} ${row.agent}`}>
        {label}
      </button>
    </form>
  );
}

function Actions({ row }: { row: ReviewRow }) {
  return (
    <div className="flex flex-wrap items-start gap-2">
      {row.state === "scored" ? <ActionForm row={row} action="approve" label="Approve" primary /> : null}
      {row.state !== "approved" ? <ActionForm row={row} action="rescore" label="Rescore" /> : null}
      {row.state !== "rejected" ? (
        <ActionForm row={row} action="reject" label="Reject">
          <label className="sr-only" htmlFor={`reason-${row.id}`}>
            Reason for rejecting {row.agent}
          </label>
          <input id={`reason-${row.id}`} name="reason" required placeholder="Reason" className={`${controlClass} w-36`} />
        </ActionForm>
      ) : null}
      <ActionForm row={row} action="withdraw" label="Withdraw" />
    </div>
  );
}

export default async function AdminPage({ searchParams }: { searchParams: Search }) {
  const params = await searchParams;
  const token = adminToken();
  const signedIn = sessionValid((await cookies()).get(SESSION_COOKIE)?.value, token);
  if (!signedIn) {
    return (
      <div>
        <PageHeader title="Maintainers" lede="Sign in with the maintainer token to approve, reject, rescore or withdraw submissions." />
        <SignIn error={adminErrorMessage(one(params.error)) ?? undefined} enabled={token !== null} />
      </div>
    );
  }
  const queue = getReviewQueuePage(pageDb(), { page: parsePage(one(params.page)), pageSize: PAGE_SIZE });
  const rows = queue.rows;
  const waiting = queue.waiting;
  // The URL carries codes only; the words are fixed (messages.ts).
  const done = adminDoneMessage(one(params.done));
  const error = adminErrorMessage(one(params.error));
  return (
    <div>
      <PageHeader title="Maintainers" lede={`${waiting} scored ${waiting === 1 ? "entry awaits" : "entries await"} approval. Every action is written to the changelog and mirrored on the submission's GitHub issue.`}>
        <form method="post" action="/admin/logout">
          <button className={secondaryButtonClass}>Sign out</button>
        </form>
      </PageHeader>
      <div className="mb-4 flex flex-col gap-2">
        {done ? <Notice>Done: {done}.</Notice> : null}
        {error ? <Notice kind="problem">{error}</Notice> : null}
      </div>
      {rows.length === 0 ? (
        <p>Nothing to review.</p>
      ) : (
        <ScrollTable label="Submissions to review">
          <table className={`${tableClass} min-w-[52rem]`}>
            <caption className="sr-only">Submissions maintainers can act on, those awaiting approval first</caption>
            <thead className={theadClass}>
              <tr>
                <ColumnHeaders labels={["#", "Agent", "State", "Overall", "Updated", "Actions"]} />
              </tr>
            </thead>
            <tbody>
              {rows.map((r) => (
                <tr key={r.id} className={rowClass} data-testid={`review-${r.id}`}>
                  <td className={`${tdClass} tabular-nums`}>{r.id}</td>
                  <td className={tdClass}>
                    <Link href={`/submissions/${r.id}`} className={linkClass}>
                      {r.agent}
                    </Link>
                    {r.source === "github" ? (
                      <a href={r.sourceRef} className={`${linkClass} ml-2 text-xs`} rel="noreferrer">
                        issue
                      </a>
                    ) : null}
                    <SubmitterNote row={r} />
                  </td>
                  <td className={tdClass}>
                    <StateBadge state={r.state} />
                  </td>
                  <td className={`${tdClass} tabular-nums`}>{r.overall === null ? "—" : `${formatScore(r.overall)}${r.complete ? "" : " (incomplete)"}`}</td>
                  <td className={tdClass}>
                    <TimeStamp iso={r.updatedAt} />
                  </td>
                  <td className={tdClass}>
                    <Actions row={r} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollTable>
      )}
      {queue.total > PAGE_SIZE ? (
        <div className="mt-4">
          <Pagination page={queue.page} pageSize={queue.pageSize} total={queue.total} noun="submission" hrefFor={(n) => `/admin${queryString({ page: n > 1 ? n : undefined })}`} />
        </div>
      ) : null}
    </div>
  );
}
