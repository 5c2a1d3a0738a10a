import type { Metadata } from "next";
import { ColumnHeaders } from "@/components/common/column-headers";
import Link from "next/link";
import { getQueuePage } from "@/lib/queries/activity";
import { maintainerSignedIn } from "@/app/admin/maintainer";
import { Pagination } from "@/components/common/pagination";
import { firstParam, parsePage, queryString, type SearchParams } from "@/components/common/search-params";
import { pageDb } from "@/lib/queries/db";
import { PageHeader } from "@/components/common/page-header";
import { ProgressMeter } from "@/components/common/progress-meter";
import { ScrollTable } from "@/components/common/scroll-table";
import { StateBadge, Tag } from "@/components/common/state-badge";
import { linkClass, rowClass, tableClass, tdClass, theadClass } from "@/components/common/styles";
import { TimeStamp } from "@/components/common/time-stamp";
import { plural } from "@/components/common/format";

export const dynamic = "force-dynamic";

export const metadata: Metadata = { title: "Submission queue" };

const ORDER = ["received", "validating", "queued", "scoring", "scored", "approved", "published", "invalid", "error", "rejected", "withdrawn"];

const PAGE_SIZE = 50;

export default async function QueuePage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const page = parsePage(firstParam(await searchParams, "page"));
  const queue = getQueuePage(pageDb(), { page, pageSize: PAGE_SIZE });
  const rows = queue.rows;
  // Only published entries have public pages; maintainers can open every one.
  const maintainer = await maintainerSignedIn();
  const states = Object.entries(queue.byState).sort(([a], [b]) => ORDER.indexOf(a) - ORDER.indexOf(b));

  return (
    <div>
      <PageHeader
        title="Submission queue"
        lede="Every submission and where it stands: received → validating → queued → scoring → scored → approved → published (or invalid, error, rejected, withdrawn). Published entries open on their own page; the others are visible to maintainers only. Every change is in the changelog."
      >
        {queue.total > 0 ? (
          <ul className="flex flex-wrap items-center gap-2 text-sm" aria-label="Submissions by state">
            <li className="mr-1 text-slate-600 dark:text-slate-400">{plural(queue.total, "submission")}:</li>
            {states.map(([state, n]) => (
              <li key={state} className="flex items-center gap-1">
                <StateBadge state={state} />
                <span className="tabular-nums">{n}</span>
              </li>
            ))}
          </ul>
        ) : null}
      </PageHeader>

      {queue.total === 0 ? (
        <p className="text-slate-700 dark:text-slate-300">
          Nothing submitted yet. See{" "}
          <Link href="/submit" className={linkClass}>
            how to submit
          </Link>
          .
        </p>
      ) : (
        <ScrollTable label="Submissions">
          <table className={`${tableClass} min-w-[44rem]`}>
            <caption className="sr-only">All submissions, most recently updated first</caption>
            <thead className={theadClass}>
              <tr>
                <ColumnHeaders labels={["#", "Agent", "State", "Progress", "Benchmark", "Source", "Updated"]} />
              </tr>
            </thead>
            <tbody>
              {rows.map((r) => (
                <tr key={r.id} className={rowClass}>
                  <td className={`${tdClass} tabular-nums text-slate-600 dark:text-slate-400`}>{r.id}</td>
                  <th scope="row" className={`${tdClass} font-medium`}>
                    {r.state === "published" || maintainer ? (
                      <Link href={`/submissions/${r.id}`} className={linkClass}>
                        {r.agent}
                      </Link>
                    ) : (
                      <span className="break-words">{r.agent}</span>
                    )}
                    {r.isDemo ? (
                      <span className="ml-2">
                        <Tag title="A generated demo entry">demo</Tag>
                      </span>
                    ) : null}
                  </th>
                  <td className={tdClass}>
                    <StateBadge state={r.state} />
                  </td>
                  <td className={tdClass}>{r.progress ? <ProgressMeter done={r.progress.done} total={r.progress.total} label={`Scoring progress of ${r.agent}`} /> : <span className="text-slate-500 dark:text-slate-400">—</span>}</td>
                  <td className={tdClass}>{r.benchmark}</td>
                  <td className={tdClass}>{r.source}</td>
                  <td className={`${tdClass} whitespace-nowrap`}>
                    <TimeStamp iso={r.updatedAt} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollTable>
      )}
      {queue.total > PAGE_SIZE ? (
        <div className="mt-4">
          <Pagination page={queue.page} pageSize={queue.pageSize} total={queue.total} noun="submission" hrefFor={(n) => `/queue${queryString({ page: n > 1 ? n : undefined })}`} />
        </div>
      ) : null}
    </div>
  );
}
