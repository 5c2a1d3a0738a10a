/**
 * Entries side by side per capability and domain, cells shaded by score with the number printed.
 * Each capability heads its own group of rows, so a phone has only the domain and one narrow
 * column per entry to fit.
 *
 * A client component: the grid's cells (entries × domains, hundreds on a benchmark of many
 * domains) then travel once as data instead of a second time as markup in the page's payload.
 */
"use client";

import type { Comparison } from "@/lib/queries/types";
import { formatScore } from "@/components/common/format";
import { heatCell } from "@/components/common/heat-scale";
import { HeatLegend } from "@/components/common/heat-legend";
import { ScrollTable } from "@/components/common/scroll-table";
import { tableClass, thClass } from "@/components/common/styles";

/** One capability's rows: its label across the table, then a row per domain it has in some entry. */
function CapabilityRows({ capability, entries, domains }: { capability: { id: string; label: string }; entries: Comparison["entries"]; domains: string[] }) {
  const own = domains.filter((d) => entries.some((e) => e.domains[capability.id]?.[d] !== undefined));
  if (own.length === 0) return null;
  return (
    <tbody className="border-b border-slate-200 dark:border-slate-800">
      <tr>
        <th scope="rowgroup" colSpan={entries.length + 1} className="bg-slate-50 px-3 py-1.5 text-left text-sm font-semibold dark:bg-slate-900">
          {capability.label}
        </th>
      </tr>
      {own.map((d) => (
        <tr key={d}>
          <th scope="row" className="px-3 py-1 text-left text-sm font-normal break-words">
            {d}
          </th>
          {entries.map((e) => {
            const submitted = e.capabilities[capability.id]?.submitted ?? false;
            const v = e.domains[capability.id]?.[d];
            if (!submitted || v === undefined) {
              return (
                <td key={e.id} className="border-2 border-white px-2 py-1.5 text-center text-slate-600 dark:border-slate-950 dark:text-slate-400">
                  <span aria-hidden="true">—</span>
                  <span className="sr-only">not submitted</span>
                </td>
              );
            }
            const h = heatCell(v);
            return (
              <td key={e.id} style={h.style} className={`border-2 border-white px-2 py-1.5 text-center font-semibold tabular-nums dark:border-slate-950 ${h.className}`}>
                {formatScore(v)}
              </td>
            );
          })}
        </tr>
      ))}
    </tbody>
  );
}

export function DomainComparison({ comparison }: { comparison: Pick<Comparison, "entries" | "benchmark" | "domains"> }) {
  const { entries, benchmark, domains } = comparison;
  if (domains.length === 0) return <p className="text-sm text-slate-600 dark:text-slate-400">No per-domain scores.</p>;
  return (
    <div className="space-y-2">
      <ScrollTable label="Domain comparison grid">
        <table className={`${tableClass} table-fixed`}>
          <caption className="sr-only">Score (0-100) of each entry in each domain, grouped by capability.</caption>
          <thead className="border-b border-slate-300 text-sm dark:border-slate-700">
            <tr>
              <th scope="col" className={`${thClass} w-[38%] sm:w-56`}>
                Domain
              </th>
              {entries.map((e) => (
                <th key={e.id} scope="col" className={`${thClass} text-center break-words`}>
                  {e.agent} <span className="font-normal text-slate-600 dark:text-slate-400">#{e.id}</span>
                </th>
              ))}
            </tr>
          </thead>
          {benchmark.capabilities.map((c) => (
            <CapabilityRows key={c.id} capability={c} entries={entries} domains={domains} />
          ))}
        </table>
      </ScrollTable>
      <HeatLegend />
    </div>
  );
}
