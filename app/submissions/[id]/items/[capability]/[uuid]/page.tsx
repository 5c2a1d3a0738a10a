import { PanelGrades } from "@/components/submission/panel-grades";
import type { Metadata } from "next";
import { Breadcrumb } from "@/components/common/breadcrumb";
import Link from "next/link";
import { notFound } from "next/navigation";
import type { ReactNode } from "react";
import { pageDb } from "@/lib/queries/db";
import { loadItemGroundTruth } from "@/lib/queries/item-ground-truth";
import { DEFAULT_ITEM_PAGE_SIZE, itemPosition } from "@/lib/queries/item-list";
import { getItem, getSubmission, submissionHeading } from "@/lib/queries/submission";
import { outcomeOf } from "@/lib/scoring/outcome";
import { Section } from "@/components/common/page-header";
import { firstParam, parseId, type SearchParams } from "@/components/common/search-params";
import { entryAccess } from "@/lib/queries/visibility";
import { maintainerSignedIn } from "@/app/admin/maintainer";
import { PrivateEntryNotice, TruncationNotice } from "@/components/submission/render-notices";
import { codeClass, linkClass } from "@/components/common/styles";
import { AgentTurn, GroundTruth } from "@/components/submission/agent-turn";
import { EvaluationItem } from "@/components/submission/evaluation-result";
import { TrajectoryItem } from "@/components/submission/trajectory-diagnostic";
import { itemHref, policyNote } from "@/components/submission/item-href";
import { entryTrail } from "@/components/submission/entry-trail";
import { boardHref } from "@/lib/queries/entry-rank";
import { ItemNav } from "@/components/submission/item-nav";
import { ItemScore, OutcomeText } from "@/components/submission/outcome-text";
import { itemFiltersFrom, itemQuery } from "@/components/submission/item-query";
import { VerdictList } from "@/components/submission/verdict-list";

export const dynamic = "force-dynamic";

interface Props {
  params: Promise<{ id: string; capability: string; uuid: string }>;
  searchParams: Promise<SearchParams>;
}

function decode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const p = await params;
  const id = parseId(p.id);
  const db = await pageDb();
  const access = await entryAccess(db, id, { maintainer: await maintainerSignedIn() });
  const heading = access && id !== null ? await submissionHeading(db, id) : null;
  const uuid = decode(p.uuid);
  const shown = uuid.length > 80 ? `${uuid.slice(0, 79)}…` : uuid;
  return { title: heading ? `${shown} · ${heading.agent} · ${heading.benchmark}` : "Item not found", robots: { index: false } };
}

function Fact({ term, children }: { term: string; children: ReactNode }) {
  return (
    <div className="min-w-0">
      <dt className="text-xs text-slate-600 dark:text-slate-400">{term}</dt>
      <dd className="text-sm font-medium break-words">{children}</dd>
    </div>
  );
}

export default async function ItemPage({ params, searchParams }: Props) {
  const p = await params;
  const sp = await searchParams;
  const id = parseId(p.id);
  const capability = decode(p.capability);
  const uuid = decode(p.uuid);
  const db = await pageDb();
  // Unpublished entries are for maintainers only: the public gets the same 404 as for no entry.
  const maintainer = await maintainerSignedIn();
  const access = await entryAccess(db, id, { maintainer, wantsFull: firstParam(sp, "full") === "1" });
  const detail = access && id !== null ? await getSubmission(db, id, { limits: access.limits }) : null;
  if (!access || !detail?.run) notFound();
  // The list this item was opened from (the table's filter and sort travel in the URL). In a run
  // of k trials, `trial` names the item's trial (1 when absent), and previous/next stay in it.
  const fromUrl = itemFiltersFrom(sp);
  const trials = detail.run.trials;
  const filters = trials > 1 ? { ...fromUrl, trial: fromUrl.trial ?? 1 } : fromUrl;
  const item = await getItem(db, detail.run.id, capability, uuid, { showGroundTruth: detail.benchmark.showGroundTruth, limits: access.limits, trial: filters.trial ?? 1 });
  if (!item) notFound();
  const position = await itemPosition(db, detail.run.id, filters, item);
  const query = itemQuery({ ...filters, page: undefined });
  const entry = `/submissions/${detail.id}`;
  const here = itemHref(detail.id, item);
  const truth = await loadItemGroundTruth(db, detail.id, capability, uuid);
  const cap = detail.capabilities.find((c) => c.id === item.capability);
  const capLabel = cap?.label ?? item.capability;
  const hasPolicies = detail.benchmark.capabilities.find((c) => c.id === item.capability)?.policies ?? false;
  // Items of evaluator capabilities (qa, trajectory, report) have no waterfall, no policy and no replay.
  const evaluated = item.scorer !== "waterfall";
  const outcome = outcomeOf(item);
  const policy = policyNote(item, hasPolicies) ?? (hasPolicies && item.policy === "fail" ? "Policy broken" : null);
  const listPage = position ? Math.ceil(position.index / (filters.pageSize ?? DEFAULT_ITEM_PAGE_SIZE)) : 1;
  const list = `${entry}${itemQuery(filters, { page: listPage > 1 ? listPage : undefined })}#items`;

  return (
    <article className="space-y-8">
      <header className="space-y-3">
        <Breadcrumb
          trail={[
            entryTrail(access.state, { href: boardHref(detail.benchmark.slug, detail.benchmark.versions[0] ?? detail.benchmark.version), title: detail.benchmark.title }),
            { href: entry, label: `${detail.agent} (#${detail.id})` },
            { href: list, label: "Items" },
          ]}
          current={item.uuid}
        />
        <h1 className="text-2xl font-semibold tracking-tight">
          Item <span className="font-mono text-xl break-all">{item.uuid}</span>
        </h1>
        <ItemNav submissionId={detail.id} position={position} filters={filters} query={query} capabilityLabel={filters.capability ? (detail.capabilities.find((c) => c.id === filters.capability)?.label ?? filters.capability) : undefined} list={list} />
        <dl className="grid grid-cols-2 gap-4 rounded-lg border border-slate-200 p-4 sm:grid-cols-3 lg:grid-cols-6 dark:border-slate-800">
          <Fact term="Capability">{capLabel}</Fact>
          <Fact term="Domain">{item.domain}</Fact>
          {trials > 1 ? (
            <Fact term="Trial">
              {item.trial} of {trials}
            </Fact>
          ) : null}
          <Fact term="Outcome">
            <OutcomeText item={item} />
          </Fact>
          <Fact term="Counts as">
            <ItemScore item={item} /> <span className="font-normal text-slate-600 dark:text-slate-400">× weight {item.weight}</span>
          </Fact>
          {policy ? <Fact term="Policy">{policy}</Fact> : null}
          <Fact term={evaluated ? "Scored by" : "Decided by"}>{outcome.term.stage ?? "no stage: the item counts 0"}</Fact>
        </dl>
        {access.state !== "published" ? <PrivateEntryNotice state={access.state} /> : null}
        <TruncationNotice truncated={item.truncated} full={access.full} maintainer={maintainer} fullHref={`${here}${itemQuery(filters, { full: 1 })}`} />
        {item.reason || item.detail ? (
          <div className="space-y-1 text-sm">
            <p>
              <span className="font-medium">Why: </span>
              <span className="break-words">{item.reason || "—"}</span>
            </p>
            {item.detail ? <p className="break-words text-slate-600 dark:text-slate-400">{item.detail}</p> : null}
          </div>
        ) : null}
      </header>

      {evaluated ? (
        <Section id="evaluation" title="Evaluator verdict" description="This capability is scored by an evaluator instead of the waterfall.">
          {item.evaluation ? <EvaluationItem e={item.evaluation} /> : <p className="text-sm text-slate-600 dark:text-slate-400">The evaluator did not run: {item.reason || "no output"}.</p>}
        </Section>
      ) : (
        <Section id="verdicts" title="Waterfall verdicts" description="Each stage in the order it ran; a stage that did not need to run says why it was skipped.">
          {item.verdicts.length === 0 && outcome.term.countsAs === "0" ? (
            <p className="text-sm text-slate-600 dark:text-slate-400">No stage ran: an item with the outcome {outcome.term.label.toLowerCase()} counts 0 without being judged.</p>
          ) : (
            <VerdictList verdicts={item.verdicts} />
          )}
        </Section>
      )}
      {item.panel.length ? (
        <Section id="panel" title="Judge panel" description="This benchmark asks each grade of a panel of judges; where they disagree, a maintainer may decide.">
          <PanelGrades grades={item.panel} />
        </Section>
      ) : null}
      {item.trajectory ? (
        <Section
          id="trajectory"
          title={evaluated ? "Tool calls compared" : "Trajectory diagnostic"}
          description={evaluated ? "The agent's tool calls against the reference calls, call by call: the comparison the trajectory evaluator scored." : "This turn's tool calls against the ground truth's, compared deterministically, call by call; not part of the score."}
        >
          <TrajectoryItem t={item.trajectory} />
        </Section>
      ) : null}

      <Section id="turn" title={evaluated ? "Agent's output" : "Agent's turn"}>
        <AgentTurn item={item} replayed={!evaluated} />
      </Section>

      {truth ? (
        <Section id="ground-truth" title="Ground truth" description="This benchmark publishes its ground truth.">
          <GroundTruth truth={truth} />
        </Section>
      ) : null}

      <p className="text-sm">
        <Link href={list} className={linkClass}>
          ← Back to the items of {detail.agent}
        </Link>{" "}
        · <span className={`${codeClass} break-all`}>{item.capability}</span>
      </p>
    </article>
  );
}
