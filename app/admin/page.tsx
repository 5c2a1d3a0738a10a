import type { Metadata } from "next";
import Link from "next/link";
import { Notice } from "@/components/common/notice";
import { SelectField } from "@/components/common/select-field";
import { PageHeader } from "@/components/common/page-header";
import { Pagination } from "@/components/common/pagination";
import { firstParam, parseId, parsePage, queryString, type SearchParams } from "@/components/common/search-params";
import { buttonClass, controlClass, linkClass, secondaryButtonClass } from "@/components/common/styles";
import type { SubmissionState } from "@/db/schema";
import { getReviewEntry, getReviewQueuePage, REVIEW_STATES, type ReviewState } from "@/lib/queries/activity";
import { listBenchmarks } from "@/lib/queries/benchmark-info";
import { getGitHubFormNotice } from "@/lib/queries/github-forms";
import { disputeCount } from "@/lib/queries/disputes";
import { pageDb } from "@/lib/queries/db";
import { availableActions, isConfirmedAction } from "@/lib/submissions/review";
import { adminToken } from "./auth";
import { ConfirmAction } from "./confirm-action";
import { maintainerSignedIn } from "./maintainer";
import { adminDoneMessage, adminErrorMessage } from "./messages";
import { ReviewTable } from "./review-table";

export const dynamic = "force-dynamic";

const ALL = { value: "", label: "all" };

export const metadata: Metadata = { title: "Maintainers", robots: { index: false } };

const PAGE_SIZE = 100;

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


/** The list's filters as a plain GET form: works without JavaScript, and the URL keeps them. */
function Filters({ state, benchmark, benchmarks }: { state?: string; benchmark?: string; benchmarks: { slug: string; title: string }[] }) {
  return (
    <form method="get" action="/admin" className="mb-4 flex flex-wrap items-end gap-3 text-sm" aria-label="Filter the list">
      <SelectField id="filter-state" name="state" label="State" value={state ?? ""} options={[ALL, ...REVIEW_STATES.map((s) => ({ value: s, label: s }))]} />
      <SelectField id="filter-benchmark" name="benchmark" label="Benchmark" value={benchmark ?? ""} options={[ALL, ...benchmarks.map((b) => ({ value: b.slug, label: b.title }))]} />
      <button className={secondaryButtonClass}>Filter</button>
      {state || benchmark ? (
        <Link href="/admin" className={linkClass}>
          Clear
        </Link>
      ) : null}
    </form>
  );
}

export default async function AdminPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const params = await searchParams;
  const token = adminToken();
  if (!(await maintainerSignedIn())) {
    return (
      <div>
        <PageHeader title="Maintainers" lede="Sign in with the maintainer token to approve, reject, rescore, withdraw or restore submissions." />
        <SignIn error={adminErrorMessage(firstParam(params, "error")) ?? undefined} enabled={token !== null} />
      </div>
    );
  }
  const db = await pageDb();
  const benchmarks = await listBenchmarks(db);
  const rawState = firstParam(params, "state");
  const state = REVIEW_STATES.find((s) => s === rawState) as ReviewState | undefined;
  const rawBenchmark = firstParam(params, "benchmark");
  const benchmark = benchmarks.find((b) => b.slug === rawBenchmark)?.slug;
  const filters = { state, benchmark };
  const listHref = `/admin${queryString(filters)}`;

  // A reject or withdraw, or the approval of a flagged entry, asked for by link (or by a post without confirmation): confirm it first.
  const rawConfirm = firstParam(params, "confirm");
  const confirmAction = isConfirmedAction(rawConfirm) ? rawConfirm : null;
  const confirmId = parseId(firstParam(params, "id"));
  const confirmRow = confirmAction && confirmId !== null ? await getReviewEntry(db, confirmId) : null;

  const queue = await getReviewQueuePage(db, { page: parsePage(firstParam(params, "page")), pageSize: PAGE_SIZE, ...filters });
  const forms = await getGitHubFormNotice(db);
  const disputes = await disputeCount(db, "open");
  // The URL carries codes only; the words are fixed (messages.ts).
  const done = adminDoneMessage(firstParam(params, "done"));
  const error = adminErrorMessage(firstParam(params, "error"));
  return (
    <div>
      <PageHeader
        title="Maintainers"
        lede={`${queue.waiting} scored ${queue.waiting === 1 ? "entry awaits" : "entries await"} approval${benchmark ? " on this benchmark" : ""}. Every action is written to the audit log (reader-relevant ones to the changelog) and mirrored on the submission's GitHub issue.`}
      >
        <div className="flex flex-wrap items-center gap-3">
          <Link href="/admin/log" className={linkClass}>
            Full audit log
          </Link>
          <Link href="/admin/disputes" className={linkClass}>
            {`Disputed grades (${disputes} open)`}
          </Link>
          <form method="post" action="/admin/logout">
            <button className={secondaryButtonClass}>Sign out</button>
          </form>
        </div>
      </PageHeader>
      <div className="mb-4 flex flex-col gap-2">
        {done ? <Notice>Done: {done}.</Notice> : null}
        {error ? <Notice kind="problem">{error}</Notice> : null}
        {forms ? (
          <Notice kind="problem" title={`Issue forms of ${forms.repo} (read by the worker ${forms.at.slice(0, 16).replace("T", " ")} UTC)`}>
            <ul className="list-disc pl-5">
              {forms.forms.map((f) => (
                <li key={f.path}>
                  <code>{f.path}</code>: {f.problem}
                </li>
              ))}
            </ul>
          </Notice>
        ) : null}
      </div>
      {confirmAction && confirmId !== null ? (
        confirmRow ? (
          <ConfirmAction row={confirmRow} action={confirmAction} allowed={availableActions(confirmRow.state as SubmissionState).includes(confirmAction)} cancelHref={listHref} />
        ) : (
          <Notice kind="problem">There is no submission #{confirmId}.</Notice>
        )
      ) : (
        <>
          <Filters state={state} benchmark={benchmark} benchmarks={benchmarks} />
          {queue.rows.length === 0 ? <p>Nothing to review{state || benchmark ? " in this view" : ""}.</p> : <ReviewTable rows={queue.rows} />}
          {queue.total > PAGE_SIZE ? (
            <div className="mt-4">
              <Pagination page={queue.page} pageSize={queue.pageSize} total={queue.total} noun="submission" hrefFor={(n) => `/admin${queryString({ ...filters, page: n > 1 ? n : undefined })}`} />
            </div>
          ) : null}
        </>
      )}
    </div>
  );
}
