import { PanelAgreementTable } from "@/components/submission/panel-grades";
import type { Metadata } from "next";
import { Breadcrumb } from "@/components/common/breadcrumb";
import { notFound, redirect } from "next/navigation";
import { pageDb } from "@/lib/queries/db";
import { getSubmission, submissionHeading } from "@/lib/queries/submission";
import { listItems, lostPointCounts } from "@/lib/queries/item-list";
import { entryBundle } from "@/lib/queries/entry-bundle";
import { boardHref, entryRank, type EntryRank } from "@/lib/queries/entry-rank";
import { entryAccess } from "@/lib/queries/visibility";
import { maintainerSignedIn } from "@/app/admin/maintainer";
import { PrivateEntryNotice, TruncationNotice } from "@/components/submission/render-notices";
import { Notice } from "@/components/common/notice";
import { Section } from "@/components/common/page-header";
import { Pagination } from "@/components/common/pagination";
import { ProgressMeter } from "@/components/common/progress-meter";
import { firstParam, parseId, type SearchParams } from "@/components/common/search-params";
import { linkClass } from "@/components/common/styles";
import { CapabilityScores, type LostPointsLink } from "@/components/submission/capability-scores";
import { entryTrail } from "@/components/submission/entry-trail";
import type { BundleOffer } from "@/components/submission/reproducibility";
import { CostSummary } from "@/components/submission/cost-summary";
import { DomainHeatmap } from "@/components/submission/domain-heatmap";
import { ItemFilterForm } from "@/components/submission/item-filters";
import { describeItemList, itemFiltersFrom, itemQuery, itemQueryValues } from "@/components/submission/item-query";
import { ItemTable } from "@/components/submission/item-table";
import { OverallScore } from "@/components/submission/overall-score";
import { Reproducibility } from "@/components/submission/reproducibility";
import { StatusTimeline } from "@/components/submission/status-timeline";
import { SubmissionBadges } from "@/components/submission/submission-badges";
import { SubmissionMeta } from "@/components/submission/submission-meta";
import { ValidationErrors } from "@/components/submission/validation-errors";
import { EvaluatorTable } from "@/components/submission/evaluation-result";
import { IntegritySection } from "@/components/submission/integrity-section";
import { TrajectoryTable } from "@/components/submission/trajectory-diagnostic";
import { TrialScores } from "@/components/submission/trial-scores";
import { WaterfallFunnel } from "@/components/submission/waterfall-funnel";

export const dynamic = "force-dynamic";

interface Props {
  params: Promise<{ id: string }>;
  searchParams: Promise<SearchParams>;
}

/** The entry, if this viewer may see it: published entries for everyone, the rest for maintainers only. */
async function load(raw: string, sp: SearchParams) {
  const id = parseId(raw);
  const maintainer = await maintainerSignedIn();
  const db = await pageDb();
  const access = await entryAccess(db, id, { maintainer, wantsFull: firstParam(sp, "full") === "1" });
  const detail = access && id !== null ? await getSubmission(db, id, { limits: access.limits }) : null;
  return detail && access ? { detail, access, maintainer } : null;
}

/** "Rank =2 of 7": the official rank the entry's board shows, ties marked as the board marks them. */
function RankLine({ rank, benchmark }: { rank: EntryRank; benchmark: string }) {
  return (
    <p className="text-sm" data-entry-rank={rank.rank}>
      <span className="font-semibold">
        Rank {rank.sharedBy > 1 ? "=" : ""}
        {rank.rank}
      </span>{" "}
      of {rank.of} on the{" "}
      <a href={rank.boardHref} className={linkClass}>
        {benchmark} leaderboard
      </a>
      {rank.sharedBy > 1 ? <span className="text-slate-600 dark:text-slate-400"> (tied with {rank.sharedBy - 1} other{rank.sharedBy === 2 ? "" : "s"}: no significant difference)</span> : null}
    </p>
  );
}

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const id = parseId((await params).id);
  const db = await pageDb();
  const access = await entryAccess(db, id, { maintainer: await maintainerSignedIn() });
  const heading = access && id !== null ? await submissionHeading(db, id) : null;
  return { title: heading ? `${heading.agent} · ${heading.benchmark}` : "Entry not found", robots: heading && access?.state !== "published" ? { index: false } : undefined };
}

export default async function SubmissionPage({ params, searchParams }: Props) {
  const sp = await searchParams;
  const found = await load((await params).id, sp);
  if (!found) notFound();
  const { detail, access, maintainer } = found;
  const filters = itemFiltersFrom(sp);

  const run = detail.run;
  const base = `/submissions/${detail.id}`;
  // One URL per page size: a size the list does not offer (an old `size=300` link) goes to the one it is read as.
  const size = firstParam(sp, "size");
  if (size !== undefined && size !== String(itemQueryValues(filters).size ?? "")) redirect(`${base}${itemQuery(filters, { full: access.full ? 1 : undefined }, { page: true })}`);
  const db = await pageDb();
  const completed = run?.status === "completed";
  const items = run ? await listItems(db, run.id, filters, { showGroundTruth: detail.benchmark.showGroundTruth, completed }) : null;
  const version = detail.benchmark.versions[0] ?? detail.benchmark.version;
  const published = access.state === "published";
  const rank = published ? await entryRank(db, { id: detail.id, benchmark: detail.benchmark.slug, version }) : null;
  const trail = entryTrail(access.state, { href: boardHref(detail.benchmark.slug, version), title: detail.benchmark.title });
  const lost = run && completed ? await lostPointCounts(db, run.id, { completed }) : [];
  const lostLinks: Record<string, LostPointsLink> = {};
  for (const l of lost) lostLinks[l.capability] = { href: `${base}${itemQuery({ capability: l.capability })}#items`, n: (lostLinks[l.capability]?.n ?? 0) + l.n };
  const downloadable = published ? await entryBundle(db, detail.id) : null;
  const bundle: BundleOffer = downloadable ? { href: `/api/submissions/${detail.id}/bundle`, kind: downloadable.kind } : published && detail.manifest ? "off" : null;
  const evaluatorItems = detail.capabilities.filter((c) => c.scorer !== "waterfall").reduce((n, c) => n + c.nItems, 0);
  const capabilityLabels = Object.fromEntries(detail.capabilities.map((c) => [c.id, c.label]));
  const running = run && (run.status === "queued" || run.status === "running");
  const waiting = !run && (detail.state === "queued" || detail.state === "scoring" || detail.state === "validating" || detail.state === "received");
  const invalid = detail.state === "invalid";
  const scored = run?.status === "completed" && !invalid;
  const pageHref = (page: number) => `${base}${itemQuery(filters, { page: page > 1 ? page : undefined, full: access.full ? 1 : undefined })}#items`;
  // A page past the end (an old link after filters changed) goes to the last page.
  if (items && items.total > 0 && items.rows.length === 0) redirect(pageHref(Math.ceil(items.total / items.pageSize)));

  return (
    <article className="space-y-8">
      <header className="space-y-3">
        <Breadcrumb trail={[trail]} current={`${published ? "Entry" : "Submission"} #${detail.id}`} />
        <h1 className="text-2xl font-semibold tracking-tight break-words">{detail.agent}</h1>
        {rank ? <RankLine rank={rank} benchmark={detail.benchmark.title} /> : null}
        <SubmissionBadges detail={detail} />
        {access.state !== "published" ? <PrivateEntryNotice state={access.state} /> : null}
        <TruncationNotice truncated={detail.truncated} full={access.full} maintainer={maintainer} fullHref={`${base}${itemQuery(filters, { full: 1 }, { page: true })}`} />
        {detail.description ? <p className="max-w-3xl text-slate-700 dark:text-slate-300">{detail.description}</p> : null}
        <p className="text-sm">
          <a href={`/api/submissions/${detail.id}${access.full ? "?full=1" : ""}`} className={linkClass}>
            This entry as JSON
          </a>
        </p>
      </header>

      <div className="grid gap-8 lg:grid-cols-[minmax(0,1fr)_22rem]">
        <div className="min-w-0 space-y-8">
          {invalid ? (
            <Section id="validation" title="Validation errors" description="The bundle did not pass validation, so it was not scored. Fix these and submit again.">
              {detail.validation ? <ValidationErrors validation={detail.validation} /> : <p className="text-sm">No validation report was stored.</p>}
            </Section>
          ) : null}

          {running || waiting ? (
            <Section id="progress" title="Scoring progress">
              {run ? (
                <ProgressMeter done={run.progressDone} total={run.progressTotal} label={`Scoring run #${run.id}`} />
              ) : (
                <p className="text-sm">Waiting for a worker to pick this submission up.</p>
              )}
              <p className="text-sm text-slate-600 dark:text-slate-400">Scores appear here when the run completes. Reload to update.</p>
            </Section>
          ) : null}

          {detail.state === "error" || run?.status === "failed" ? (
            <Notice kind="problem" title="Scoring failed">
              The last scoring run did not complete; the status timeline says why. A maintainer can rescore it.
            </Notice>
          ) : null}

          {scored ? (
            <>
              {run.overall ? <OverallScore overall={run.overall} capabilities={detail.capabilities} trials={run.trials} /> : null}
              <Section id="capabilities" title="Capability scores">
                <CapabilityScores capabilities={detail.capabilities} trials={run.trials} lost={lostLinks} />
              </Section>
              {run.trials > 1 && run.trialStats && run.overall ? (
                <Section id="trials" title={`Trials (${run.trials})`} description={`The bundle holds ${run.trials} runs of the benchmark: each one's scores, how much they vary from run to run, and pass^${run.trials}, the items solved every time.`}>
                  <TrialScores stats={run.trialStats} overall={run.overall.score} capabilities={detail.capabilities} />
                </Section>
              ) : null}
              <Section id="domains" title="Scores per domain" description="A cell where items lost points opens them in the item list below.">
                <DomainHeatmap capabilities={detail.capabilities} domains={detail.domains} lost={lost} base={base} trials={run.trials} />
              </Section>
              {detail.manifest?.panel ? (
                <Section id="judge-panel" title="Judge panel" description="Each LLM-judged grade was asked of every judge of the benchmark's panel: how often they agreed, per capability. Grades they disagreed on are decided by a maintainer.">
                  <PanelAgreementTable panel={detail.manifest.panel} capabilities={detail.capabilities} />
                </Section>
              ) : null}
              <IntegritySection submissionId={detail.id} integrity={detail.integrity} capabilityLabels={capabilityLabels} />
              {detail.funnel ? (
                <Section id="funnel" title="Waterfall funnel" description="Where each item's scored turn ended in the waterfall; the rows add up to every item the waterfall scored.">
                  <WaterfallFunnel
                    funnel={detail.funnel}
                    capabilities={detail.capabilities}
                    trials={run.trials}
                    evaluatorItems={evaluatorItems}
                    itemsHref={(outcome) => `${base}${itemQuery({ outcome })}#items`}
                  />
                </Section>
              ) : null}
              {detail.evaluators.length > 0 ? (
                <Section id="evaluators" title="Evaluators" description="Capabilities scored by an evaluator (question answering, trajectory, report) instead of the waterfall; their items open on the evaluator's verdict.">
                  <EvaluatorTable rows={detail.evaluators} />
                </Section>
              ) : null}
              {detail.trajectory.length > 0 ? (
                <Section id="trajectory" title="Trajectory diagnostic" description="The agent's tool calls in each item's scored turn against the ground truth's: tool names, parameters and order, compared deterministically. Shown for insight; not part of the ranking.">
                  <TrajectoryTable rows={detail.trajectory} />
                </Section>
              ) : null}
              {detail.manifest ? <Reproducibility manifest={detail.manifest} entryId={detail.id} bundle={bundle} /> : null}
            </>
          ) : null}
        </div>

        <aside className="space-y-8" aria-label="Entry details">
          <Section id="details" title="Details">
            <SubmissionMeta detail={detail} />
          </Section>
          <CostSummary cost={run?.cost ?? null} />
          <Section id="timeline" title="Status timeline">
            <StatusTimeline events={detail.timeline} />
          </Section>
        </aside>
      </div>

      {items && !invalid && items.facets.capabilities.length > 0 ? (
        <Section
          id="items"
          title={filters.lost ? "Items that lost points" : "Items"}
          description={
            filters.lost
              ? "Every item that scored below 1, missing items and errors included, with the question, the agent's answer and why. Open one for each stage's verdict and its tool calls."
              : "Every ground-truth item of the run. Open one for each stage's verdict and its tool calls."
          }
        >
          <ItemFilterForm action={base} facets={items.facets} filters={filters} capabilityLabels={capabilityLabels} />
          <p className="text-sm text-slate-700 dark:text-slate-300" aria-live="polite">
            {items.total.toLocaleString("en-US")} {describeItemList(filters, filters.capability ? capabilityLabels[filters.capability] : undefined)}
            {filters.lost && items.total === 0 ? (
              <>
                {" "}
                — no item lost points here.{" "}
                <a href={`${base}${itemQuery({ ...filters, lost: false, page: undefined })}#items`} className={linkClass}>
                  Show all items
                </a>
              </>
            ) : null}
          </p>
          <ItemTable
            submissionId={detail.id}
            rows={items.rows}
            trials={Math.max(run?.trials ?? 1, items.facets.trials.length)}
            capabilityLabels={capabilityLabels}
            policyCapabilities={detail.benchmark.capabilities.filter((c) => c.policies).map((c) => c.id)}
            filters={filters}
            base={base}
          />
          <Pagination page={items.page} pageSize={items.pageSize} total={items.total} hrefFor={pageHref} />
        </Section>
      ) : null}
    </article>
  );
}
