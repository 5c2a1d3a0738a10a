/**
 * Capability × domain grid of scores: a table whose cells are shaded by score and print the number.
 * A client component: a benchmark of many domains makes hundreds of cells, which the page then
 * carries once as data instead of a second time as rendered markup in the server-component payload.
 */
"use client";

import type { SubmissionDetail } from "@/lib/queries/types";
import { formatScore } from "@/components/common/format";
import { heatCell } from "@/components/common/heat-scale";
import { HeatLegend } from "@/components/common/heat-legend";
import { ScrollTable } from "@/components/common/scroll-table";
import { tableClass, thClass } from "@/components/common/styles";

export function DomainHeatmap({ capabilities, domains }: { capabilities: SubmissionDetail["capabilities"]; domains: SubmissionDetail["domains"] }) {
  const names = [...new Set(domains.map((d) => d.domain))].sort();
  if (names.length === 0) return <p className="text-sm text-slate-600 dark:text-slate-400">No per-domain scores.</p>;
  const cell = (cap: string, domain: string) => domains.find((d) => d.capability === cap && d.domain === domain);
  return (
    <div className="space-y-2">
      <ScrollTable label="Domain score grid">
        <table className={tableClass}>
          <caption className="sr-only">Score (0-100) of each capability in each domain; the number of items is given in each cell.</caption>
          <thead className="text-xs text-slate-600 dark:text-slate-400">
            <tr>
              <th scope="col" className={thClass}>
                Capability
              </th>
              {names.map((d) => (
                <th key={d} scope="col" className={`${thClass} text-center`}>
                  {d}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {capabilities.map((c) => (
              <tr key={c.id}>
                <th scope="row" className="px-3 py-1 text-left text-sm font-medium">
                  {c.label}
                </th>
                {names.map((d) => {
                  const v = cell(c.id, d);
                  if (!c.submitted || !v) {
                    return (
                      <td key={d} className="border-2 border-white px-3 py-2 text-center text-slate-500 dark:border-slate-950 dark:text-slate-400">
                        <span aria-hidden="true">—</span>
                        <span className="sr-only">not submitted</span>
                      </td>
                    );
                  }
                  const h = heatCell(v.score);
                  return (
                    <td key={d} style={h.style} className={`min-w-16 border-2 border-white px-2 py-2 sm:min-w-20 sm:px-3 text-center tabular-nums dark:border-slate-950 ${h.className}`}>
                      <span className="block font-semibold">{formatScore(v.score)}</span>
                      <span className="block text-[0.7rem]">n={v.nItems}</span>
                    </td>
                  );
                })}
              </tr>
            ))}
          </tbody>
        </table>
      </ScrollTable>
      <HeatLegend />
    </div>
  );
}
