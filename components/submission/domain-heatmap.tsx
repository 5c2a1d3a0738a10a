/**
 * Capability × domain grid of scores: a table whose cells are shaded by score and print the
 * number; a cell where items lost points links to them.
 * A client component: a benchmark of many domains makes hundreds of cells, which the page then
 * carries once as data instead of a second time as rendered markup in the server-component payload.
 */
"use client";

import type { SubmissionDetail } from "@/lib/queries/types";
import type { LostPointCount } from "@/lib/queries/item-list";
import { queryString } from "@/components/common/search-params";
import { lostPointsText } from "./capability-scores";
import { formatScore } from "@/components/common/format";
import { heatCell } from "@/components/common/heat-scale";
import { HeatLegend } from "@/components/common/heat-legend";
import { ScrollTable } from "@/components/common/scroll-table";
import { tableClass, thClass } from "@/components/common/styles";

/**
 * `lost`: items that lost points per capability and domain; a cell with any links to them on the
 * entry's item list (`base`: the entry's path), the whole cell being the link.
 */
export function DomainHeatmap({
  capabilities,
  domains,
  lost = [],
  base,
  trials = 1,
}: {
  capabilities: SubmissionDetail["capabilities"];
  domains: SubmissionDetail["domains"];
  lost?: LostPointCount[];
  base?: string;
  trials?: number;
}) {
  const names = [...new Set(domains.map((d) => d.domain))].sort();
  if (names.length === 0) return <p className="text-sm text-slate-600 dark:text-slate-400">No per-domain scores.</p>;
  const cell = (cap: string, domain: string) => domains.find((d) => d.capability === cap && d.domain === domain);
  const lostIn = (cap: string, domain: string) => lost.find((l) => l.capability === cap && l.domain === domain)?.n ?? 0;
  const href = (cap: string, domain: string) => `${base}${queryString({ capability: cap, domain })}#items`;
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
                  const n = base ? lostIn(c.id, d) : 0;
                  const numbers = (
                    <>
                      <span className="block font-semibold">{formatScore(v.score)}</span>
                      <span className="block text-[0.7rem]">
                        n={v.nItems}
                        {n ? (
                          <span aria-hidden="true">
                            {" · "}
                            <span className="underline underline-offset-2">{n} lost</span>
                          </span>
                        ) : null}
                      </span>
                    </>
                  );
                  return (
                    <td key={d} style={h.style} className={`min-w-16 border-2 border-white text-center tabular-nums dark:border-slate-950 ${n ? "p-0" : "px-2 py-2 sm:px-3"} sm:min-w-20 ${h.className}`}>
                      {n ? (
                        <a
                          href={href(c.id, d)}
                          title={`${c.label} · ${d}: ${lostPointsText(n, trials)}`}
                          className="block px-2 py-2 text-inherit no-underline hover:underline focus-visible:outline-2 focus-visible:-outline-offset-2 focus-visible:outline-sky-600 sm:px-3"
                          data-lost-cell
                        >
                          {numbers}
                          <span className="sr-only">
                            {" "}
                            {lostPointsText(n, trials)}
                          </span>
                        </a>
                      ) : (
                        numbers
                      )}
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
