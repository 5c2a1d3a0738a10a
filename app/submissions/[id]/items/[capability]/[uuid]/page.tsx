import type { Metadata } from "next";
import { Breadcrumb } from "@/components/common/breadcrumb";
import Link from "next/link";
import { notFound } from "next/navigation";
import type { ReactNode } from "react";
import { pageDb } from "@/lib/queries/db";
import { loadItemGroundTruth } from "@/lib/queries/item-ground-truth";
import { getItem, getSubmission } from "@/lib/queries/submission";
import { Section } from "@/components/common/page-header";
import { firstParam, parseId, type SearchParams } from "@/components/common/search-params";
import { entryAccess } from "@/lib/queries/visibility";
import { maintainerSignedIn } from "@/app/admin/maintainer";
import { PrivateEntryNotice, TruncationNotice } from "@/components/submission/render-notices";
import { codeClass, linkClass } from "@/components/common/styles";
import { AgentTurn, GroundTruth } from "@/components/submission/agent-turn";
import { EvaluationItem } from "@/components/submission/evaluation-result";
import { TrajectoryItem } from "@/components/submission/trajectory-diagnostic";
import { ItemScore } from "@/components/submission/item-table";
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
  const { uuid } = await params;
  return { title: `Item ${decode(uuid).slice(0, 8)}`, robots: { index: false } };
}

function Fact({ term, children }: { term: string; children: ReactNode }) {
  return (
    <div>
      <dt className="text-xs text-slate-600 dark:text-slate-400">{term}</dt>
      <dd className="text-sm font-medium">{children}</dd>
    </div>
  );
}

export default async function ItemPage({ params, searchParams }: Props) {
  const p = await params;
  const sp = await searchParams;
  const id = parseId(p.id);
  const capability = decode(p.capability);
  const uuid = decode(p.uuid);
  const db = pageDb();
  // Unpublished entries are for maintainers only: the public gets the same 404 as for no entry.
  const maintainer = await maintainerSignedIn();
  const access = entryAccess(db, id, { maintainer, wantsFull: firstParam(sp, "full") === "1" });
  const detail = access && id !== null ? getSubmission(db, id, { limits: access.limits }) : null;
  if (!access || !detail?.run) notFound();
  const item = getItem(db, detail.run.id, capability, uuid, { showGroundTruth: detail.benchmark.showGroundTruth, limits: access.limits });
  if (!item) notFound();
  const here = `/submissions/${detail.id}/items/${encodeURIComponent(item.capability)}/${encodeURIComponent(item.uuid)}`;
  const truth = await loadItemGroundTruth(db, detail.id, capability, uuid);
  const cap = detail.capabilities.find((c) => c.id === item.capability);
  const capLabel = cap?.label ?? item.capability;
  // Items of evaluator capabilities (qa, trajectory, report) have no waterfall, no policy and no replay.
  const evaluated = item.scorer !== "waterfall";
  // The query layer already dropped the private detail unless the ground truth is public.
  const note = [item.reason, item.detail].filter(Boolean).join(" — ");
  const back = `/submissions/${detail.id}?capability=${encodeURIComponent(item.capability)}#items`;

  return (
    <article className="space-y-8">
      <header className="space-y-3">
        <Breadcrumb
          trail={[
            { href: "/queue", label: "Queue" },
            { href: `/submissions/${detail.id}`, label: `${detail.agent} (#${detail.id})` },
            { href: back, label: "Items" },
          ]}
          current={item.uuid.slice(0, 8)}
        />
        <h1 className="text-2xl font-semibold tracking-tight">
          Item <span className="font-mono text-xl break-all">{item.uuid}</span>
        </h1>
        <dl className="grid grid-cols-2 gap-4 rounded-lg border border-slate-200 p-4 sm:grid-cols-4 lg:grid-cols-7 dark:border-slate-800">
          <Fact term="Capability">{capLabel}</Fact>
          <Fact term="Domain">{item.domain}</Fact>
          <Fact term={evaluated ? "Scored by" : "Ended at"}>{item.stage}</Fact>
          <Fact term="Status">{item.status}</Fact>
          {item.policy === null ? null : <Fact term="Policy">{item.policy}</Fact>}
          <Fact term="Weight">×{item.weight}</Fact>
          <Fact term="Score">
            <ItemScore score={item.score} status={item.status} />
          </Fact>
        </dl>
        {access.state !== "published" ? <PrivateEntryNotice state={access.state} /> : null}
        <TruncationNotice truncated={item.truncated} full={access.full} maintainer={maintainer} fullHref={`${here}?full=1`} />
        {note ? (
          <p className="text-sm">
            <span className="text-slate-600 dark:text-slate-400">Note: </span>
            {note}
          </p>
        ) : null}
      </header>

      {evaluated ? (
        <Section id="evaluation" title="Evaluator verdict" description="This capability is scored by an evaluator instead of the waterfall.">
          {item.evaluation ? <EvaluationItem e={item.evaluation} /> : <p className="text-sm text-slate-600 dark:text-slate-400">The evaluator did not run: {item.reason || "no output"}.</p>}
        </Section>
      ) : (
        <Section id="verdicts" title="Waterfall verdicts" description="Each stage in the order it ran; a stage that did not need to run says why it was skipped.">
          <VerdictList verdicts={item.verdicts} />
        </Section>
      )}
      {item.trajectory ? (
        <Section id="trajectory" title="Trajectory diagnostic" description="This turn's tool calls against the ground truth's, compared deterministically; not part of the score.">
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
        <Link href={back} className={linkClass}>
          ← All {capLabel} items of {detail.agent}
        </Link>{" "}
        · <span className={codeClass}>{item.capability}</span>
      </p>
    </article>
  );
}
