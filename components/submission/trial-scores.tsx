/**
 * A bundle of k trials on its entry page: each trial's overall and capability scores, their mean
 * (the entry's score), the spread from one run to the next (sample sd) and pass^k, the share of
 * items solved in all k trials. A table a phone scrolls sideways, with the row names in view.
 */
import type { TrialStats } from "@/lib/aggregate/trials";
import type { SubmissionDetail } from "@/lib/queries/types";
import { formatScore } from "@/components/common/format";
import { ScrollTable } from "@/components/common/scroll-table";
import { rowClass, tableClass, tdClass, thClass, theadClass } from "@/components/common/styles";

type Cap = Pick<SubmissionDetail["capabilities"][number], "id" | "label" | "submitted" | "score">;

interface Props {
  stats: TrialStats;
  /** The entry's overall score: the mean over trials. */
  overall: number;
  capabilities: Cap[];
}

const notSubmitted = (
  <>
    <span aria-hidden="true">—</span>
    <span className="sr-only">not submitted</span>
  </>
);

export function TrialScores({ stats, overall, capabilities }: Props) {
  const k = stats.k;
  const num = (v: number | null, submitted = true) => (!submitted ? notSubmitted : v === null ? "—" : formatScore(v));
  const rowHead = `${thClass} sticky left-0 z-10 bg-white text-left font-medium whitespace-nowrap dark:bg-slate-950`;
  const rows: { key: string; label: string; note?: string; overall: number | null; cap: (c: Cap) => number | null; strong?: boolean }[] = [
    ...Array.from({ length: k }, (_, t) => ({ key: `t${t + 1}`, label: `Trial ${t + 1}`, overall: stats.overall.perTrial[t] ?? null, cap: (c: Cap) => stats.capabilities[c.id]?.perTrial[t] ?? null })),
    { key: "mean", label: "Mean", note: "the entry's score", overall, cap: (c: Cap) => c.score, strong: true },
    { key: "sd", label: "SD across trials", note: "sample standard deviation", overall: stats.overall.sd, cap: (c: Cap) => stats.capabilities[c.id]?.sd ?? null },
    { key: "passk", label: `pass^${k}`, note: `solved in all ${k} trials`, overall: stats.overall.passK, cap: (c: Cap) => stats.capabilities[c.id]?.passK ?? null, strong: true },
  ];
  return (
    <div className="space-y-2">
      <ScrollTable label="Scores per trial">
        <table className={tableClass} data-trials={k}>
          <caption className="sr-only">Each trial&apos;s overall and capability scores (0-100), their mean (the entry&apos;s score), standard deviation across trials and pass^{k}.</caption>
          <thead className={theadClass}>
            <tr>
              <th scope="col" className={`${thClass} sticky left-0 z-10 bg-white dark:bg-slate-950`}>
                <span className="sr-only">Row</span>
              </th>
              <th scope="col" className={`${thClass} text-right`}>
                Overall
              </th>
              {capabilities.map((c) => (
                <th key={c.id} scope="col" className={`${thClass} text-right`}>
                  {c.label}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={r.key} data-row={r.key} className={`${rowClass} ${r.key === "mean" ? "border-t-2 border-t-slate-300 dark:border-t-slate-700" : ""}`}>
                <th scope="row" className={rowHead}>
                  {r.label}
                  {r.note ? <span className="block text-xs font-normal text-slate-500 dark:text-slate-400">{r.note}</span> : null}
                </th>
                <td className={`${tdClass} text-right tabular-nums ${r.strong ? "font-semibold" : ""}`}>{num(r.overall)}</td>
                {capabilities.map((c) => (
                  <td key={c.id} className={`${tdClass} text-right tabular-nums ${r.strong ? "font-semibold" : ""}`}>
                    {num(r.cap(c), c.submitted)}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </ScrollTable>
      <p className="text-xs text-slate-600 dark:text-slate-400">
        Each trial is scored as a run of its own; the entry&apos;s scores are their mean, and its intervals resample items and, within each item, its trials. pass^{k}: the weighted share of items with full marks in every one of the {k} trials (a capability not submitted counts 0 in the overall).
      </p>
    </div>
  );
}
