/** One page of items of a run: where each ended in the waterfall and its score, linking to the item view. */
import Link from "next/link";
import { ColumnHeaders } from "@/components/common/column-headers";
import type { ItemRow } from "@/lib/queries/types";
import { ScrollTable } from "@/components/common/scroll-table";
import { linkClass, rowClass, tableClass, tdClass, thClass, theadClass } from "@/components/common/styles";

export function itemHref(submissionId: number, row: Pick<ItemRow, "capability" | "uuid">): string {
  return `/submissions/${submissionId}/items/${encodeURIComponent(row.capability)}/${encodeURIComponent(row.uuid)}`;
}

/** An item score 0-1 with a written verdict, so the colour is never the only signal. */
export function ItemScore({ score, status }: { score: number; status: string }) {
  if (status !== "scored") return <span className="text-slate-600 dark:text-slate-400">not scored</span>;
  const pass = score > 0;
  return (
    <span className={pass ? "text-emerald-700 dark:text-emerald-400" : "text-red-700 dark:text-red-400"}>
      <span aria-hidden="true">{pass ? "✓ " : "✗ "}</span>
      <span className="tabular-nums">{Number.isInteger(score) ? score : score.toFixed(2)}</span>
      <span className="sr-only">{pass ? " (passed)" : " (failed)"}</span>
    </span>
  );
}

export function ItemTable({ submissionId, rows, capabilityLabels }: { submissionId: number; rows: ItemRow[]; capabilityLabels: Record<string, string> }) {
  if (rows.length === 0) return <p className="text-sm text-slate-600 dark:text-slate-400">No items match these filters.</p>;
  return (
    <ScrollTable label="Item table">
      <table className={`${tableClass} min-w-[44rem]`}>
        <caption className="sr-only">Items of this run with the stage where each ended and its score (0-1)</caption>
        <thead className={theadClass}>
          <tr>
            <ColumnHeaders labels={["Item", "Capability", "Domain", "Ended at", "Status", "Policy"]} />
            <th scope="col" className={`${thClass} text-right`}>
              Weight
            </th>
            <th scope="col" className={`${thClass} text-right`}>
              Score
            </th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr key={`${r.capability}/${r.uuid}`} className={rowClass}>
              <th scope="row" className={`${tdClass} font-normal`}>
                <Link href={itemHref(submissionId, r)} className={`${linkClass} font-mono text-xs`} title={r.uuid}>
                  {r.uuid.slice(0, 8)}
                  <span className="sr-only">{r.uuid.slice(8)}</span>
                </Link>
              </th>
              <td className={tdClass}>{capabilityLabels[r.capability] ?? r.capability}</td>
              <td className={tdClass}>{r.domain}</td>
              <td className={tdClass}>{r.stage}</td>
              <td className={tdClass}>{r.status}</td>
              <td className={tdClass}>{r.policy}</td>
              <td className={`${tdClass} text-right tabular-nums`}>×{r.weight}</td>
              <td className={`${tdClass} text-right`}>
                <ItemScore score={r.score} status={r.status} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </ScrollTable>
  );
}
