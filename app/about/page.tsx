import type { Metadata } from "next";
import { ColumnHeaders } from "@/components/common/column-headers";
import Link from "next/link";
import { findBenchmarkVersion } from "@/lib/queries/benchmark-info";
import { getCalibrations } from "@/lib/queries/calibration";
import type { CalibrationSummary } from "@/lib/queries/types";
import { pageDb } from "@/lib/queries/db";
import { Notice } from "@/components/common/notice";
import { PageHeader, Section } from "@/components/common/page-header";
import { ScrollTable } from "@/components/common/scroll-table";
import { firstParam, type SearchParams } from "@/components/common/search-params";
import { codeClass, linkClass, rowClass, tableClass, tdClass, theadClass } from "@/components/common/styles";

export const dynamic = "force-dynamic";

const benchmarkOf = async (params: SearchParams) => (await findBenchmarkVersion(await pageDb(), firstParam(params, "benchmark")))?.info;

/** "Methodology: <benchmark> v1.0", so a tab or bookmark says which benchmark it explains. */
export async function generateMetadata({ searchParams }: { searchParams: Promise<SearchParams> }): Promise<Metadata> {
  const info = await benchmarkOf(await searchParams);
  return { title: info ? `Methodology: ${info.title.slice(0, 80)} v${info.version.slice(0, 20)}` : "Methodology" };
}

const EVALUATORS: Record<string, string> = {
  qa: "a judge grades the agent's final answer against the reference answer: facts right, none missing, meaning over wording",
  trajectory: "the agent's tool calls are compared with the reference calls (tool names, parameters, order by step, calls of one step as a set); without reference calls, each call is checked against the tool schemas",
  report: "the agent's report is scored field by field along a metrics tree (exact match, token F1, regular expression, non-empty, judge), sections averaging their fields",
};

/** "93% [90, 96]": a share and its interval, in whole percent. */
const percent = (v: number | null, lo: number | null, hi: number | null) => (v === null ? "—" : `${Math.round(100 * v)}%${lo !== null && hi !== null ? ` [${Math.round(100 * lo)}, ${Math.round(100 * hi)}]` : ""}`);
const kappaText = (v: number | null, lo: number | null, hi: number | null) => (v === null ? "κ undefined (one class only)" : `κ ${v.toFixed(2)}${lo !== null && hi !== null ? ` [${lo.toFixed(2)}, ${hi.toFixed(2)}]` : ""}`);

/** How far each judge of this version agrees with the benchmark's labelled cases, and the bar LLM-judged runs must meet. */
function Calibration({ calibrations, minKappa }: { calibrations: CalibrationSummary[]; minKappa: number | null }) {
  if (calibrations.length === 0 && minKappa === null) return null;
  return (
    <Section id="calibration" title="How far the judges agree with people">
      <p className="text-sm">
        The benchmark ships labelled judge cases: answers a person has already graded. A judge is run over them with the prompts it scores with, and its grades are compared with the labels
        (accuracy and Cohen&apos;s κ, which discounts the agreement two raters reach by chance; 95% intervals from 1,000 seeded bootstrap resamples of the cases).
      </p>
      {calibrations.length ? (
        <ul className="list-disc space-y-1 pl-6 text-sm" data-testid="calibrations">
          {calibrations.map((c) => (
            <li key={c.id}>
              <span className="font-mono">{c.judgeId}</span> — agrees with {c.n} labelled case{c.n === 1 ? "" : "s"} {percent(c.accuracy, c.accuracyLow, c.accuracyHigh)}, {kappaText(c.kappa, c.kappaLow, c.kappaHigh)}
              {c.cases > c.n ? <span className="text-slate-600 dark:text-slate-400"> ({c.cases - c.n} score-labelled case{c.cases - c.n === 1 ? "" : "s"} besides)</span> : null}
            </li>
          ))}
        </ul>
      ) : (
        <p className="text-sm">No judge has been calibrated on this version yet.</p>
      )}
      {minKappa !== null ? <p className="text-sm">An entry graded by an LLM judge is published only when that judge, with the same prompts, shows κ ≥ {minKappa.toFixed(2)} here.</p> : null}
    </Section>
  );
}

export default async function AboutPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const db = await pageDb();
  const found = await findBenchmarkVersion(db, firstParam(await searchParams, "benchmark"));
  const info = found?.info;
  if (!found || !info) {
    return (
      <div>
        <PageHeader title="Methodology" />
        <Notice>No benchmark is loaded yet.</Notice>
      </div>
    );
  }
  const weighted = info.capabilities.filter((c) => c.multiSourceWeight !== 1);
  const calibrations = await getCalibrations(db, found.version.id);

  return (
    <div className="max-w-4xl space-y-8">
      <PageHeader title="Methodology" lede={`How ${info.title} v${info.version} is scored. ${info.description}`}>
        {info.versions.length > 1 ? <p className="text-sm text-slate-600 dark:text-slate-400">Versions: {info.versions.join(", ")}.</p> : null}
      </PageHeader>

      <Section id="capabilities" title="Capabilities">
        <ScrollTable label="Capability table">
          <table className={`${tableClass} min-w-[36rem]`}>
            <caption className="sr-only">The capabilities of the benchmark, their bundle folders and item weights</caption>
            <thead className={theadClass}>
              <tr>
                <ColumnHeaders labels={["Capability", "What it tests", "Weights"]} />
              </tr>
            </thead>
            <tbody>
              {info.capabilities.map((c) => (
                <tr key={c.id} className={rowClass}>
                  <th scope="row" className={`${tdClass} font-medium`}>
                    {c.label}
                    <span className="mt-1 block font-mono text-xs font-normal text-slate-600 dark:text-slate-400">{c.directory}/</span>
                  </th>
                  <td className={tdClass}>
                    {c.description || "—"}
                    {c.policies ? <span className="mt-1 block text-xs text-slate-600 dark:text-slate-400">Items carry tool-use policies, checked first.</span> : null}
                    {c.scorer !== "waterfall" ? (
                      <span className="mt-1 block text-xs text-slate-600 dark:text-slate-400">
                        Scored by the {c.scorer} evaluator instead of the waterfall: {EVALUATORS[c.scorer] ?? "see below"}.
                      </span>
                    ) : null}
                  </td>
                  <td className={`${tdClass} whitespace-nowrap`}>{c.multiSourceWeight !== 1 ? `multi-source ×${c.multiSourceWeight}` : "×1"}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollTable>
      </Section>

      <Section id="waterfall" title="The waterfall">
        <p className="text-sm">
          Agentboard never takes submitted numbers. It replays every tool call of the agent against the benchmark&apos;s tool servers and scores the last turn of each dialogue through four
          stages, in order. Each stage leaves a verdict with its reason, judge, cache hit and latency, visible on every item&apos;s page; the compared values are shown only where the benchmark publishes its ground truth.
        </p>
        <ol className="list-decimal space-y-2 pl-6 text-sm">
          <li>
            <strong>Policy</strong> (items that carry one): checked by program. A tool call the policy forbids scores the item 0. Policy text that maps to no rule is reported as unchecked,
            never silently passed.
          </li>
          <li>
            <strong>Exact tool response</strong>: every ground-truth tool response of the turn must be among the last {info.exactMatchWindow} replayed responses, compared as canonical
            JSON. A pass skips the correctness judge and goes straight to groundedness.
            {info.compat === "vakra" ? " This benchmark uses VAKRA compatibility: a turn whose ground truth has no responses passes vacuously." : " A turn whose ground truth has no tool responses does not pass this stage."}
          </li>
          <li>
            <strong>Correctness</strong> (judge): is the answer the ground-truth answer? No scores the item 0.
          </li>
          <li>
            <strong>Groundedness</strong> (judge): is the answer supported by the query and the replayed tool responses? Its verdict is the item&apos;s score.
          </li>
        </ol>
        <p className="text-sm">
          A judge that keeps failing gives the item the status <span className={codeClass}>judge_error</span>, not 0; a run with errors is incomplete and cannot be published until it is
          rescored.
        </p>
      </Section>

      <Calibration calibrations={calibrations} minKappa={info.judgeMinKappa} />

      <Section id="aggregation" title="Weights and scores">
        <ul className="list-disc space-y-2 pl-6 text-sm">
          <li>
            A capability&apos;s score is 100 × Σ wᵢ·sᵢ / Σ wᵢ over all of its ground-truth items. A missing prediction counts 0 (and is counted as missing).
          </li>
          <li>
            Every item weighs 1
            {weighted.length > 0
              ? `, except multi-source items (whose scored turn uses both an API tool and a retriever tool, ${info.retrieverTools.join(", ")}) in ${weighted.map((c) => `${c.label} (×${c.multiSourceWeight})`).join(", ")}.`
              : "."}
          </li>
          <li>
            <strong>Overall</strong> is the plain mean of the {info.capabilities.length} capability scores, equal weights. A capability that was not submitted shows “—” and counts 0, and the
            entry is marked <em>partial</em>.
          </li>
        </ul>
      </Section>

      <Section id="uncertainty" title="What ± means, and how ranks tie">
        <ul className="list-disc space-y-2 pl-6 text-sm">
          <li>
            Every score comes with a <strong>95% confidence interval</strong> from a seeded bootstrap over items: the items are resampled with replacement 1,000 times (within each capability) and the middle 95%
            of the resampled scores is the interval. Shown as [low–high] or as whiskers on the bars.
          </li>
          <li>
            The{" "}
            <Link href="/compare" className={linkClass}>
              compare page
            </Link>{" "}
            tests two entries on the same items with a <strong>paired bootstrap</strong>: the items are resampled as above, both entries are rescored on each resample, and the difference is
            significant when the middle 95% of the resampled differences excludes 0. Pairing cancels the luck of the items both entries share, so two entries whose own intervals overlap can
            still differ significantly.
          </li>
          <li>
            <strong>Rank</strong> = 1 + the number of entries shown better than this one: by that paired test, or through a chain (A significantly better than B, B than this one). Entries
            that share a rank (shown as =2) are never significantly different on the compare page, and when compare calls one entry significantly better, it ranks above. Different ranks do
            not mean a significant difference between those two: open compare for the pair. Sorting the table by another column never renumbers the official rank.
          </li>
        </ul>
      </Section>
    </div>
  );
}
