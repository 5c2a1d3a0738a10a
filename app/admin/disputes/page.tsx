import type { Metadata } from "next";
import Link from "next/link";
import { Notice } from "@/components/common/notice";
import { PageHeader } from "@/components/common/page-header";
import { firstParam, type SearchParams } from "@/components/common/search-params";
import { StateBadge, Tag } from "@/components/common/state-badge";
import { buttonClass, controlClass, linkClass, secondaryButtonClass } from "@/components/common/styles";
import { TimeStamp } from "@/components/common/time-stamp";
import { pageDb } from "@/lib/queries/db";
import { disputeCount, DISPUTES_PAGE, getDispute, listDisputes, type DisputeView } from "@/lib/queries/disputes";
import { MAX_DECISION_REASON } from "@/lib/submissions/grade-disputes";
import { maintainerSignedIn } from "../maintainer";
import { SignInNeeded } from "../sign-in-needed";
import { decisionOfForm, disputeMessage } from "./messages";

export const dynamic = "force-dynamic";

export const metadata: Metadata = { title: "Disputed grades", robots: { index: false } };

const gradeText = (outcome: string, score: number | null) => (outcome === "scored" ? `scored ${score?.toFixed(2) ?? "—"}` : outcome);

/** What was asked: the question, the agent's answer, and the private reference or evidence (maintainers only). */
function Asked({ d }: { d: DisputeView }) {
  const r = d.request;
  return (
    <dl className="grid grid-cols-[auto_1fr] gap-x-3 gap-y-1 text-sm">
      {r.question !== null ? (
        <>
          <dt className="font-medium">Question</dt>
          <dd className="break-words whitespace-pre-line">{r.question}</dd>
        </>
      ) : null}
      {r.field !== null ? (
        <>
          <dt className="font-medium">Field</dt>
          <dd className="break-words">{r.field}</dd>
        </>
      ) : null}
      <dt className="font-medium">Answer</dt>
      <dd className="break-words whitespace-pre-line">{r.answer}</dd>
      {r.reference !== null ? (
        <>
          <dt className="font-medium">Reference (private)</dt>
          <dd className="break-words whitespace-pre-line" data-testid="dispute-reference">
            {r.reference}
          </dd>
        </>
      ) : null}
      {r.evidence !== null ? (
        <>
          <dt className="font-medium">Evidence (private)</dt>
          <dd>
            <ol className="list-decimal space-y-1 pl-5">
              {r.evidence.map((e, i) => (
                <li key={i} className="font-mono text-xs break-all whitespace-pre-wrap">
                  {e}
                </li>
              ))}
            </ol>
          </dd>
        </>
      ) : null}
    </dl>
  );
}

function Judges({ d }: { d: DisputeView }) {
  return (
    <ul className="space-y-1 text-sm" aria-label="Each judge's grade">
      {d.members.map((m, i) => (
        <li key={i}>
          <span className="font-medium">{m.judge}</span>: <Tag tone={m.outcome === "fail" ? "warn" : undefined}>{gradeText(m.outcome, m.score)}</Tag> {m.reason}
          {m.detail ? <span className="block pl-4 text-slate-600 dark:text-slate-400">In its words (private): {m.detail}</span> : null}
        </li>
      ))}
    </ul>
  );
}

function Entries({ d }: { d: DisputeView }) {
  return (
    <p className="text-sm">
      Asked by{" "}
      {d.entries.map((e, i) => (
        <span key={`${e.submissionId}-${e.runId}`}>
          {i > 0 ? ", " : ""}
          <Link href={`/submissions/${e.submissionId}`} className={linkClass}>
            {e.agent} (#{e.submissionId})
          </Link>{" "}
          <StateBadge state={e.state} />
          {e.current ? "" : ` (run ${e.runId}, no longer shown)`}
        </span>
      ))}
      {d.entries.length === 0 ? "no entry's run any more" : ""}
    </p>
  );
}

/** The decision form: pass/fail, or a score; it leads to the confirmation (nothing changes yet). */
function DecideForm({ d }: { d: DisputeView }) {
  return (
    <form method="post" action="/admin/disputes/decide" className="flex flex-wrap items-end gap-3">
      <input type="hidden" name="key" value={d.key} />
      {d.passFail ? (
        <fieldset className="flex gap-3 text-sm">
          <legend className="sr-only">Decision</legend>
          <label className="flex items-center gap-1">
            <input type="radio" name="outcome" value="pass" required /> Pass
          </label>
          <label className="flex items-center gap-1">
            <input type="radio" name="outcome" value="fail" required /> Fail
          </label>
        </fieldset>
      ) : (
        <>
          <input type="hidden" name="outcome" value="scored" />
          <label className="flex flex-col text-sm">
            Score (0 to 1)
            <input name="score" type="number" min={0} max={1} step="any" required className={controlClass} />
          </label>
        </>
      )}
      <button className={secondaryButtonClass} aria-label={`Decide the ${d.kind} grade asked by ${d.entries.map((e) => e.agent).join(", ")}`}>
        Decide…
      </button>
    </form>
  );
}

function DisputeCard({ d }: { d: DisputeView }) {
  return (
    <li className="space-y-3 rounded-md border border-slate-300 px-4 py-3 dark:border-slate-700" data-dispute={d.key}>
      <p className="text-sm">
        <Tag tone="warn">{d.kind}</Tag> {d.benchmark} {d.version}, capability {d.capability}; panel rule {d.rule}; first disputed <TimeStamp iso={d.createdAt} />
      </p>
      <Asked d={d} />
      <Judges d={d} />
      <Entries d={d} />
      {d.decision ? (
        <p className="text-sm">
          <span className="font-medium">{`Decided ${gradeText(d.decision.outcome, d.decision.score)}`}</span> by {d.decision.by}, <TimeStamp iso={d.decision.at} />
          {d.decision.reason ? `: ${d.decision.reason}` : ""}
        </p>
      ) : (
        <DecideForm d={d} />
      )}
    </li>
  );
}

/** The confirmation of a decision, without JavaScript: what it does, then the post that does it. */
function ConfirmDecision({ d, decision }: { d: DisputeView; decision: NonNullable<ReturnType<typeof decisionOfForm>> }) {
  const words = decision.outcome === "scored" ? `a score of ${decision.score.toFixed(2)}` : decision.outcome;
  const published = d.entries.filter((e) => e.state === "published").length;
  return (
    <section id="confirm" aria-labelledby="confirm-title" className="max-w-3xl space-y-4 rounded-md border border-amber-300 bg-amber-50/60 p-4 dark:border-amber-700 dark:bg-amber-950/30">
      <h2 id="confirm-title" className="text-lg font-semibold tracking-tight">
        {`Decide this ${d.kind} grade: ${words}?`}
      </h2>
      <Asked d={d} />
      <Judges d={d} />
      <Entries d={d} />
      <ul className="list-disc space-y-1 pl-5 text-sm">
        <li>{`The ${d.entries.length} run(s) above are aggregated again from their stored items at once${published ? `: ${published} published ${published === 1 ? "entry's" : "entries'"} scores change on the board` : ""}.`}</li>
        <li>Every later submission whose grading asks the same request takes this decision instead of the judges.</li>
        <li>A grade is decided once: this cannot be changed here afterwards. The audit log keeps who decided, when and why; the entries&apos; item pages say the grade was decided by a maintainer (never what the reference is).</li>
      </ul>
      <form method="post" action="/admin/disputes/decide" className="flex flex-col gap-3">
        <input type="hidden" name="key" value={d.key} />
        <input type="hidden" name="outcome" value={decision.outcome} />
        {decision.outcome === "scored" ? <input type="hidden" name="score" value={String(decision.score)} /> : null}
        <input type="hidden" name="confirm" value="open" />
        <label htmlFor="decision-reason" className="text-sm font-medium">
          Why (optional; kept in the audit log for maintainers)
        </label>
        <textarea id="decision-reason" name="reason" maxLength={MAX_DECISION_REASON} rows={3} className={controlClass} />
        <div className="flex flex-wrap gap-2">
          <button className={buttonClass}>{`Decide: ${words}`}</button>
          <Link href="/admin/disputes" className={secondaryButtonClass}>
            Cancel
          </Link>
        </div>
      </form>
    </section>
  );
}

/**
 * Grades a judge panel disagreed on, for maintainers: what was asked (with the private
 * reference and evidence), each judge's grade and words, the entries that asked it, and a
 * decision, confirmed before it is made (docs/judges.md "Disputes and adjudication").
 */
export default async function DisputesPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  if (!(await maintainerSignedIn())) return <SignInNeeded title="Disputed grades" what="Deciding disputed grades" />;
  const params = await searchParams;
  const db = await pageDb();
  const show = firstParam(params, "show") === "decided" ? "decided" : "open";
  const confirmKey = firstParam(params, "confirm");
  const decision = decisionOfForm(firstParam(params, "outcome") ?? "", firstParam(params, "score") ?? "");
  const confirming = confirmKey && /^[0-9a-f]{64}$/.test(confirmKey) ? await getDispute(db, confirmKey) : null;
  const [rows, total] = await Promise.all([listDisputes(db, show), disputeCount(db, show)]);
  const done = firstParam(params, "done") === "decided";
  const error = disputeMessage(firstParam(params, "error"));
  return (
    <div className="space-y-6">
      <PageHeader
        title="Disputed grades"
        lede="Grades the judges of a benchmark's panel disagreed on. Decide one, and every run that asked it is aggregated again; later submissions asking the same grade take your decision."
      >
        <p className="flex flex-wrap items-center gap-x-4 text-sm">
          <Link href="/admin/disputes" className={linkClass} aria-current={show === "open" ? "page" : undefined}>
            Open
          </Link>
          <Link href="/admin/disputes?show=decided" className={linkClass} aria-current={show === "decided" ? "page" : undefined}>
            Decided
          </Link>
          <Link href="/admin" className={linkClass}>
            Back to the review list
          </Link>
        </p>
      </PageHeader>
      {done ? <Notice>Done: the grade was decided and the runs that asked it were aggregated again.</Notice> : null}
      {error ? <Notice kind="problem">{error}</Notice> : null}
      {confirmKey ? (
        confirming && !confirming.decision && decision && (decision.outcome !== "scored") === confirming.passFail ? (
          <ConfirmDecision d={confirming} decision={decision} />
        ) : (
          <Notice kind="problem">{confirming?.decision ? disputeMessage("changed") : confirming ? disputeMessage("decision") : disputeMessage("no-dispute")}</Notice>
        )
      ) : null}
      <section aria-labelledby="list-title" className="space-y-2">
        <h2 id="list-title" className="text-lg font-semibold">{`${show === "open" ? "Open" : "Decided"} (${total})`}</h2>
        {total > rows.length ? (
          <p className="text-sm">{`The ${show === "open" ? "oldest" : "latest"} ${rows.length} of ${total} are shown (at most ${DISPUTES_PAGE} at once); ${show === "open" ? "each one decided makes room for the next" : "older decisions are in the audit log"}.`}</p>
        ) : null}
        {rows.length === 0 ? (
          <p className="text-sm">{show === "open" ? "No grade waits for a decision." : "No grade was decided yet."}</p>
        ) : (
          <ul className="max-w-4xl space-y-4" aria-label={show === "open" ? "Open disputes" : "Decided disputes"}>
            {rows.map((d) => (
              <DisputeCard key={d.key} d={d} />
            ))}
          </ul>
        )}
      </section>
    </div>
  );
}
