/**
 * One page of a run's items: the full id (linking to the item, carrying the list's filter and
 * sort), what was asked and answered, the public reason, the outcome, weight and score. Column
 * headers sort on the server through the URL. Below `sm` the rows become cards, so id, outcome
 * and score read without scrolling sideways. A run of k > 1 trials lists each item once per
 * trial, with a trial column (each link opens that trial's result: `?trial=n`).
 *
 * A client component: the page then carries its rows once, as data, instead of the rendered
 * table and cards a second time in the server-component payload (up to 300 rows, each twice).
 */
"use client";

import Link from "next/link";
import type { ItemFilters, ItemRow, ItemSortKey } from "@/lib/queries/types";
import { linkClass, rowClass, scrollClass, tableClass, tdClass, thClass, theadClass } from "@/components/common/styles";
import { ItemScore, OutcomeText } from "./outcome-text";
import { itemHref, policyNote } from "./item-href";
import { itemQuery } from "./item-query";


interface Props {
  submissionId: number;
  rows: ItemRow[];
  /** Trials in the run: a trial column when more than one. */
  trials: number;
  capabilityLabels: Record<string, string>;
  /** Capabilities whose items carry a policy. */
  policyCapabilities: string[];
  filters: ItemFilters;
  /** The entry page's path, for the sort links. */
  base: string;
}

/** `tight`: the class with a trial column, whose width the text columns give up (the id keeps its width). */
const COLUMNS: { key: ItemSortKey; label: string; className?: string; tight?: string }[] = [
  { key: "item", label: "Item", className: "w-44", tight: "w-44 min-w-44" },
  { key: "trial", label: "Trial", className: "w-14 text-right" },
  { key: "capability", label: "Capability" },
  { key: "domain", label: "Domain" },
  { key: "question", label: "Question", className: "min-w-56", tight: "min-w-48" },
  { key: "answer", label: "Agent's answer", className: "min-w-44", tight: "min-w-36" },
  { key: "reason", label: "Reason", className: "min-w-56", tight: "min-w-48" },
  { key: "outcome", label: "Outcome", className: "min-w-40" },
  { key: "weight", label: "Weight", className: "text-right" },
  { key: "score", label: "Score", className: "text-right" },
];

function SortHeader({ col, filters, base }: { col: (typeof COLUMNS)[number]; filters: ItemFilters; base: string }) {
  const active = filters.sort === col.key;
  const dir = active && filters.dir !== "desc" ? "desc" : "asc";
  const href = `${base}${itemQuery({ ...filters, sort: col.key, dir })}#items`;
  return (
    <th scope="col" className={`${thClass} ${col.className ?? ""}`} aria-sort={active ? (filters.dir === "desc" ? "descending" : "ascending") : undefined}>
      <Link href={href} className="underline-offset-2 hover:underline focus-visible:outline-2 focus-visible:outline-sky-600" title={`Sort by ${col.label.toLowerCase()}`}>
        {col.label}
        {active ? <span aria-hidden="true">{filters.dir === "desc" ? " ↓" : " ↑"}</span> : null}
      </Link>
    </th>
  );
}

function Text({ value, empty = "—" }: { value: string; empty?: string }) {
  return value ? <span className="break-words whitespace-pre-line">{value}</span> : <span className="text-slate-500 dark:text-slate-400">{empty}</span>;
}

function Reason({ row }: { row: ItemRow }) {
  return (
    <>
      <Text value={row.reason} />
      {row.detail ? <span className="mt-1 block break-words text-slate-600 dark:text-slate-400">{row.detail}</span> : null}
    </>
  );
}

function Policy({ row, policies }: { row: ItemRow; policies: string[] }) {
  const note = policyNote(row, policies.includes(row.capability));
  return note ? <span className="mt-1 block text-xs text-slate-600 dark:text-slate-400">{note}</span> : null;
}

export function ItemTable({ submissionId, rows, trials, capabilityLabels, policyCapabilities, filters, base }: Props) {
  if (rows.length === 0) return <p className="text-sm text-slate-600 dark:text-slate-400">No items match these filters.</p>;
  const multi = trials > 1;
  // Each row opens its own trial's result, the list's filter and sort kept.
  const href = (r: ItemRow) => itemHref(submissionId, r, itemQuery({ ...filters, page: undefined, ...(multi ? { trial: r.trial } : {}) }));
  const label = (c: string) => capabilityLabels[c] ?? c;
  const columns = multi ? COLUMNS.map((c) => ({ ...c, className: c.tight ?? c.className })) : COLUMNS.filter((c) => c.key !== "trial");
  return (
    <>
      <div role="region" aria-label="Item table" tabIndex={0} className={`${scrollClass} hidden sm:block`}>
        <table className={`${tableClass} min-w-[64rem]`}>
          <caption className="sr-only">Items of this run: question, the agent&apos;s answer, why it scored what it did, its outcome, weight and score (0-1). Column headers sort the table.</caption>
          <thead className={theadClass}>
            <tr>
              {columns.map((c) => (
                <SortHeader key={c.key} col={c} filters={filters} base={base} />
              ))}
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={`${r.capability}/${r.uuid}/${r.trial}`} className={rowClass} data-trial={multi ? r.trial : undefined}>
                <th scope="row" className={`${tdClass} font-normal`}>
                  <Link href={href(r)} className={`${linkClass} font-mono text-xs break-all`}>
                    {r.uuid}
                  </Link>
                </th>
                {multi ? <td className={`${tdClass} text-right tabular-nums`}>{r.trial}</td> : null}
                <td className={tdClass}>{label(r.capability)}</td>
                <td className={`${tdClass} break-words`}>{r.domain}</td>
                <td className={tdClass}>
                  <Text value={r.question} />
                </td>
                <td className={tdClass}>
                  <Text value={r.answer} empty="no answer" />
                </td>
                <td className={tdClass}>
                  <Reason row={r} />
                </td>
                <td className={tdClass}>
                  <OutcomeText item={r} />
                  <Policy row={r} policies={policyCapabilities} />
                </td>
                <td className={`${tdClass} text-right tabular-nums`}>×{r.weight}</td>
                <td className={`${tdClass} text-right`}>
                  <ItemScore item={r} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>

      <ul className="space-y-3 sm:hidden" aria-label="Items">
        {rows.map((r) => (
          <li key={`${r.capability}/${r.uuid}/${r.trial}`} className="rounded-md border border-slate-200 p-3 text-sm dark:border-slate-800">
            <div className="flex items-start justify-between gap-3">
              <Link href={href(r)} className={`${linkClass} min-w-0 font-mono text-xs break-all`}>
                {r.uuid}
              </Link>
              <span className="shrink-0 font-semibold">
                <span className="sr-only">Score </span>
                <ItemScore item={r} />
              </span>
            </div>
            <p className="mt-1">
              <OutcomeText item={r} />
              <Policy row={r} policies={policyCapabilities} />
            </p>
            <p className="mt-1 text-xs text-slate-600 dark:text-slate-400">
              {label(r.capability)} · {r.domain}
              {multi ? ` · trial ${r.trial}` : ""} · weight ×{r.weight}
            </p>
            <dl className="mt-2 space-y-1">
              <div>
                <dt className="inline text-xs font-medium text-slate-600 dark:text-slate-400">Question: </dt>
                <dd className="inline">
                  <Text value={r.question} />
                </dd>
              </div>
              <div>
                <dt className="inline text-xs font-medium text-slate-600 dark:text-slate-400">Answer: </dt>
                <dd className="inline">
                  <Text value={r.answer} empty="no answer" />
                </dd>
              </div>
              <div>
                <dt className="inline text-xs font-medium text-slate-600 dark:text-slate-400">Reason: </dt>
                <dd className="inline">
                  <Reason row={r} />
                </dd>
              </div>
            </dl>
          </li>
        ))}
      </ul>
    </>
  );
}
