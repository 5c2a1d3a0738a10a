import type { Metadata } from "next";
import Link from "next/link";
import { redirect } from "next/navigation";
import { comparedHeadlines, compareEntries, pickableEntries } from "@/lib/queries/compare";
import { publishedIds } from "@/lib/queries/activity";
import { maintainerSignedIn } from "@/app/admin/maintainer";
import { listBenchmarks } from "@/lib/queries/benchmark-info";
import { pageDb } from "@/lib/queries/db";
import type { FlipFilters } from "@/lib/queries/types";
import { Notice } from "@/components/common/notice";
import { PageHeader, Section } from "@/components/common/page-header";
import { firstParam, listParam, parseId, parsePage, queryString, type SearchParams } from "@/components/common/search-params";
import { linkClass } from "@/components/common/styles";
import { CapabilityComparison } from "@/components/compare/capability-comparison";
import { DomainComparison } from "@/components/compare/domain-comparison";
import { EntryPicker } from "@/components/compare/entry-picker";
import { ItemFlips, type FlipLinkParams } from "@/components/compare/item-flips";

export const dynamic = "force-dynamic";

/** The URL parameters of this page besides `ids`, in the order links write them. */
const KEPT = ["benchmark", "vs", "capability", "domain", "passed", "page"] as const;

/** A URL of this page; the ids keep their readable commas (`?ids=6,3`). */
function compareHref(values: Parameters<typeof queryString>[0]): string {
  return `/compare${queryString(values).replace(/%2C/gi, ",")}`;
}

/** The ids asked for (valid ones, deduplicated, in order) and the tokens that are not ids. */
function readIds(sp: SearchParams) {
  const tokens = listParam(sp, "ids");
  return { bad: tokens.filter((t) => parseId(t) === null), ids: [...new Set(tokens.map(parseId).filter((n) => n !== null))] };
}

/** The entries among `ids` this viewer may compare: every scored one for maintainers, published ones for the public. */
async function visibleIds(ids: number[]): Promise<Set<number>> {
  return (await maintainerSignedIn()) ? new Set(ids) : await publishedIds(await pageDb(), ids);
}

export async function generateMetadata({ searchParams }: { searchParams: Promise<SearchParams> }): Promise<Metadata> {
  const { ids } = readIds(await searchParams);
  const visible = await visibleIds(ids);
  const names = (await comparedHeadlines(await pageDb(), ids.filter((id) => visible.has(id)))).map((h) => h.agent.slice(0, 60));
  return { title: names.length >= 2 ? `${names.join(" vs ")} · Compare` : "Compare entries" };
}

export default async function ComparePage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const sp = await searchParams;
  const { bad, ids } = readIds(sp);
  const kept = Object.fromEntries(KEPT.map((k) => [k, firstParam(sp, k)]));

  // One canonical URL per selection: `?ids=6,3,1` (the form sends `ids=6&ids=3`); the other parameters stay.
  if (bad.length === 0) {
    const canonical = ids.length ? ids.join(",") : undefined;
    const raw = sp.ids;
    if (Array.isArray(raw) || (raw ?? undefined) !== canonical) redirect(compareHref({ ids: canonical, ...kept }));
  }

  const db = await pageDb();
  const maintainer = await maintainerSignedIn();
  // Entries that are not published are compared for maintainers only; the public is told no such entry exists.
  const visible = await visibleIds(ids);
  const hidden = ids.filter((id) => !visible.has(id));
  const compared = ids.slice(0, 4);
  const flipFilters: FlipFilters = {
    entry: parseId(kept.vs) ?? undefined,
    capability: kept.capability,
    domain: kept.domain,
    passed: parseId(kept.passed) ?? undefined,
    page: parsePage(kept.page),
  };
  const result = bad.length === 0 && hidden.length === 0 && ids.length > 0 ? await compareEntries(db, compared, flipFilters) : null;
  const comparison = result && "entries" in result ? result : null;
  const problem = bad.length
    ? `${bad.slice(0, 4).map((b) => `“${b.slice(0, 40)}”`).join(", ")} ${bad.length === 1 ? "is" : "are"} not an entry id; ids are whole numbers such as 3.`
    : hidden.length
      ? `no scored entry with id ${hidden.slice(0, 4).join(", ")}`
      : result && "problem" in result
        ? result.problem
        : null;

  // The picker shows the benchmark asked for, else the compared entries' one, else the default.
  const firstVisible = (await comparedHeadlines(db, ids.filter((id) => visible.has(id))))[0];
  const pickable = await pickableEntries(db, kept.benchmark ?? comparison?.benchmark.slug ?? firstVisible?.benchmark, { maintainer });
  const benchmarks = await listBenchmarks(db);
  const picker = pickable ? <EntryPicker benchmarks={benchmarks} benchmark={pickable} groups={pickable.groups} selected={ids} /> : <p className="text-sm text-slate-600 dark:text-slate-400">No benchmark has been set up on this board yet.</p>;

  const flipHref = (p: FlipLinkParams) => compareHref({ ids: compared.join(","), vs: p.vs, capability: p.capability, domain: p.domain, passed: p.passed, page: p.page && p.page > 1 ? p.page : undefined });
  const summary = comparison?.flips.find((f) => f.b === comparison.flipPage.b);

  return (
    <div className="space-y-8">
      <PageHeader
        title="Compare entries"
        lede="Two to four entries of one benchmark version side by side. Each entry after the first is tested against the first (the baseline) on the same items with a paired bootstrap of the score difference, per capability and overall: the board ranks entries by this same overall test. Item by item, the items one entry got full marks on and the other did not."
      />

      {problem ? (
        <Notice kind={ids.length === 1 ? "info" : "problem"} title={ids.length === 1 ? "Choose one more entry" : "These entries can't be compared"}>
          {problem[0]?.toUpperCase()}
          {problem.slice(1)}.
        </Notice>
      ) : null}
      {ids.length > 4 ? <Notice>Only the first four entries are compared: {compared.map((i) => `#${i}`).join(", ")}.</Notice> : null}

      {comparison ? (
        <>
          <p className="text-sm text-slate-700 dark:text-slate-300">
            {comparison.benchmark.title} v{comparison.benchmark.version} · details:{" "}
            {comparison.entries.map((e, i) => (
              <span key={e.id}>
                {i > 0 ? " · " : ""}
                <Link href={`/submissions/${e.id}`} className={linkClass}>
                  {e.agent} (#{e.id})
                </Link>
              </span>
            ))}
          </p>
          <Section
            id="capabilities"
            title="Overall and per capability"
            description={
              <>
                Score [95% CI] for each entry: its score and its own interval, as on the board. Under each entry after the first: its difference from the baseline on the same items (this
                entry minus the baseline, in points) with the 95% paired-bootstrap interval (1,000 resamples of the items within each capability, the board&apos;s own seed; the overall is the
                mean of the capability differences on each resample). <strong>Significant</strong> means that interval excludes 0. The overall verdict is the board&apos;s rule: entries
                whose overall difference is significant never share a rank there, the better one ranks above. Two entries&apos; own intervals may overlap while their paired difference is
                significant: on the same items, the luck of the items they share cancels out.
              </>
            }
          >
            <CapabilityComparison comparison={comparison} />
          </Section>
          <Section id="domains" title="Per domain">
            <DomainComparison comparison={{ entries: comparison.entries, benchmark: comparison.benchmark, domains: comparison.domains }} />
          </Section>
          {summary ? (
            <Section
              id="flips"
              title="Per-item flips"
              description={
                <>
                  An item <strong>passes</strong> when it has full marks (score 1); below 1 it <strong>lost points</strong>, including items missing from a run (they count 0). Evaluator
                  scores are fractional, so 0.9 against 0.3 is no flip: the paired bootstrap above weighs such differences. A flip is an item one entry passed and the other did not. The
                  counts show where a difference comes from; they are not a second test (pass/fail alone weighs neither item weights, capabilities nor partial scores, so it could disagree
                  with the score difference above, which is the verdict).
                </>
              }
            >
              <ItemFlips entries={comparison.entries} summary={summary} page={comparison.flipPage} benchmark={comparison.benchmark} domains={comparison.domains} href={flipHref} />
            </Section>
          ) : null}
          <Section id="choose" title="Change the selection">
            {picker}
          </Section>
        </>
      ) : (
        <Section id="choose" title="Choose entries">
          {picker}
        </Section>
      )}
    </div>
  );
}
