"use client";
/**
 * The board's view (sort, search, badge filters, hidden columns, chart axis; in the URL) and the
 * two things it shapes: the table and the charts. One owner, so the charts draw exactly the rows
 * the table lists, from the one copy of the entries the page ships.
 */
import { useCallback, useMemo } from "react";
import { LeaderboardCharts } from "@/components/charts/leaderboard-charts";
import { LeaderboardTable, type TableCapability } from "./leaderboard-table";
import { unpackEntries, type PackedEntries } from "./packed-entries";
import { useUrlView } from "./use-url-view";
import { applyView, DEFAULT_VIEW, type CostAxisChoice, type ViewState } from "./view-state";

export function LeaderboardView({
  packed,
  capabilities,
  initialView,
  benchmark,
  version,
}: {
  /** Every published entry, packed by the page (packed-entries.ts). */
  packed: PackedEntries;
  capabilities: TableCapability[];
  initialView: ViewState;
  benchmark: string;
  version: string;
}) {
  const entries = useMemo(() => unpackEntries(packed), [packed]);
  const [view, setView] = useUrlView(initialView);
  const rows = useMemo(
    () => applyView(entries, view),
    // The rows depend on the filters and the sort (by the metric shown) only, not on which columns are hidden.
    [entries, view.sort, view.dir, view.q, view.verified, view.partial, view.demo, view.flagged, view.metric],
  );
  // The charts take the filtered rows in official order: a re-sort leaves them (and their memo) alone.
  const kept = useMemo(
    () => applyView(entries, { ...DEFAULT_VIEW, q: view.q, verified: view.verified, partial: view.partial, demo: view.demo, flagged: view.flagged }),
    [entries, view.q, view.verified, view.partial, view.demo, view.flagged],
  );
  const onAxis = useCallback((vs: CostAxisChoice) => setView((v) => ({ ...v, vs })), [setView]);
  return (
    <>
      <LeaderboardTable entries={entries} rows={rows} view={view} setView={setView} capabilities={capabilities} benchmark={benchmark} version={version} />
      <LeaderboardCharts capabilities={capabilities} entries={entries} rows={kept} filtered={kept.length < entries.length} axis={view.vs} onAxis={onAxis} />
    </>
  );
}
