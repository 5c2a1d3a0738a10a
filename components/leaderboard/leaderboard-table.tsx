"use client";
import {
  createColumnHelper,
  flexRender,
  getCoreRowModel,
  useReactTable,
  type ColumnDef,
  type Row,
  type RowData,
  type VisibilityState,
} from "@tanstack/react-table";
import Link from "next/link";
import { memo, useCallback, useLayoutEffect, useMemo, useRef, useState, type Dispatch, type SetStateAction } from "react";
import type { LeaderboardEntry } from "@/lib/queries/types";
import { FLAG_KIND_LABELS } from "@/lib/scoring/integrity-flags";
import { Badges, CostCell, PassKCell, RankCell, ScoreCiCell } from "./cells";
import { fmtDate, fmtPercent, fmtSeconds, fmtTokens, fmtUsd } from "./format";
import { CompareBar, PickBox, PickProvider, usePick } from "./pick";
import { TableToolbar } from "./table-toolbar";
import { columnIds, isSortable, metricValue, PINNED_COLUMNS, rankCounts, toggleSort, type Metric, type ViewState } from "./view-state";

declare module "@tanstack/react-table" {
  interface ColumnMeta<TData extends RowData, TValue> {
    label: string;
    description?: string;
    numeric?: boolean;
    /** The sticky first columns' position and width (a class of globals.css, for header and cells): rank, agent and overall stay in view on a phone. */
    sticky?: string;
    /** Horizontal padding; `px-3` when not set. */
    pad?: string;
  }
}

export interface TableCapability {
  id: string;
  label: string;
  description: string;
}

/**
 * Rows rendered at first (and added per "show more"): keeps the HTML and a re-sort small on big
 * boards (`/` with 200 entries: 150 KB of HTML at 50 rows, 118 KB at 30; README, Performance).
 */
export const ROW_PAGE = 30;

const col = createColumnHelper<LeaderboardEntry>();
const focusRing = "focus-visible:outline focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-sky-600";
/**
 * What every body cell shares is set once on the tbody, at zero specificity (`:where`), so a
 * cell's own classes override it and a row of 15 cells does not repeat it 15 times: the board's
 * HTML grows with its rows. Cells are right-aligned numbers unless they say `text-left`.
 */
const bodyCells = "[:where(&)>tr>*]:px-3 [:where(&)>tr>*]:py-2 [:where(&)>tr>*]:align-middle [:where(&)>tr>*]:font-normal [:where(&)>tr>*]:text-right [:where(&)>tr>*]:tabular-nums";

function costColumn(id: string, label: string, description: string, value: (e: LeaderboardEntry) => number | null, text: (v: number | null) => string, title?: (v: number) => string) {
  return col.display({
    id,
    header: label,
    meta: { label, description, numeric: true },
    cell: ({ row }) => {
      const v = value(row.original);
      return <CostCell value={v} text={text(v)} title={v === null ? undefined : title?.(v)} />;
    },
  });
}

/** A score column's header: its label, and under it what the cells hold in the pass^k view. */
function scoreHeader(label: string, metric: Metric) {
  if (metric !== "passk") return label;
  return (
    <>
      {label} <span className="font-normal text-slate-500 dark:text-slate-400">pass^k</span>
    </>
  );
}

function buildColumns(capabilities: TableCapability[], ties: Map<number, number>, metric: Metric): ColumnDef<LeaderboardEntry, unknown>[] {
  const caps = new Set(columnIds(capabilities.map((c) => c.id)));
  const passK = metric === "passk";
  return [
    col.display({
      id: "rank",
      header: "Rank",
      meta: { label: "Rank", description: "Official rank: 1 + the entries shown better by the compare page's paired test on the same items (95%), directly or through a chain. =2: tied, no significant difference; sorting never changes it. Tick a row to compare it.", numeric: true, sticky: "lb-c-rank", pad: "px-2" },
      cell: ({ row }) => (
        <span className="lb-rank">
          <PickBox id={row.original.id} agent={row.original.agent} />
          <RankCell rank={row.original.rank} tiedWith={ties.get(row.original.rank) ?? 1} />
        </span>
      ),
    }),
    col.display({
      id: "agent",
      header: "Agent",
      meta: { label: "Agent", sticky: "lb-c-agent" },
      cell: ({ row }) => <AgentCell entry={row.original} />,
    }),
    col.display({
      id: "overall",
      header: () => scoreHeader("Overall", metric),
      meta: {
        label: "Overall",
        description: passK ? "Overall pass^k: the mean of the capabilities' pass^k (entries of two trials or more)" : "Overall score (the mean over trials) with its 95% confidence interval",
        numeric: true,
        sticky: "lb-c-overall",
      },
      cell: ({ row }) =>
        passK ? (
          <PassKCell value={metricValue(row.original, "overall", "passk")} k={row.original.trials} partial={row.original.badges.partial} />
        ) : (
          <ScoreCiCell cell={row.original.overall} bar partial={row.original.badges.partial} />
        ),
    }),
    ...capabilities
      .filter((c) => caps.has(c.id))
      .map((c) =>
        col.display({
          id: c.id,
          header: () => scoreHeader(c.label, metric),
          meta: { label: c.label, description: passK ? `pass^k of ${c.label}: the weighted share of its items solved in all k trials` : c.description, numeric: true },
          cell: ({ row }) =>
            passK ? (
              <PassKCell value={metricValue(row.original, c.id, "passk")} k={row.original.trials} submitted={row.original.capabilities[c.id]?.submitted ?? false} />
            ) : (
              <ScoreCiCell cell={row.original.capabilities[c.id]} />
            ),
        }),
      ),
    col.display({
      id: "trials",
      header: "Trials",
      meta: { label: "Trials", description: "Runs of the benchmark in the bundle (trial_1/ … trial_k/): the scores are the mean over them", numeric: true },
      cell: ({ row }) => row.original.trials,
    }),
    costColumn("cost", "Cost", "What the whole run cost in US dollars, as the bundle reported it (usage.cost_usd)", (e) => e.cost.costUsd, fmtUsd),
    costColumn("tokens", "Tokens", "Tokens the whole run used, as the bundle reported them (usage)", (e) => e.cost.totalTokens, fmtTokens, (v) => `${v.toLocaleString("en-US")} tokens`),
    costColumn("latency", "Latency", "Median seconds per item (duration_s, or an output's timestamps)", (e) => e.cost.latencyMedianS, fmtSeconds),
    costColumn("latency_p95", "p95 latency", "95th percentile of seconds per item", (e) => e.cost.latencyP95S, fmtSeconds),
    col.display({
      id: "coverage",
      header: "Coverage",
      meta: { label: "Coverage", description: "Share of benchmark items the entry answered", numeric: true },
      cell: ({ row }) => fmtPercent(row.original.coverage),
    }),
    col.display({
      id: "models",
      header: "Model(s)",
      meta: { label: "Model(s)" },
      cell: ({ row }) => <span className="block max-w-44 truncate" title={row.original.models.join(", ")}>{row.original.models.join(", ") || "—"}</span>,
    }),
    col.display({
      id: "maintainer",
      header: "Maintainer",
      meta: { label: "Maintainer" },
      cell: ({ row }) => <span className="block max-w-36 truncate" title={row.original.maintainer}>{row.original.maintainer}</span>,
    }),
    col.display({
      id: "date",
      header: "Date",
      meta: { label: "Date", description: "When the entry was scored" },
      cell: ({ row }) => (
        <time dateTime={row.original.date} className="whitespace-nowrap">
          {fmtDate(row.original.date)}
        </time>
      ),
    }),
    col.display({
      id: "badges",
      header: "Badges",
      meta: { label: "Badges" },
      cell: ({ row }) => <Badges badges={row.original.badges} flags={row.original.flags} />,
    }),
  ];
}

/**
 * The agent's name (its entry page), with what a reader weighs beside it: on a phone, a flag
 * marker (the Badges column is off screen there; drawn by CSS, its words are its accessible
 * name, so the cell's text stays the name); the entry's own links (paper, code), when its
 * submission gave any, on a second line.
 */
function AgentCell({ entry: e }: { entry: LeaderboardEntry }) {
  const flagged = e.flags.length ? `flagged: ${e.flags.map((k) => FLAG_KIND_LABELS[k]).join(", ")}` : null;
  return (
    <>
      <span className="lb-agent-line">
        {flagged ? <span role="img" aria-label={flagged} title={flagged} className="lb-flag-mark" data-flag-mark /> : null}
        <Link href={`/submissions/${e.id}`} prefetch={false} title={e.agent} className="lb-agent">
          {e.agent}
        </Link>
      </span>
      {e.links?.length ? (
        <span className="lb-agent-sub">
          {e.links.map((l) => (
            <a key={l.name} href={l.href} rel="noopener noreferrer nofollow ugc" data-entry-link>
              {l.name}
            </a>
          ))}
        </span>
      ) : null}
    </>
  );
}

/** One body row; memoized on the entry and the visible columns, so a re-sort only moves rows. */
const BodyRow = memo(
  function BodyRow({ row }: { row: Row<LeaderboardEntry>; columnsKey: string }) {
    return (
      // An opaque row background that sticky cells inherit, so scrolled cells never show through them.
      <tr className="lb-row" data-partial={row.original.badges.partial || undefined}>
        {row.getVisibleCells().map((cell) => {
          const meta = cell.column.columnDef.meta;
          const Tag = cell.column.id === "agent" ? "th" : "td";
          return (
            <Tag
              key={cell.id}
              scope={Tag === "th" ? "row" : undefined}
              className={[meta?.pad, meta?.numeric ? "" : "text-left", meta?.sticky ? `lb-stick ${meta.sticky}` : ""].filter(Boolean).join(" ") || undefined}
            >
              {flexRender(cell.column.columnDef.cell, cell.getContext())}
            </Tag>
          );
        })}
      </tr>
    );
  },
  (a, b) => a.row.original === b.row.original && a.columnsKey === b.columnsKey,
);

function SortIcon({ dir }: { dir: "asc" | "desc" | null }) {
  return (
    <span aria-hidden="true" className={dir ? "lb-sorted" : undefined}>
      {dir === "asc" ? "▲" : dir === "desc" ? "▼" : "↕"}
    </span>
  );
}

/** The board's table: every entry for ties and totals, the rows of the current view (filtered and sorted by the caller). */
export function LeaderboardTable({
  entries,
  rows,
  view,
  setView,
  capabilities,
  benchmark,
  version,
}: {
  entries: LeaderboardEntry[];
  rows: LeaderboardEntry[];
  view: ViewState;
  setView: Dispatch<SetStateAction<ViewState>>;
  capabilities: TableCapability[];
  benchmark: string;
  version: string;
}) {
  const capIds = useMemo(() => capabilities.map((c) => c.id), [capabilities]);
  const ties = useMemo(() => rankCounts(entries), [entries]);
  const columns = useMemo(() => buildColumns(capabilities, ties, view.metric), [capabilities, ties, view.metric]);
  const pick = usePick();
  const [limit, setLimit] = useState(ROW_PAGE);
  const shownRows = useMemo(() => (rows.length > limit ? rows.slice(0, limit) : rows), [rows, limit]);
  const columnVisibility = useMemo<VisibilityState>(() => Object.fromEntries(view.hide.map((id) => [id, false])), [view.hide]);

  const table = useReactTable({
    data: shownRows,
    columns,
    getCoreRowModel: getCoreRowModel(),
    getRowId: (e) => String(e.id),
    manualSorting: true,
    manualFiltering: true,
    state: { columnVisibility, sorting: [{ id: view.sort, desc: view.dir === "desc" }] },
  });

  // Measure each re-sort from the click to the committed DOM: one `leaderboard-sort` measure per sort (read by browser tests).
  const sorting = useRef(false);
  const onSort = useCallback(
    (columnId: string) => {
      performance.mark("sort-start");
      sorting.current = true;
      setView((v) => toggleSort(v, columnId));
    },
    [setView],
  );
  useLayoutEffect(() => {
    if (!sorting.current) return;
    sorting.current = false;
    performance.mark("sort-end");
    performance.measure("leaderboard-sort", "sort-start", "sort-end");
  }, [view.sort, view.dir]);

  const toggleable = useMemo(
    () => table.getAllLeafColumns().filter((c) => !PINNED_COLUMNS.includes(c.id)).map((c) => ({ id: c.id, label: c.columnDef.meta?.label ?? c.id })),
    [table, columns],
  );
  const visible = table.getVisibleLeafColumns();
  // The rows re-render when the visible columns or what the score cells show change.
  const columnsKey = `${visible.map((c) => c.id).join(",")}|${view.metric}`;

  return (
    <PickProvider value={pick.value}>
    <div className="flex flex-col gap-3">
      <TableToolbar view={view} onChange={setView} columns={toggleable} shown={rows.length} total={entries.length} base={{ benchmark, version }} />
      <CompareBar picked={pick.picked} onClear={pick.clear} />
      <div className="relative overflow-x-auto rounded-lg border border-slate-200 dark:border-slate-800">
        <table className="w-full border-collapse text-sm">
          <caption className="sr-only">
            Leaderboard entries. Rank is the official rank from the paired test of the compare page, equal for entries no significant difference separates; sorting by a column reorders rows without changing it. Each rank cell has a checkbox to pick the entry for comparison.
          </caption>
          <thead className="lb-head">
            {table.getHeaderGroups().map((hg) => (
              <tr key={hg.id}>
                {hg.headers.map((h) => {
                  const meta = h.column.columnDef.meta;
                  const sortable = isSortable(h.column.id, capIds);
                  const dir = view.sort === h.column.id ? view.dir : null;
                  return (
                    <th
                      key={h.id}
                      scope="col"
                      aria-sort={dir === "asc" ? "ascending" : dir === "desc" ? "descending" : sortable ? "none" : undefined}
                      title={meta?.description}
                      className={[meta?.pad, meta?.numeric ? "" : "text-left", meta?.sticky ? `lb-stick-head ${meta.sticky}` : ""].filter(Boolean).join(" ") || undefined}
                    >
                      {sortable ? (
                        <button type="button" onClick={() => onSort(h.column.id)}>
                          {flexRender(h.column.columnDef.header, h.getContext())}
                          <SortIcon dir={dir} />
                        </button>
                      ) : (
                        <span>{flexRender(h.column.columnDef.header, h.getContext())}</span>
                      )}
                    </th>
                  );
                })}
              </tr>
            ))}
          </thead>
          <tbody className={bodyCells}>
            {table.getRowModel().rows.map((row) => (
              <BodyRow key={row.id} row={row} columnsKey={columnsKey} />
            ))}
            {rows.length > shownRows.length && (
              <tr>
                <td colSpan={visible.length} className="border-t border-slate-200 px-3 py-3 text-sm text-slate-600 dark:border-slate-800 dark:text-slate-400">
                  <div className="sticky left-3 flex flex-wrap items-center gap-3">
                    <span>
                      Showing the first {shownRows.length} of {rows.length}.
                    </span>
                    <button type="button" onClick={() => setLimit((l) => l + ROW_PAGE)} className={`rounded-md border border-slate-300 px-2.5 py-1 hover:bg-slate-50 dark:border-slate-600 dark:hover:bg-slate-800 ${focusRing}`}>
                      Show {Math.min(ROW_PAGE, rows.length - shownRows.length)} more
                    </button>
                    <button type="button" onClick={() => setLimit(rows.length)} className={`rounded-md border border-slate-300 px-2.5 py-1 hover:bg-slate-50 dark:border-slate-600 dark:hover:bg-slate-800 ${focusRing}`}>
                      Show all {rows.length}
                    </button>
                  </div>
                </td>
              </tr>
            )}
            {rows.length === 0 && (
              <tr>
                <td colSpan={visible.length} className="px-3 py-8 text-center text-slate-600 dark:text-slate-400">
                  No entries match this view.{" "}
                  <button type="button" onClick={() => setView({ ...view, q: "", verified: "any", partial: "any", demo: "any", flagged: "any" })} className={`text-sky-800 underline dark:text-sky-300 ${focusRing}`}>
                    Clear search and filters
                  </button>
                </td>
              </tr>
            )}
          </tbody>
        </table>
      </div>
    </div>
    </PickProvider>
  );
}
