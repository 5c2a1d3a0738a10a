/** The entry's overall score with its interval and a sentence on how it was formed. */
import type { SubmissionDetail } from "@/lib/queries/types";
import { CiBar } from "@/components/common/ci-bar";
import { formatInterval, formatScore } from "@/components/common/format";

export function OverallScore({ overall, capabilities, trials = 1 }: { overall: NonNullable<NonNullable<SubmissionDetail["run"]>["overall"]>; capabilities: SubmissionDetail["capabilities"]; trials?: number }) {
  const missing = capabilities.filter((c) => !c.submitted).map((c) => c.label);
  return (
    <div className="rounded-lg border border-slate-200 p-4 dark:border-slate-800">
      <p className="text-sm text-slate-600 dark:text-slate-400">Overall score</p>
      <p className="mt-1 flex flex-wrap items-baseline gap-x-3">
        <span className="text-4xl font-semibold tabular-nums">{formatScore(overall.score)}</span>
        <span className="text-sm text-slate-600 tabular-nums dark:text-slate-400">95% CI {formatInterval(overall.ciLow, overall.ciHigh)}</span>
      </p>
      <div className="mt-3 max-w-md">
        <CiBar score={overall.score} ciLow={overall.ciLow} ciHigh={overall.ciHigh} />
      </div>
      <p className="mt-3 text-sm text-slate-700 dark:text-slate-300">
        Mean of the {capabilities.length} capability scores{trials > 1 ? `, each the mean over ${trials} trials` : ""}.
        {missing.length > 0 ? ` Partial: ${missing.join(", ")} ${missing.length === 1 ? "was" : "were"} not submitted and count 0.` : " Every capability was submitted."}
      </p>
    </div>
  );
}
