/**
 * Item by item, one entry against the baseline: how many items each passed (full marks) where
 * the other did not (counts that show where the score difference comes from; the verdict is the
 * paired bootstrap's), and a page of the flipped items with links to each entry's item page.
 * Filters and page live in the URL (a GET form).
 */
import Link from "next/link";
import { SelectField } from "@/components/common/select-field";
import type { BenchmarkInfo, ComparedEntry, FlipPage, FlipSide, FlipSummary } from "@/lib/queries/types";
import { formatFraction, plural } from "@/components/common/format";
import { Pagination } from "@/components/common/pagination";
import { ScrollTable } from "@/components/common/scroll-table";
import { buttonClass, linkClass, pillClass, tableClass, thClass } from "@/components/common/styles";
import { EntryName } from "./entry-name";

/** What the URL may carry for this section; undefined drops a parameter. */
export interface FlipLinkParams {
  vs?: number;
  capability?: string;
  domain?: string;
  passed?: number;
  page?: number;
}

function CountsTable({ summary, a, b, benchmark }: { summary: FlipSummary; a: ComparedEntry; b: ComparedEntry; benchmark: BenchmarkInfo }) {
  const rows = [{ id: "overall", label: "All items", counts: summary.overall }, ...benchmark.capabilities.map((c) => ({ id: c.id, label: c.label, counts: summary.capabilities[c.id]! }))];
  const num = "px-2 py-2 text-right align-top tabular-nums";
  const head = `${thClass} px-2 text-right align-bottom`;
  return (
    <div className="space-y-2">
      <p className="text-sm text-slate-700 dark:text-slate-300">
        <strong>A</strong>: <EntryName entry={a} baseline inline /> · <strong>B</strong>: <EntryName entry={b} baseline={false} />
      </p>
      <ScrollTable label="Flip counts per capability">
        <table className={`${tableClass} table-fixed`}>
          <caption className="sr-only">
            Items with full marks in both entries, in only A ({a.agent}), in only B ({b.agent}), in neither.
          </caption>
          <thead className="border-b border-slate-300 text-xs dark:border-slate-700">
            <tr>
              <th scope="col" className={`${thClass} w-[30%] px-2 align-bottom sm:w-[34%]`}>
                Capability
              </th>
              <th scope="col" className={head}>
                Both
              </th>
              <th scope="col" className={head}>
                Only A
              </th>
              <th scope="col" className={head}>
                Only B
              </th>
              <th scope="col" className={head}>
                Neither
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={r.id} className={`border-b border-slate-100 dark:border-slate-800/80 ${r.id === "overall" ? "bg-slate-50 dark:bg-slate-900" : ""}`}>
                <th scope="row" className="px-2 py-2 text-left align-top text-sm font-medium break-words">
                  {r.label}
                </th>
                <td className={num}>{r.counts.both.toLocaleString("en-US")}</td>
                <td className={num}>{r.counts.aOnly.toLocaleString("en-US")}</td>
                <td className={num}>{r.counts.bOnly.toLocaleString("en-US")}</td>
                <td className={num}>{r.counts.neither.toLocaleString("en-US")}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </ScrollTable>
    </div>
  );
}

function Side({ side, entry, capability, uuid }: { side: FlipSide; entry: ComparedEntry; capability: string; uuid: string }) {
  const verdict = side.passed ? "✓ full marks" : "✗ lost points";
  const body = (
    <>
      <span className="font-medium">{verdict}</span> <span className="tabular-nums">{formatFraction(side.score)}</span>
    </>
  );
  return (
    <div className="text-sm">
      {side.stored ? (
        <Link href={`/submissions/${entry.id}/items/${encodeURIComponent(capability)}/${encodeURIComponent(uuid)}`} className={linkClass} data-entry={entry.id}>
          <span className="sr-only">{entry.agent}: </span>
          {body}
        </Link>
      ) : (
        <span>{body}</span>
      )}
      <span className="block text-xs text-slate-600 dark:text-slate-400">{side.stored ? side.outcome : `${side.outcome} (not in this run)`}</span>
    </div>
  );
}


function FilterForm({ page, benchmark, domains, a, b, ids, clear }: { page: FlipPage; benchmark: BenchmarkInfo; domains: string[]; a: ComparedEntry; b: ComparedEntry; ids: string; clear: string }) {
  const f = page.filters;
  const active = f.capability || f.domain || f.passed;
  const all = { value: "", label: "All" };
  return (
    <form method="get" action="/compare#flips" className="flex flex-wrap items-end gap-3" aria-label="Filter flipped items">
      <input type="hidden" name="ids" value={ids} />
      <input type="hidden" name="vs" value={b.id} />
      <SelectField id="flip-capability" name="capability" label="Capability" value={f.capability ?? ""} options={[all, ...benchmark.capabilities.map((c) => ({ value: c.id, label: c.label }))]} />
      <SelectField id="flip-domain" name="domain" label="Domain" value={f.domain ?? ""} options={[all, ...(f.domain && !domains.includes(f.domain) ? [...domains, f.domain] : domains).map((d) => ({ value: d, label: d }))]} />
      <SelectField
        id="flip-passed"
        name="passed"
        label="Full marks in"
        value={f.passed === undefined ? "" : String(f.passed)}
        className="max-w-[16rem]"
        options={[{ value: "", label: "Either entry" }, ...[a, b].map((e) => ({ value: String(e.id), label: `Only ${e.agent} (#${e.id})` }))]}
      />
      <button type="submit" className={buttonClass}>
        Show
      </button>
      {active ? (
        <Link href={clear} className={`${linkClass} py-1.5 text-sm`}>
          Clear filters
        </Link>
      ) : null}
    </form>
  );
}

export function ItemFlips({
  entries,
  summary,
  page,
  benchmark,
  domains,
  href,
}: {
  entries: ComparedEntry[];
  summary: FlipSummary;
  page: FlipPage;
  benchmark: BenchmarkInfo;
  domains: string[];
  /** This page's URL with these flip parameters (the entry ids kept). */
  href: (p: FlipLinkParams) => string;
}) {
  const a = entries.find((e) => e.id === page.a)!;
  const b = entries.find((e) => e.id === page.b)!;
  const labels = Object.fromEntries(benchmark.capabilities.map((c) => [c.id, c.label]));
  const keep = { vs: page.b, capability: page.filters.capability, domain: page.filters.domain, passed: page.filters.passed };
  return (
    <div className="space-y-4">
      {entries.length > 2 ? (
        <nav aria-label="Entry set against the baseline" className="flex flex-wrap items-center gap-2 text-sm">
          <span className="text-slate-700 dark:text-slate-300">Against {a.agent}:</span>
          <ul className="flex flex-wrap gap-1">
            {entries.slice(1).map((e) => (
              <li key={e.id}>
                <Link href={`${href({ vs: e.id })}#flips`} aria-current={e.id === b.id ? "true" : undefined} className={pillClass(e.id === b.id)}>
                  {e.agent} #{e.id}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
      ) : null}
      <CountsTable summary={summary} a={a} b={b} benchmark={benchmark} />
      <FilterForm page={page} benchmark={benchmark} domains={domains} a={a} b={b} ids={entries.map((e) => e.id).join(",")} clear={`${href({ vs: b.id })}#flips`} />
      {page.rows.length === 0 ? (
        <p className="text-sm text-slate-600 dark:text-slate-400">No item has full marks in one of these entries and not in the other{page.filters.capability || page.filters.domain || page.filters.passed ? " under these filters" : ""}.</p>
      ) : (
        <ScrollTable label="Flipped items">
          <table className={`${tableClass} table-fixed`}>
            <caption className="sr-only">
              {plural(page.total, "flipped item")}: each entry&apos;s outcome and score, linking to that entry&apos;s item page.
            </caption>
            <thead className="border-b border-slate-300 text-sm dark:border-slate-700">
              <tr>
                <th scope="col" className={`${thClass} w-[40%]`}>
                  Item
                </th>
                <th scope="col" className={thClass}>
                  <EntryName entry={a} baseline />
                </th>
                <th scope="col" className={thClass}>
                  <EntryName entry={b} baseline={false} />
                </th>
              </tr>
            </thead>
            <tbody>
              {page.rows.map((r) => (
                <tr key={`${r.capability}\0${r.uuid}`} className="border-b border-slate-100 dark:border-slate-800/80" data-flip={r.uuid}>
                  <th scope="row" className="px-3 py-2 text-left align-top font-normal">
                    <span className="block font-mono text-xs break-all">{r.uuid}</span>
                    <span className="block text-xs text-slate-600 dark:text-slate-400">
                      {labels[r.capability] ?? r.capability} · {r.domain}
                    </span>
                  </th>
                  <td className="px-3 py-2 align-top">
                    <Side side={r.a} entry={a} capability={r.capability} uuid={r.uuid} />
                  </td>
                  <td className="px-3 py-2 align-top">
                    <Side side={r.b} entry={b} capability={r.capability} uuid={r.uuid} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollTable>
      )}
      <Pagination page={page.page} pageSize={page.pageSize} total={page.total} hrefFor={(p) => `${href({ ...keep, page: p })}#flips`} noun="flipped item" />
    </div>
  );
}
