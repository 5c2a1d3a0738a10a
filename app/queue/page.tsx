import type { Metadata } from "next";
import Link from "next/link";
import { maintainerSignedIn } from "@/app/admin/maintainer";
import { plural } from "@/components/common/format";
import { PageHeader, Section } from "@/components/common/page-header";
import { Pagination } from "@/components/common/pagination";
import { StickyFirstColumnTable } from "@/components/common/scroll-table";
import { firstParam, parsePage, queryString, type SearchParams } from "@/components/common/search-params";
import { StateBadge, Tag } from "@/components/common/state-badge";
import { stickyRowHeadClass } from "@/components/common/sticky-column";
import { linkClass, rowClass, tdClass } from "@/components/common/styles";
import { TimeStamp } from "@/components/common/time-stamp";
import { pageDb } from "@/lib/queries/db";
import { FINISHED_STATES, getFinishedPage, getInFlight, type FinishedState } from "@/lib/queries/queue";
import { InFlightList } from "./in-flight-list";

export const dynamic = "force-dynamic";

export const metadata: Metadata = { title: "Queue" };

const PAGE_SIZE = 50;

const chip = "inline-flex items-center gap-1.5 rounded-full border px-2 py-0.5 text-sm focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-sky-600";
const chipOff = `${chip} border-slate-300 hover:bg-slate-100 dark:border-slate-600 dark:hover:bg-slate-800`;
const chipOn = `${chip} border-sky-600 bg-sky-50 font-medium dark:border-sky-400 dark:bg-sky-950`;

export default async function QueuePage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const params = await searchParams;
  const page = parsePage(firstParam(params, "page"));
  const rawState = firstParam(params, "state");
  const state = FINISHED_STATES.find((s) => s === rawState) as FinishedState | undefined;
  const db = await pageDb();
  const inFlight = await getInFlight(db, new Date());
  const finished = await getFinishedPage(db, { page, pageSize: PAGE_SIZE, state });
  // Only published entries have public pages; maintainers can open every one.
  const maintainer = await maintainerSignedIn();
  const allFinished = FINISHED_STATES.reduce((a, s) => a + (finished.byState[s] ?? 0), 0);
  const href = (values: { state?: string; page?: number }) => `/queue${queryString({ state: values.state, page: values.page && values.page > 1 ? values.page : undefined })}#finished`;

  return (
    <div className="space-y-8">
      <PageHeader
        title="Queue"
        lede={
          <>
            What is waiting and running: a submission is validated when it arrives, then its scoring run waits in line; the worker takes runs in this order, one at a time per worker.
            Finished submissions (scored, published, invalid, rejected…) are listed below. Published entries open on their own page; every change that matters to the board is in the{" "}
            <Link href="/changelog" className={linkClass}>
              changelog
            </Link>
            .
          </>
        }
      />

      <Section
        id="in-flight"
        title={`Waiting and running (${inFlight.total.toLocaleString("en-US")})`}
        description="A running run shows its progress, and an estimate of the time left once it has scored enough items to tell its pace. Waiting runs have no estimate: how long each run ahead takes depends on its bundle and its judge."
      >
        {inFlight.rows.length === 0 ? (
          <p className="text-slate-700 dark:text-slate-300">
            Nothing is waiting: the worker is idle.{" "}
            <Link href="/submit" className={linkClass}>
              How to submit
            </Link>
            .
          </p>
        ) : (
          <InFlightList rows={inFlight.rows} linkAll={maintainer} />
        )}
        {inFlight.total > inFlight.rows.length ? <p className="text-sm text-slate-600 dark:text-slate-400">and {plural(inFlight.total - inFlight.rows.length, "more submission")} further back.</p> : null}
      </Section>

      <Section id="finished" title={`Finished (${allFinished.toLocaleString("en-US")})`}>
        <nav aria-label="Finished submissions by state">
          <ul className="flex flex-wrap items-center gap-2">
            <li>
              <Link href={href({})} className={state ? chipOff : chipOn} aria-current={state ? undefined : "page"}>
                all <span className="tabular-nums">{allFinished}</span>
              </Link>
            </li>
            {FINISHED_STATES.filter((s) => finished.byState[s]).map((s) => (
              <li key={s}>
                <Link href={href({ state: s })} className={state === s ? chipOn : chipOff} aria-current={state === s ? "page" : undefined}>
                  {s} <span className="tabular-nums">{finished.byState[s]}</span>
                </Link>
              </li>
            ))}
          </ul>
        </nav>
        {finished.rows.length === 0 ? (
          <p className="text-slate-700 dark:text-slate-300">None{state ? ` ${state}` : ""} yet.</p>
        ) : (
          <StickyFirstColumnTable
            label="Finished submissions"
            caption={`Finished submissions${state ? ` (${state})` : ""}, most recently updated first`}
            minWidth="min-w-[40rem]"
            first="Agent"
            columns={["State", "Benchmark", "Source", "Updated"]}
          >
            {finished.rows.map((r) => (
              <tr key={r.id} className={rowClass}>
                <th scope="row" className={`${stickyRowHeadClass} font-medium`}>
                  {r.state === "published" || maintainer ? (
                    <Link href={`/submissions/${r.id}`} className={linkClass}>
                      {r.agent}
                    </Link>
                  ) : (
                    <span>{r.agent}</span>
                  )}{" "}
                  <span className="text-xs font-normal text-slate-600 tabular-nums dark:text-slate-400">#{r.id}</span>
                  {r.isDemo ? (
                    <span className="ml-2">
                      <Tag title="A generated demo entry">demo</Tag>
                    </span>
                  ) : null}
                </th>
                <td className={tdClass}>
                  <StateBadge state={r.state} />
                </td>
                <td className={tdClass}>{r.benchmark}</td>
                <td className={tdClass}>{r.source}</td>
                <td className={`${tdClass} whitespace-nowrap`}>
                  <TimeStamp iso={r.updatedAt} />
                </td>
              </tr>
            ))}
          </StickyFirstColumnTable>
        )}
        {finished.total > PAGE_SIZE ? (
          <Pagination page={finished.page} pageSize={finished.pageSize} total={finished.total} noun="submission" hrefFor={(n) => href({ state, page: n })} />
        ) : null}
      </Section>
    </div>
  );
}
