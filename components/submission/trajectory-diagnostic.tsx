/**
 * The deterministic trajectory comparison (the agent's tool calls against the ground truth's):
 * per capability on the detail page, per item on the item page. A diagnostic, not a score.
 */
import type { TrajectoryRow, TrajectoryView } from "@/lib/queries/types";
import { ColumnHeaders } from "@/components/common/column-headers";
import { formatFraction } from "@/components/common/format";
import { ScrollTable } from "@/components/common/scroll-table";
import { rowClass, tableClass, tdClass, theadClass } from "@/components/common/styles";

const maybe = (x: number | null) => (x === null ? "—" : formatFraction(x));

export function TrajectoryTable({ rows }: { rows: TrajectoryRow[] }) {
  return (
    <ScrollTable label="Trajectory diagnostic per capability">
      <table className={`${tableClass} min-w-[36rem]`}>
        <caption className="sr-only">Tool-call comparison with the ground truth, per capability; not part of the ranking</caption>
        <thead className={theadClass}>
          <tr>
            <ColumnHeaders labels={["Capability", "Items", "Trajectory", "Tool names F1", "Parameters F1", "Exact"]} />
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr key={r.capability} className={rowClass}>
              <td className={tdClass}>{r.label}</td>
              <td className={`${tdClass} tabular-nums`}>{r.n}</td>
              <td className={`${tdClass} tabular-nums font-semibold`}>{formatFraction(r.score)}</td>
              <td className={`${tdClass} tabular-nums`}>{formatFraction(r.toolNamesF1)}</td>
              <td className={`${tdClass} tabular-nums`}>{maybe(r.paramsF1)}</td>
              <td className={`${tdClass} tabular-nums`}>{formatFraction(r.exactShare)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </ScrollTable>
  );
}

/** The summary names the expected tools: the query layer leaves it null unless the ground truth is public. */
export function TrajectoryItem({ t }: { t: TrajectoryView }) {
  const facts: [string, string][] = [
    ["Trajectory", formatFraction(t.score)],
    ["Tool names F1", formatFraction(t.toolNamesF1)],
    ["Parameters F1", maybe(t.paramsF1)],
    ["Order", maybe(t.order)],
    ["Same calls as the ground truth", t.exact ? "yes" : "no"],
  ];
  return (
    <div className="text-sm">
      <dl className="grid grid-cols-[auto_1fr] gap-x-4 gap-y-1">
        {facts.map(([k, v]) => (
          <div key={k} className="contents">
            <dt className="text-slate-600 dark:text-slate-400">{k}</dt>
            <dd className="tabular-nums">{v}</dd>
          </div>
        ))}
      </dl>
      {t.summary ? <p className="mt-2 text-slate-700 dark:text-slate-300">{t.summary}</p> : null}
    </div>
  );
}
