/** Each capability's score with its 95% interval as a bar with whiskers, plus item counts and a link to where it lost points. */
import type { SubmissionDetail } from "@/lib/queries/types";
import { CiBar } from "@/components/common/ci-bar";
import { formatInterval, formatScore } from "@/components/common/format";
import { linkClass } from "@/components/common/styles";
import { countLabel, statusCountParts } from "@/lib/scoring/outcome";

type Cap = SubmissionDetail["capabilities"][number];

/**
 * "25 items · 4 agent errors · 1 policy unchecked", in the outcome vocabulary, from the stored
 * per-status counts; a run of k trials counts item-trials ("100 item-trials (25 items × 4 trials)").
 */
export function capabilityCounts(c: Pick<Cap, "nItems" | "nMissing" | "nError" | "nPolicyUnchecked" | "statusCounts">, trials = 1): string {
  const parts = [trials > 1 ? `${c.nItems} item-trials (${Math.round(c.nItems / trials)} items × ${trials} trials)` : `${c.nItems} items`];
  const listed = statusCountParts(c.statusCounts);
  // Rows stored without per-status counts still say how many did not score.
  if (listed.length === 0 && (c.nMissing || c.nError)) {
    if (c.nMissing) parts.push(countLabel("missing", c.nMissing));
    if (c.nError) parts.push(`${c.nError} errors`);
  } else parts.push(...listed);
  if (c.nPolicyUnchecked) parts.push(`${c.nPolicyUnchecked} policy unchecked`);
  return parts.join(" · ");
}

/** Where a capability lost points: its lost-points items on the entry's item list, and how many. */
export interface LostPointsLink {
  href: string;
  n: number;
}

/** "12 items lost points" (item-trials in a run of k trials). */
export const lostPointsText = (n: number, trials = 1) => `${n.toLocaleString("en-US")} ${trials > 1 ? "item-trials" : n === 1 ? "item" : "items"} lost points`;

/**
 * Each capability's bar, label and count link to its lost-points items when it lost any (`lost`,
 * by capability id); the label is the link a screen reader meets, the bar repeats it for the pointer.
 */
export function CapabilityScores({ capabilities, trials = 1, lost = {} }: { capabilities: Cap[]; trials?: number; lost?: Record<string, LostPointsLink> }) {
  return (
    <div>
      <ul className="space-y-3">
        {capabilities.map((c) => {
          const link = c.submitted && lost[c.id]?.n ? lost[c.id] : undefined;
          const bar = <CiBar score={c.score} ciLow={c.ciLow} ciHigh={c.ciHigh} submitted={c.submitted} />;
          return (
          <li key={c.id} className="grid gap-1 sm:grid-cols-[13rem_1fr_11rem] sm:items-center sm:gap-4" data-capability={c.id}>
            <div>
              <p className="text-sm font-medium">
                {link ? (
                  <a href={link.href} className={linkClass}>
                    {c.label}
                    <span className="sr-only">: {lostPointsText(link.n, trials)}</span>
                  </a>
                ) : (
                  c.label
                )}
              </p>
              <p className="text-xs text-slate-500 dark:text-slate-400">{capabilityCounts(c, trials)}</p>
              {link ? (
                <p className="text-xs">
                  <a href={link.href} className={linkClass} aria-hidden="true" tabIndex={-1}>
                    {lostPointsText(link.n, trials)} →
                  </a>
                </p>
              ) : null}
            </div>
            {link ? (
              <a href={link.href} aria-hidden="true" tabIndex={-1} title={`${c.label}: ${lostPointsText(link.n, trials)}`} className="block rounded-sm hover:opacity-80" data-lost-bar>
                {bar}
              </a>
            ) : (
              bar
            )}
            <p className="text-sm tabular-nums sm:text-right">
              {c.submitted ? (
                <>
                  <span className="font-semibold">{formatScore(c.score)}</span>
                  <span className="text-slate-600 dark:text-slate-400"> [{formatInterval(c.ciLow, c.ciHigh)}]</span>
                </>
              ) : (
                <span className="text-slate-600 dark:text-slate-400">— not submitted (counts 0)</span>
              )}
            </p>
          </li>
          );
        })}
      </ul>
      <div aria-hidden="true" className="mt-2 hidden text-xs text-slate-500 sm:grid sm:grid-cols-[13rem_1fr_11rem] sm:gap-4 dark:text-slate-400">
        <span />
        <span className="flex justify-between tabular-nums">
          <span>0</span>
          <span>50</span>
          <span>100</span>
        </span>
        <span />
      </div>
      <p className="mt-2 text-xs text-slate-600 dark:text-slate-400">Bar: score out of 100. Whisker and brackets: 95% bootstrap confidence interval.</p>
    </div>
  );
}
