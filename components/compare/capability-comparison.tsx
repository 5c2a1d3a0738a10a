/**
 * Entries side by side per capability (score, 95% interval, bar with whiskers) and, for every
 * entry after the first, the paired bootstrap difference against the first on the same items.
 */
import type { Comparison, PairedComparison, ScoreCell } from "@/lib/queries/types";
import { CiBar } from "@/components/common/ci-bar";
import { formatInterval, formatScore, formatSigned } from "@/components/common/format";
import { ScrollTable } from "@/components/common/scroll-table";
import { tableClass, thClass } from "@/components/common/styles";
import { Tag } from "@/components/common/state-badge";

/** The difference as "this entry minus the baseline" (the query reports baseline minus this entry). */
export function PairedDiff({ d, baseline }: { d: PairedComparison; baseline: string }) {
  const diff = -d.diff;
  return (
    <p className="mt-1.5 text-xs">
      <span className="tabular-nums">
        {formatSigned(diff)} vs {baseline} <span className="text-slate-600 dark:text-slate-400">[{formatSigned(-d.ciHigh)}, {formatSigned(-d.ciLow)}]</span>
      </span>{" "}
      {d.significant ? <Tag tone={diff > 0 ? "good" : "warn"}>significant</Tag> : <Tag>not significant</Tag>}
    </p>
  );
}

function Cell({ cell }: { cell: ScoreCell | undefined }) {
  if (!cell?.submitted) {
    return <p className="text-sm text-slate-600 dark:text-slate-400">— not submitted</p>;
  }
  return (
    <>
      <p className="text-sm tabular-nums">
        <span className="font-semibold">{formatScore(cell.score)}</span> <span className="text-slate-600 dark:text-slate-400">[{formatInterval(cell.ciLow, cell.ciHigh)}]</span>
      </p>
      <div className="mt-1">
        <CiBar score={cell.score} ciLow={cell.ciLow} ciHigh={cell.ciHigh} size="sm" />
      </div>
    </>
  );
}

export function CapabilityComparison({ comparison }: { comparison: Comparison }) {
  const { entries, benchmark, differences } = comparison;
  const base = entries[0];
  if (!base) return null;
  const rows = [...benchmark.capabilities.map((c) => ({ id: c.id, label: c.label })), { id: "overall", label: "Overall" }];
  return (
    <ScrollTable label="Capability comparison table">
      <table className={`${tableClass} table-fixed`} style={{ minWidth: `${8 + entries.length * 11}rem` }}>
        <caption className="sr-only">
          Score and 95% confidence interval of each entry per capability; for entries after the first, the paired bootstrap difference from {base.agent} with its 95% interval.
        </caption>
        <thead className="border-b border-slate-300 text-sm dark:border-slate-700">
          <tr>
            <th scope="col" className={`${thClass} w-32 sm:w-44`}>
              Capability
            </th>
            {entries.map((e, i) => (
              <th key={e.id} scope="col" className={thClass}>
                {e.agent} <span className="font-normal text-slate-500 dark:text-slate-400">#{e.id}</span>
                {i === 0 ? <span className="block text-xs font-normal text-slate-600 dark:text-slate-400">baseline</span> : null}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr key={r.id} className={`border-b border-slate-100 dark:border-slate-800/80 ${r.id === "overall" ? "bg-slate-50 dark:bg-slate-900" : ""}`}>
              <th scope="row" className="px-3 py-3 text-left align-top text-sm font-medium">
                {r.label}
              </th>
              {entries.map((e, i) => {
                const cell = r.id === "overall" ? e.overall : e.capabilities[r.id];
                const d = i === 0 ? undefined : differences.find((x) => x.b === e.id && x.scope === r.id);
                return (
                  <td key={e.id} className="px-3 py-3 align-top">
                    <Cell cell={cell} />
                    {d ? <PairedDiff d={d} baseline={`#${base.id}`} /> : null}
                  </td>
                );
              })}
            </tr>
          ))}
        </tbody>
      </table>
    </ScrollTable>
  );
}
