/**
 * Where the items ended in the waterfall (policy → exact match → correctness → groundedness), as
 * a horizontal bar chart drawn on the server. Every waterfall item ends in exactly one row, so the
 * rows add up to the total under them: items that never reached a stage (missing, agent,
 * replay and judge errors, a missing turn) have a row of their own, broken down by outcome.
 * Exact-match passes are not a row: they are the passed items that skipped the correctness judge,
 * said inside the Passed row. Each row that lost points links to its items on the entry's list.
 */
import type { Funnel, SubmissionDetail } from "@/lib/queries/types";
import { formatPercent } from "@/components/common/format";
import { countLabel, outcomeTerm, UNSCORED_STATUSES, type OutcomeId } from "@/lib/scoring/outcome";
import { ScrollTable } from "@/components/common/scroll-table";
import { linkClass } from "@/components/common/styles";

interface Part {
  outcome: OutcomeId;
  n: number;
}

interface Bar {
  key: string;
  label: string;
  hint: string;
  value: number;
  bar: string;
  /** The item list's outcome filter for this row, when one outcome is the row. */
  outcome?: OutcomeId;
  /** The outcomes a row of several is made of, each with its count. */
  parts?: Part[];
}

/**
 * The items that never reached a stage, by outcome: the waterfall capabilities' per-status
 * counts, and a scored item whose last turn had no prediction (`missing_turn`) for the rest.
 */
export function notScoredParts(f: Funnel, capabilities: SubmissionDetail["capabilities"]): Part[] {
  const waterfall = capabilities.filter((c) => c.scorer === "waterfall");
  const parts: Part[] = UNSCORED_STATUSES.map((s) => ({ outcome: s, n: waterfall.reduce((sum, c) => sum + (c.statusCounts[s] ?? 0), 0) }));
  const listed = parts.reduce((sum, p) => sum + p.n, 0);
  // Counts stored without per-status detail (older rows) cannot be split: the row stays whole.
  if (listed > f.notScored) return [];
  parts.push({ outcome: "missing_turn", n: f.notScored - listed });
  return parts.filter((p) => p.n > 0);
}

export function funnelBars(f: Funnel, capabilities: SubmissionDetail["capabilities"] = []): Bar[] {
  const byExact = f.exactPassed;
  const byJudge = Math.max(0, f.passed - f.exactPassed);
  return [
    {
      key: "notScored",
      label: "Never reached a stage",
      hint: `${[...UNSCORED_STATUSES, "missing_turn" as const].map((s) => outcomeTerm(s).label.toLowerCase()).join(", ")}; each counts 0`,
      value: f.notScored,
      bar: "bg-slate-400 dark:bg-slate-500",
      parts: notScoredParts(f, capabilities),
    },
    { key: "policy", label: "Lost at policy", hint: "a tool call broke the item's tool-use policy", value: f.policy, bar: "bg-rose-500 dark:bg-rose-400", outcome: "policy" },
    { key: "correctness", label: "Lost at correctness", hint: "the answer is not the ground-truth answer", value: f.correctnessFailed, bar: "bg-orange-500 dark:bg-orange-400", outcome: "correctness" },
    { key: "groundedness", label: "Lost at groundedness", hint: "right or not, the answer is not supported by the tool responses", value: f.groundednessFailed, bar: "bg-amber-400 dark:bg-amber-300", outcome: "groundedness" },
    {
      key: "passed",
      label: "Passed",
      hint: `scored above 0 at the stage that decided: ${byExact.toLocaleString("en-US")} reproduced every ground-truth tool response (no correctness judge needed), ${byJudge.toLocaleString("en-US")} through the correctness judge`,
      value: f.passed,
      bar: "bg-emerald-600 dark:bg-emerald-400",
    },
  ];
}

function FunnelRow({ bar: b, max, total, itemsHref }: { bar: Bar; max: number; total: number; itemsHref?: (outcome: OutcomeId) => string }) {
  const link = b.outcome && b.value > 0 && itemsHref ? itemsHref(b.outcome) : undefined;
  return (
    <tr className="border-b border-slate-100 last:border-0 dark:border-slate-800/80" data-funnel-row={b.key}>
      <th scope="row" className="w-36 px-3 py-2 text-left align-middle font-medium sm:w-56">
        {link ? (
          <a href={link} className={linkClass}>
            {b.label}
          </a>
        ) : (
          b.label
        )}
        <span className="block text-xs font-normal text-slate-500 dark:text-slate-400">{b.hint}</span>
        {b.parts?.length && itemsHref ? (
          <span className="block text-xs font-normal">
            {b.parts.map((p, i) => (
              <span key={p.outcome}>
                {i ? " · " : ""}
                <a href={itemsHref(p.outcome)} className={linkClass} data-funnel-part={p.outcome}>
                  {countLabel(p.outcome, p.n)}
                </a>
              </span>
            ))}
          </span>
        ) : null}
      </th>
      <td className="px-3 py-2 align-middle">
        <div aria-hidden="true" className="h-5 w-full rounded-sm bg-slate-100 dark:bg-slate-800">
          {b.value > 0 ? <div className={`h-full rounded-sm ${b.bar}`} style={{ width: `${(100 * b.value) / max}%` }} /> : null}
        </div>
        <span className="sr-only">{formatPercent(b.value, total)}</span>
      </td>
      <td className="w-20 px-3 py-2 text-right align-middle whitespace-nowrap tabular-nums sm:w-28">
        <span className="font-semibold" data-funnel-count>
          {b.value.toLocaleString("en-US")}
        </span>{" "}
        <span className="text-xs text-slate-500 dark:text-slate-400" aria-hidden="true">
          {formatPercent(b.value, total)}
        </span>
      </td>
    </tr>
  );
}

/**
 * `trials`: a run of k trials counts item-trials. `evaluatorItems`: items of capabilities scored
 * by an evaluator, which never enter the waterfall (said under the total, so every item is
 * accounted for). `itemsHref`: the entry's item list filtered to an outcome.
 */
export function WaterfallFunnel({
  funnel,
  capabilities = [],
  trials = 1,
  evaluatorItems = 0,
  itemsHref,
}: {
  funnel: Funnel;
  capabilities?: SubmissionDetail["capabilities"];
  trials?: number;
  evaluatorItems?: number;
  itemsHref?: (outcome: OutcomeId) => string;
}) {
  const bars = funnelBars(funnel, capabilities);
  const max = Math.max(1, funnel.total);
  const unit = trials > 1 ? "item-trials" : "items";
  const sum = bars.reduce((n, b) => n + b.value, 0);
  return (
    <div className="space-y-3">
      <ScrollTable label="Funnel chart">
        <table className="w-full border-collapse text-sm">
          <caption className="sr-only">
            Number of {unit} that ended at each stage of the waterfall; the rows add up to {funnel.total}.
          </caption>
          <thead className="sr-only">
            <tr>
              <th scope="col">Ended at</th>
              <th scope="col">Share of {unit}</th>
              <th scope="col">{unit}</th>
            </tr>
          </thead>
          <tbody>
            {bars.map((b) => (
              <FunnelRow key={b.key} bar={b} max={max} total={funnel.total} itemsHref={itemsHref} />
            ))}
          </tbody>
          <tfoot className="border-t-2 border-slate-300 dark:border-slate-700">
            <tr data-funnel-row="total">
              <th scope="row" className="px-3 py-2 text-left font-medium">
                All {unit}
              </th>
              <td className="px-3 py-2 text-xs text-slate-600 dark:text-slate-400">{bars.map((b) => b.value.toLocaleString("en-US")).join(" + ")}</td>
              <td className="px-3 py-2 text-right font-semibold tabular-nums" data-funnel-total>
                {sum.toLocaleString("en-US")}
              </td>
            </tr>
          </tfoot>
        </table>
      </ScrollTable>
      <p className="text-xs text-slate-600 dark:text-slate-400">
        Stages run in order: policy, exact tool response, correctness, groundedness; each {trials > 1 ? "item-trial" : "item"} is counted once, where it ended.
        {trials > 1 ? ` A run of ${trials} trials counts each item once per trial.` : ""}
        {evaluatorItems > 0 ? ` ${evaluatorItems.toLocaleString("en-US")} more ${unit} belong to capabilities scored by an evaluator, not the waterfall (Evaluators, below).` : ""}
      </p>
    </div>
  );
}
