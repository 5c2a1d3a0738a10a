/**
 * Entries side by side, overall first and then per capability (score, 95% interval, bar with
 * whiskers) and, for every entry after the first, the paired bootstrap difference against the
 * first on the same items. A table from `md` up; on phones one card per row with the entries
 * stacked, so every entry's score is on screen without scrolling sideways.
 */
import type { Comparison, ComparedEntry, PairedComparison, ScoreCell } from "@/lib/queries/types";
import { CiBar } from "@/components/common/ci-bar";
import { formatInterval, formatScore, formatSigned } from "@/components/common/format";
import { tableClass, thClass } from "@/components/common/styles";
import { Tag } from "@/components/common/state-badge";
import { EntryName } from "./entry-name";

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

interface Row {
  id: string;
  label: string;
}

/** One entry's score on one row, with its paired difference from the baseline. */
function Score({ comparison, row, entry, index }: { comparison: Comparison; row: Row; entry: ComparedEntry; index: number }) {
  const base = comparison.entries[0]!;
  const cell = row.id === "overall" ? entry.overall : entry.capabilities[row.id];
  const d = index === 0 ? undefined : comparison.differences.find((x) => x.b === entry.id && x.scope === row.id);
  return (
    <>
      <Cell cell={cell} />
      {d ? <PairedDiff d={d} baseline={`#${base.id}`} /> : null}
    </>
  );
}

export function CapabilityComparison({ comparison }: { comparison: Comparison }) {
  const { entries, benchmark } = comparison;
  const base = entries[0];
  if (!base) return null;
  const rows: Row[] = [{ id: "overall", label: "Overall" }, ...benchmark.capabilities.map((c) => ({ id: c.id, label: c.label }))];
  const shade = (r: Row) => (r.id === "overall" ? "bg-slate-50 dark:bg-slate-900" : "");
  return (
    <>
      <div className="hidden overflow-x-auto rounded-md border border-slate-200 md:block dark:border-slate-800">
        <table className={`${tableClass} table-fixed`}>
          <caption className="sr-only">
            Overall and per-capability score with 95% confidence interval of each entry; for entries after the first, the paired bootstrap difference from {base.agent} with its 95% interval.
          </caption>
          <thead className="border-b border-slate-300 text-sm dark:border-slate-700">
            <tr>
              <th scope="col" className={`${thClass} w-44`}>
                Capability
              </th>
              {entries.map((e, i) => (
                <th key={e.id} scope="col" className={thClass}>
                  <EntryName entry={e} baseline={i === 0} />
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={r.id} className={`border-b border-slate-100 dark:border-slate-800/80 ${shade(r)}`}>
                <th scope="row" className="px-3 py-3 text-left align-top text-sm font-medium">
                  {r.label}
                </th>
                {entries.map((e, i) => (
                  <td key={e.id} className="px-3 py-3 align-top">
                    <Score comparison={comparison} row={r} entry={e} index={i} />
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <ul className="space-y-3 md:hidden" aria-label="Scores by capability">
        {rows.map((r) => (
          <li key={r.id} className={`rounded-md border border-slate-200 p-3 dark:border-slate-800 ${shade(r)}`}>
            <h3 className="text-sm font-semibold">{r.label}</h3>
            <ul className="mt-2 space-y-3">
              {entries.map((e, i) => (
                <li key={e.id} data-entry={e.id} data-row={r.id}>
                  <p className="text-sm">
                    <EntryName entry={e} baseline={i === 0} inline />
                  </p>
                  <Score comparison={comparison} row={r} entry={e} index={i} />
                </li>
              ))}
            </ul>
          </li>
        ))}
      </ul>
    </>
  );
}
