import type { Metadata } from "next";
import Link from "next/link";
import { Notice } from "@/components/common/notice";
import { PageHeader } from "@/components/common/page-header";
import { firstParam, parseId, type SearchParams } from "@/components/common/search-params";
import { StateBadge, Tag } from "@/components/common/state-badge";
import { controlClass, linkClass, secondaryButtonClass } from "@/components/common/styles";
import { TimeStamp } from "@/components/common/time-stamp";
import { getFlagReview, type FlagReview } from "@/lib/queries/integrity";
import { pageDb } from "@/lib/queries/db";
import { FLAG_KIND_LABELS } from "@/lib/scoring/integrity-flags";
import { MAX_CLEARING_REASON } from "@/lib/submissions/review";
import { maintainerSignedIn } from "../maintainer";
import { SignInNeeded } from "../sign-in-needed";
import { clearFlagMessage } from "./messages";

export const dynamic = "force-dynamic";

export const metadata: Metadata = { title: "Integrity flags", robots: { index: false } };

/** One raised flag with its clearing form: the reason is required and kept for maintainers. */
function RaisedFlag({ review, flag, index }: { review: FlagReview; flag: FlagReview["flags"][number]; index: number }) {
  const reasonId = `clear-reason-${index}`;
  return (
    <li className="space-y-2 rounded-md border border-amber-300 bg-amber-50/60 px-3 py-2 dark:border-amber-700 dark:bg-amber-950/30" data-flag={flag.kind}>
      <p className="text-sm">
        <Tag tone="warn">⚑ {FLAG_KIND_LABELS[flag.kind]}</Tag> {flag.message}
      </p>
      <form method="post" action="/admin/flags/clear" className="flex flex-col gap-2">
        <input type="hidden" name="submissionId" value={review.id} />
        <input type="hidden" name="runId" value={review.runId ?? ""} />
        <input type="hidden" name="key" value={flag.key} />
        <label htmlFor={reasonId} className="text-sm font-medium">
          Why it does not hold (required; kept in the audit log)
        </label>
        <textarea id={reasonId} name="reason" required maxLength={MAX_CLEARING_REASON} rows={2} className={controlClass} />
        <button className={`${secondaryButtonClass} self-start`} aria-label={`Clear the ${FLAG_KIND_LABELS[flag.kind]} flag of ${review.agent}`}>
          Clear this flag
        </button>
      </form>
    </li>
  );
}

/**
 * An entry's integrity flags for maintainers: each raised one can be cleared with a reason
 * (it then leaves the public pages, the board's badge and "Hide flagged", and the bot comment);
 * cleared ones stay listed here with who cleared them, when and why.
 */
export default async function FlagsPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  if (!(await maintainerSignedIn())) return <SignInNeeded title="Integrity flags" what="Clearing integrity flags" />;
  const params = await searchParams;
  const id = parseId(firstParam(params, "id"));
  const review = id === null ? null : await getFlagReview(await pageDb(), id);
  const done = firstParam(params, "done") === "cleared";
  const error = clearFlagMessage(firstParam(params, "error"));
  if (!review) {
    return (
      <div>
        <PageHeader title="Integrity flags" />
        <Notice kind="problem">{id === null ? "No submission was given." : `There is no submission #${id}.`}</Notice>
      </div>
    );
  }
  return (
    <div className="space-y-6">
      <PageHeader
        title={`Integrity flags of ${review.agent} (#${review.id})`}
        lede="A flag is a reason to look, not a verdict. Clear one that does not hold, saying why: it leaves the entry's public page, the board's flagged badge and filter, and the bot comment. Later runs of the same bundle keep it cleared; a new bundle is checked afresh."
      >
        <p className="flex flex-wrap items-center gap-x-4 text-sm">
          <StateBadge state={review.state} />
          <Link href={`/submissions/${review.id}#integrity`} className={linkClass}>
            The entry&apos;s page
          </Link>
          <Link href={`/admin/log?entry=${review.id}`} className={linkClass}>
            Its audit log
          </Link>
          <Link href="/admin" className={linkClass}>
            Back to the review list
          </Link>
        </p>
      </PageHeader>
      {done ? <Notice>Done: the flag was cleared.</Notice> : null}
      {error ? <Notice kind="problem">{error}</Notice> : null}
      <section aria-labelledby="raised-title" className="space-y-2">
        <h2 id="raised-title" className="text-lg font-semibold">{`Raised (${review.flags.length})`}</h2>
        {review.flags.length === 0 ? (
          <p className="text-sm">No flag is raised on this entry&apos;s current run.</p>
        ) : (
          <ul className="max-w-3xl space-y-3" aria-label="Raised integrity flags">
            {review.flags.map((f, i) => (
              <RaisedFlag key={f.key} review={review} flag={f} index={i} />
            ))}
          </ul>
        )}
      </section>
      <section aria-labelledby="cleared-title" className="space-y-2">
        <h2 id="cleared-title" className="text-lg font-semibold">{`Cleared (${review.cleared.length})`}</h2>
        {review.cleared.length === 0 ? (
          <p className="text-sm">No flag of this run was cleared.</p>
        ) : (
          <ul className="max-w-3xl space-y-3" aria-label="Cleared integrity flags">
            {review.cleared.map((c) => (
              <li key={c.key} className="space-y-1 rounded-md border border-slate-300 px-3 py-2 text-sm dark:border-slate-700" data-cleared={c.kind}>
                <p>
                  <Tag>{FLAG_KIND_LABELS[c.kind]}, cleared</Tag> <span className="text-slate-600 line-through dark:text-slate-400">{c.message}</span>
                </p>
                <p>
                  <span className="font-medium">Reason:</span> <span className="whitespace-pre-line break-words">{c.reason}</span>
                </p>
                <p className="text-xs text-slate-600 dark:text-slate-400">
                  By {c.by}, <TimeStamp iso={c.at} />
                </p>
              </li>
            ))}
          </ul>
        )}
      </section>
    </div>
  );
}
