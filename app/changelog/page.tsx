import type { Metadata } from "next";
import { ColumnHeaders } from "@/components/common/column-headers";
import Link from "next/link";
import { getChangelogPage, publishedIds } from "@/lib/queries/activity";
import { maintainerSignedIn } from "@/app/admin/maintainer";
import { Pagination } from "@/components/common/pagination";
import { firstParam, parsePage, queryString, type SearchParams } from "@/components/common/search-params";
import { pageDb } from "@/lib/queries/db";
import { PageHeader } from "@/components/common/page-header";
import { ScrollTable } from "@/components/common/scroll-table";
import { StateBadge } from "@/components/common/state-badge";
import { linkClass, rowClass, tableClass, tdClass, theadClass } from "@/components/common/styles";
import { TimeStamp } from "@/components/common/time-stamp";

export const dynamic = "force-dynamic";

export const metadata: Metadata = { title: "Changelog" };

const PAGE_SIZE = 100;

export default async function ChangelogPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const page = parsePage(firstParam(await searchParams, "page"));
  const log = getChangelogPage(pageDb(), { page, pageSize: PAGE_SIZE });
  const rows = log.rows;
  // Only published entries have public pages; maintainers can open every one.
  const maintainer = await maintainerSignedIn();
  const linked = maintainer ? null : publishedIds(pageDb(), rows.flatMap((r) => (r.submissionId === null ? [] : [r.submissionId])));
  return (
    <div>
      <PageHeader
        title="Changelog"
        lede="The public audit log: every state change, rescore, approval, rejection and withdrawal, with who did it and why. Newest first."
      />
      {rows.length === 0 ? (
        <p className="text-slate-700 dark:text-slate-300">No events yet.</p>
      ) : (
        <ScrollTable label="Audit log">
          <table className={`${tableClass} min-w-[46rem]`}>
            <caption className="sr-only">Audit log, newest first</caption>
            <thead className={theadClass}>
              <tr>
                <ColumnHeaders labels={["Time", "Entry", "Actor", "Change", "Reason"]} />
              </tr>
            </thead>
            <tbody>
              {rows.map((r, i) => (
                <tr key={i} className={rowClass}>
                  <td className={`${tdClass} whitespace-nowrap`}>
                    <TimeStamp iso={r.at} />
                  </td>
                  <th scope="row" className={`${tdClass} font-normal whitespace-nowrap`}>
                    {r.submissionId !== null && linked && !linked.has(r.submissionId) ? (
                      <span className="break-words">
                        {r.agent ?? "submission"} (#{r.submissionId})
                      </span>
                    ) : r.submissionId !== null ? (
                      <Link href={`/submissions/${r.submissionId}`} className={linkClass}>
                        {r.agent ?? "submission"} (#{r.submissionId})
                      </Link>
                    ) : (
                      <span className="text-slate-600 dark:text-slate-400">site</span>
                    )}
                  </th>
                  <td className={`${tdClass} whitespace-nowrap`}>{r.actor}</td>
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
                  <td className={`${tdClass} max-w-md break-words`}>{r.reason || <span className="text-slate-500 dark:text-slate-400">—</span>}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollTable>
      )}
      {log.total > PAGE_SIZE ? (
        <div className="mt-4">
          <Pagination page={log.page} pageSize={log.pageSize} total={log.total} noun="event" hrefFor={(n) => `/changelog${queryString({ page: n > 1 ? n : undefined })}`} />
        </div>
      ) : null}
    </div>
  );
}
