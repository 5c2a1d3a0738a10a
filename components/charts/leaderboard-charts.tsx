"use client";
/**
 * The leaderboard's charts over the rows the board's filters keep: capability bars of the top
 * entries, the best overall over time, and accuracy against cost (or latency) with its Pareto
 * front. Captions and data tables render with the page; the recharts drawings load afterwards.
 */
import { memo, useId, useMemo } from "react";
import { fmtDate, fmtDateTime, fmtSeconds, fmtUsd } from "@/components/leaderboard/format";
import type { CostAxisChoice } from "@/components/leaderboard/view-state";
import type { LeaderboardEntry } from "@/lib/queries/types";
import { bestOverTimeData, capabilityBarsData, costChartData, distinctDays, resolveCostAxis, type CostAxis } from "./chart-data";
import { ChartFigure } from "./chart-figure";
import { LazyBestOverTime, LazyCapabilityBars, LazyCostScatter } from "./lazy-charts";

/** Rows of the cost chart's data table: the front first, then others, so a big board stays a short table. */
const MAX_COST_ROWS = 30;

const AXES: { id: CostAxis; label: string }[] = [
  { id: "cost", label: "Cost (USD)" },
  { id: "latency", label: "Median latency" },
];

function AxisSwitch({ axis, onAxis }: { axis: CostAxis; onAxis: (a: CostAxis) => void }) {
  const name = useId();
  return (
    <fieldset className="flex flex-wrap items-center gap-2 text-sm">
      <legend className="float-left mr-1 text-xs text-slate-600 dark:text-slate-400">Against</legend>
      {AXES.map((a) => (
        <label
          key={a.id}
          className={`flex cursor-pointer items-center gap-1.5 rounded-md border px-2 py-0.5 has-[:focus-visible]:outline has-[:focus-visible]:outline-2 has-[:focus-visible]:outline-offset-2 has-[:focus-visible]:outline-sky-600 ${
            axis === a.id ? "border-sky-600 bg-sky-50 text-sky-900 dark:border-sky-500 dark:bg-sky-950 dark:text-sky-100" : "border-slate-300 hover:bg-slate-50 dark:border-slate-600 dark:hover:bg-slate-800"
          }`}
        >
          <input type="radio" name={name} value={a.id} checked={axis === a.id} onChange={() => onAxis(a.id)} className="size-3.5 accent-sky-600" />
          {a.label}
        </label>
      ))}
    </fieldset>
  );
}

const NO_MATCH = "No entries match the board's search and filters.";

export const LeaderboardCharts = memo(function LeaderboardCharts({
  capabilities,
  entries,
  rows,
  filtered,
  axis: choice,
  onAxis,
}: {
  capabilities: readonly { id: string; label: string }[];
  /** Every entry (the axis defaults to cost when any reports one). */
  entries: readonly LeaderboardEntry[];
  /** The entries the board's filters keep. */
  rows: readonly LeaderboardEntry[];
  filtered: boolean;
  axis: CostAxisChoice;
  onAxis: (axis: CostAxis) => void;
}) {
  const bars = useMemo(() => capabilityBarsData(capabilities, rows, 5), [capabilities, rows]);
  const best = useMemo(() => bestOverTimeData(rows), [rows]);
  const axis = resolveCostAxis(entries, choice);
  const cost = useMemo(() => costChartData(rows, axis), [rows, axis]);
  const of = filtered ? ` of the ${rows.length} ${rows.length === 1 ? "entry" : "entries"} matching the board's filters` : "";
  const n = bars.series.length;
  const fmtX = axis === "cost" ? fmtUsd : fmtSeconds;
  const xLabel = axis === "cost" ? "Cost (USD)" : "Median latency";
  const costRows = [...cost.front, ...cost.points.filter((p) => !p.front)].slice(0, MAX_COST_ROWS);
  const days = distinctDays(best);

  return (
    <section aria-label="Charts" className="grid gap-4 lg:grid-cols-2">
      <ChartFigure
        id="chart-capabilities"
        title={n > 1 ? `Capabilities of the top ${n}` : n === 1 ? "Capabilities of the top entry" : "Capabilities of the top entries"}
        caption={`Score per capability (0–100) of the ${n === 1 ? "best entry" : `${n} best entries`} by official rank${of}. A missing bar means the capability was not submitted.`}
        columns={["Capability", ...bars.series.map((s) => s.name)]}
        rows={bars.rows.map((r) => [String(r.capability), ...bars.series.map((s) => (r[s.key] == null ? "not submitted" : String(r[s.key])))])}
        empty={n === 0 ? NO_MATCH : null}
      >
        <LazyCapabilityBars data={bars} />
      </ChartFigure>
      <ChartFigure
        id="chart-best"
        title="Best overall score over time"
        caption={`The highest overall score${of} at each date (a step each time the record was beaten). Partial entries are not counted.`}
        columns={["Date", "Best overall", "Held by"]}
        rows={best.map((p) => [fmtDateTime(new Date(p.t).toISOString()), p.best, p.agent])}
        empty={
          rows.length === 0
            ? NO_MATCH
            : best.length === 0
              ? "Too little data to draw: no complete entry (partial ones are not counted)."
              : days < 2
                ? `Too little data to draw a line over time: every complete entry was scored on ${fmtDate(new Date(best[0]!.t).toISOString())}.`
                : null
        }
      >
        <LazyBestOverTime points={best} />
      </ChartFigure>
      <ChartFigure
        id="chart-cost"
        title={axis === "cost" ? "Overall score against cost" : "Overall score against latency"}
        caption={`Each entry's overall score against ${axis === "cost" ? "what its run cost (US dollars, as its bundle reported)" : "its median seconds per item"}${of}. The Pareto front joins the entries no other entry beats on both: ${
          axis === "cost" ? "cheaper" : "faster"
        } and higher. Partial entries are drawn hollow and not compared.${cost.unknown > 0 ? ` ${cost.unknown} ${cost.unknown === 1 ? "entry reports" : "entries report"} no ${axis === "cost" ? "cost" : "latency"} and ${cost.unknown === 1 ? "is" : "are"} not drawn.` : ""}`}
        columns={["Agent", xLabel, "Overall", "On the Pareto front"]}
        rows={[
          ...costRows.map((p) => [p.agent, fmtX(p.x), p.y.toFixed(1), p.front ? "yes" : p.partial ? "no (partial entry)" : "no"]),
          ...(cost.points.length > costRows.length ? [[`and ${cost.points.length - costRows.length} more entries`, "", "", "no"]] : []),
        ]}
        controls={<AxisSwitch axis={axis} onAxis={onAxis} />}
        className="lg:col-span-2"
        empty={
          rows.length === 0
            ? NO_MATCH
            : cost.points.length === 0
              ? `Too little data to draw: no entry${filtered ? " matching the filters" : ""} reports its ${axis === "cost" ? "cost (usage.cost_usd); switch to latency" : "latency (duration_s or timestamps)"}.`
              : null
        }
      >
        <LazyCostScatter data={cost} />
      </ChartFigure>
    </section>
  );
});
