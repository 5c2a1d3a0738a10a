/** Entries side by side per capability and domain, cells shaded by score with the number printed. */
import type { Comparison } from "@/lib/queries/types";
import { ColumnHeaders } from "@/components/common/column-headers";
import { formatScore } from "@/components/common/format";
import { heatCell } from "@/components/common/heat-scale";
import { HeatLegend } from "@/components/common/heat-legend";
import { ScrollTable } from "@/components/common/scroll-table";
import { tableClass, thClass } from "@/components/common/styles";

export function DomainComparison({ comparison }: { comparison: Comparison }) {
  const { entries, benchmark, domains } = comparison;
  if (domains.length === 0) return <p className="text-sm text-slate-600 dark:text-slate-400">No per-domain scores.</p>;
  return (
    <div className="space-y-2">
      <ScrollTable label="Domain comparison grid">
        <table className={`${tableClass} min-w-[32rem]`}>
          <caption className="sr-only">Score (0-100) of each entry in each domain, grouped by capability.</caption>
          <thead className="border-b border-slate-300 text-sm dark:border-slate-700">
            <tr>
              <ColumnHeaders labels={["Capability", "Domain"]} />
              {entries.map((e) => (
                <th key={e.id} scope="col" className={`${thClass} text-center`}>
                  {e.agent} <span className="font-normal text-slate-500 dark:text-slate-400">#{e.id}</span>
                </th>
              ))}
            </tr>
          </thead>
          {benchmark.capabilities.map((c) => (
            <tbody key={c.id} className="border-b border-slate-200 dark:border-slate-800">
              {domains.map((d, i) => (
                <tr key={d}>
                  {i === 0 ? (
                    <th scope="rowgroup" rowSpan={domains.length} className="px-3 py-2 text-left align-top text-sm font-medium">
                      {c.label}
                    </th>
                  ) : null}
                  <th scope="row" className="px-3 py-1 text-left text-sm font-normal">
                    {d}
                  </th>
                  {entries.map((e) => {
                    const submitted = e.capabilities[c.id]?.submitted ?? false;
                    const v = e.domains[c.id]?.[d];
                    if (!submitted || v === undefined) {
                      return (
                        <td key={e.id} className="border-2 border-white px-3 py-1.5 text-center text-slate-500 dark:border-slate-950 dark:text-slate-400">
                          <span aria-hidden="true">—</span>
                          <span className="sr-only">not submitted</span>
                        </td>
                      );
                    }
                    const h = heatCell(v);
                    return (
                      <td key={e.id} style={h.style} className={`border-2 border-white px-3 py-1.5 text-center font-semibold tabular-nums dark:border-slate-950 ${h.className}`}>
                        {formatScore(v)}
                      </td>
                    );
                  })}
                </tr>
              ))}
            </tbody>
          ))}
        </table>
      </ScrollTable>
      <HeatLegend />
    </div>
  );
}
