import type { Metadata } from "next";
import { ColumnHeaders } from "@/components/common/column-headers";
import Link from "next/link";
import { getQueue } from "@/lib/queries/activity";
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

export default function QueuePage() {
  const rows = getQueue(pageDb());
  const byState = new Map<string, number>();
  for (const r of rows) byState.set(r.state, (byState.get(r.state) ?? 0) + 1);
  const states = [...byState].sort(([a], [b]) => ORDER.indexOf(a) - ORDER.indexOf(b));

  return (
    <div>
      <PageHeader
        title="Submission queue"
        lede="Every submission and where it stands: received → validating → queued → scoring → scored → approved → published (or invalid, error, rejected, withdrawn). Every change is in the changelog."
      >
        {rows.length > 0 ? (
          <ul className="flex flex-wrap items-center gap-2 text-sm" aria-label="Submissions by state">
            <li className="mr-1 text-slate-600 dark:text-slate-400">{plural(rows.length, "submission")}:</li>
            {states.map(([state, n]) => (
              <li key={state} className="flex items-center gap-1">
                <StateBadge state={state} />
                <span className="tabular-nums">{n}</span>
              </li>
            ))}
          </ul>
        ) : null}
      </PageHeader>

      {rows.length === 0 ? (
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
                    <Link href={`/submissions/${r.id}`} className={linkClass}>
                      {r.agent}
                    </Link>
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
    </div>
  );
}
