import type { Metadata } from "next";
import Link from "next/link";
import { PageHeader } from "@/components/common/page-header";
import { Pagination } from "@/components/common/pagination";
import { StickyFirstColumnTable } from "@/components/common/scroll-table";
import { stickyRowHeadClass } from "@/components/common/sticky-column";
import { firstParam, parseId, parsePage, queryString, type SearchParams } from "@/components/common/search-params";
import { StateBadge } from "@/components/common/state-badge";
import { linkClass, rowClass, tdClass } from "@/components/common/styles";
import { TimeStamp } from "@/components/common/time-stamp";
import { getAuditLogPage } from "@/lib/queries/activity";
import { pageDb } from "@/lib/queries/db";
import { maintainerSignedIn } from "../maintainer";
import { SignInNeeded } from "../sign-in-needed";

export const dynamic = "force-dynamic";

export const metadata: Metadata = { title: "Audit log", robots: { index: false } };

const PAGE_SIZE = 100;


/** Every audit row, internal moves included (maintainers only; the public changelog keeps what readers need). */
export default async function AuditLogPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  if (!(await maintainerSignedIn())) {
    return (
      <SignInNeeded title="Audit log" what="The full audit log">
        {" "}
        The public{" "}
        <Link href="/changelog" className={linkClass}>
          changelog
        </Link>{" "}
        lists what changed on the board.
      </SignInNeeded>
    );
  }
  const params = await searchParams;
  const entry = parseId(firstParam(params, "entry"));
  const log = await getAuditLogPage(await pageDb(), { page: parsePage(firstParam(params, "page")), pageSize: PAGE_SIZE, entry });
  return (
    <div>
      <PageHeader title={entry !== null ? `Audit log of #${entry}` : "Audit log"} lede="Every state change and run event, with who did it and why, newest first. Only maintainers see this page.">
        <p className="flex flex-wrap gap-x-4 text-sm">
          <Link href="/admin" className={linkClass}>
            Back to the review list
          </Link>
          {entry !== null ? (
            <Link href="/admin/log" className={linkClass}>
              Every entry
            </Link>
          ) : null}
        </p>
      </PageHeader>
      {log.rows.length === 0 ? (
        <p>No events.</p>
      ) : (
        <StickyFirstColumnTable label="Audit log" caption="Audit log, newest first" minWidth="min-w-[48rem]" first="Entry" columns={["Change", "Time", "Actor", "Reason"]}>
          {log.rows.map((r, i) => (
            <tr key={i} className={rowClass}>
              <th scope="row" className={`${stickyRowHeadClass} font-normal`}>
                {r.submissionId !== null ? (
                  <Link href={`/admin/log?entry=${r.submissionId}`} className={linkClass}>
                    {r.agent ?? "submission"} (#{r.submissionId})
                  </Link>
                ) : (
                  <span className="text-slate-600 dark:text-slate-400">site</span>
                )}
              </th>
              <td className={`${tdClass} whitespace-nowrap`}>
                {r.toState ? (
                  <span className="flex flex-wrap items-center gap-1.5">
                    {r.fromState ? (
                      <>
                        <span className="text-xs text-slate-600 dark:text-slate-400">{r.fromState}</span>
                        <span aria-hidden="true">→</span>
                        <span className="sr-only">to</span>
                      </>
                    ) : null}
                    <StateBadge state={r.toState} />
                  </span>
                ) : (
                  <span className="font-mono text-xs">{r.action}</span>
                )}
              </td>
              <td className={`${tdClass} whitespace-nowrap`}>
                <TimeStamp iso={r.at} />
              </td>
              <td className={`${tdClass} whitespace-nowrap`}>{r.actor}</td>
              <td className={`${tdClass} max-w-md break-words`}>{r.reason || <span className="text-slate-500 dark:text-slate-400">—</span>}</td>
            </tr>
          ))}
        </StickyFirstColumnTable>
      )}
      {log.total > PAGE_SIZE ? (
        <div className="mt-4">
          <Pagination page={log.page} pageSize={log.pageSize} total={log.total} noun="event" hrefFor={(n) => `/admin/log${queryString({ entry, page: n > 1 ? n : undefined })}`} />
        </div>
      ) : null}
    </div>
  );
}
