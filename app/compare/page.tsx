import type { Metadata } from "next";
import Link from "next/link";
import { redirect } from "next/navigation";
import { compareEntries } from "@/lib/queries/compare";
import { publishedIds } from "@/lib/queries/activity";
import { maintainerSignedIn } from "@/app/admin/maintainer";
import { pageDb } from "@/lib/queries/db";
import { getLeaderboard } from "@/lib/queries/leaderboard";
import { Notice } from "@/components/common/notice";
import { PageHeader, Section } from "@/components/common/page-header";
import { listParam, parseId, type SearchParams } from "@/components/common/search-params";
import { linkClass } from "@/components/common/styles";
import { CapabilityComparison } from "@/components/compare/capability-comparison";
import { DomainComparison } from "@/components/compare/domain-comparison";
import { EntryPicker } from "@/components/compare/entry-picker";

export const dynamic = "force-dynamic";

export const metadata: Metadata = { title: "Compare entries" };

export default async function ComparePage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const sp = await searchParams;
  const tokens = listParam(sp, "ids");
  const bad = tokens.filter((t) => parseId(t) === null);
  const ids = [...new Set(tokens.map(parseId).filter((n) => n !== null))];

  // One canonical URL per selection: `?ids=6,3,1` (the form sends `ids=6&ids=3`).
  if (bad.length === 0) {
    const canonical = ids.length ? ids.join(",") : undefined;
    const raw = sp.ids;
    if (Array.isArray(raw) || (raw ?? undefined) !== canonical) redirect(canonical ? `/compare?ids=${canonical}` : "/compare");
  }

  const db = pageDb();
  const published = getLeaderboard(db)?.entries ?? [];
  // Entries that are not published are compared for maintainers only; the public is told no such entry exists.
  const visible = (await maintainerSignedIn()) ? new Set(ids) : publishedIds(db, ids);
  const hidden = ids.filter((id) => !visible.has(id));
  const result = bad.length === 0 && hidden.length === 0 && ids.length > 0 ? compareEntries(db, ids.slice(0, 4)) : null;
  const comparison = result && "entries" in result ? result : null;
  const problem = bad.length
    ? `${bad.slice(0, 4).map((b) => `“${b.slice(0, 40)}”`).join(", ")} ${bad.length === 1 ? "is" : "are"} not an entry id; ids are whole numbers such as 3.`
    : hidden.length
      ? `no scored entry with id ${hidden.slice(0, 4).join(", ")}`
      : result && "problem" in result
      ? result.problem
      : null;
  const picker = <EntryPicker entries={published} selected={ids} />;

  return (
    <div className="space-y-8">
      <PageHeader
        title="Compare entries"
        lede="Two to four entries side by side, per capability and per domain. Each entry after the first is tested against the first with a paired bootstrap over the same items."
      />

      {problem ? (
        <Notice kind={ids.length === 1 ? "info" : "problem"} title={ids.length === 1 ? "Choose one more entry" : "These entries can't be compared"}>
          {problem[0]?.toUpperCase()}
          {problem.slice(1)}.
        </Notice>
      ) : null}
      {ids.length > 4 ? <Notice>Only the first four entries are compared: {ids.slice(0, 4).map((i) => `#${i}`).join(", ")}.</Notice> : null}

      {comparison ? (
        <>
          <Section
            id="capabilities"
            title="Per capability"
            description={
              <>
                Score [95% CI] for each entry. Under each entry after the first: its difference from the baseline on the same items (this entry minus the baseline, in points) with the 95%
                paired-bootstrap interval. <strong>Significant</strong> means that interval excludes 0.
              </>
            }
          >
            <CapabilityComparison comparison={comparison} />
          </Section>
          <Section id="domains" title="Per domain">
            <DomainComparison comparison={comparison} />
          </Section>
          <p className="text-sm">
            Details:{" "}
            {comparison.entries.map((e, i) => (
              <span key={e.id}>
                {i > 0 ? " · " : ""}
                <Link href={`/submissions/${e.id}`} className={linkClass}>
                  {e.agent} (#{e.id})
                </Link>
              </span>
            ))}
          </p>
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
