/** Each capability's score with its 95% interval as a bar with whiskers, plus item counts. */
import type { SubmissionDetail } from "@/lib/queries/types";
import { CiBar } from "@/components/common/ci-bar";
import { formatInterval, formatScore } from "@/components/common/format";
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

export function CapabilityScores({ capabilities, trials = 1 }: { capabilities: Cap[]; trials?: number }) {
  return (
    <div>
      <ul className="space-y-3">
        {capabilities.map((c) => (
          <li key={c.id} className="grid gap-1 sm:grid-cols-[13rem_1fr_11rem] sm:items-center sm:gap-4">
            <div>
              <p className="text-sm font-medium">{c.label}</p>
              <p className="text-xs text-slate-500 dark:text-slate-400">{capabilityCounts(c, trials)}</p>
            </div>
            <CiBar score={c.score} ciLow={c.ciLow} ciHigh={c.ciHigh} submitted={c.submitted} />
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
        ))}
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
