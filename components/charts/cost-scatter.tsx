"use client";
import { CartesianGrid, Legend, Scatter, ScatterChart, Tooltip, XAxis, YAxis } from "recharts";
import { fmtSeconds, fmtUsd } from "@/components/leaderboard/format";
import { logTicks, type CostChartData, type CostPoint } from "./chart-data";
import { axisTick, seriesColor, tooltipStyle } from "./palette";

const OTHER = "#94a3b8";
const PARTIAL = "#f59e0b";
/** A pale fill, so partial entries read as hollow (and still show in the legend) on both backgrounds. */
const PARTIAL_FILL = "#fef3c7";
/** Names on the points while they stay readable. */
const MAX_LABELS = 12;

/**
 * Overall score against cost or latency, one point per entry, with the Pareto front as a
 * staircase of diamonds; partial entries are hollow. Described by the surrounding figure.
 */
export default function CostScatter({ data }: { data: CostChartData }) {
  const fmt = data.axis === "cost" ? fmtUsd : fmtSeconds;
  const lo = data.points.reduce((m, p) => Math.min(m, p.x), Infinity);
  const hi = data.points.reduce((m, p) => Math.max(m, p.x), 0);
  // A log scale spreads cheap entries apart; it needs positive values and a spread to be worth it.
  const log = data.points.length > 1 && lo > 0 && hi / lo >= 10;
  const ticks = log ? logTicks(lo, hi) : undefined;
  const label = data.points.length <= MAX_LABELS ? { dataKey: "agent", position: "top" as const, fontSize: 11, fill: "currentColor" } : false;
  const series: { name: string; points: CostPoint[]; color: string; shape: "diamond" | "circle"; hollow?: boolean; line?: boolean }[] = [
    { name: "Pareto front", points: data.front, color: seriesColor(0), shape: "diamond", line: true },
    { name: "Other entries", points: data.points.filter((p) => !p.front && !p.partial), color: OTHER, shape: "circle" },
    { name: "Partial entries (not compared)", points: data.points.filter((p) => p.partial), color: PARTIAL, shape: "circle", hollow: true },
  ];
  return (
    <ScatterChart responsive style={{ width: "100%", height: 288 }} margin={{ top: 16, right: 24, bottom: 0, left: -16 }} accessibilityLayer={false}>
      <CartesianGrid stroke="currentColor" strokeOpacity={0.15} />
      <XAxis
        dataKey="x"
        type="number"
        name={data.axis === "cost" ? "Cost" : "Median latency"}
        scale={log ? "log" : "linear"}
        domain={ticks ? [ticks[0]!, ticks.at(-1)!] : [0, "auto"]}
        ticks={ticks}
        tickFormatter={(v) => fmt(Number(v))}
        tick={axisTick}
        stroke="currentColor"
        strokeOpacity={0.4}
        tickLine={false}
        minTickGap={16}
      />
      <YAxis dataKey="y" type="number" name="Overall" domain={[0, 100]} tick={axisTick} stroke="currentColor" strokeOpacity={0.4} tickLine={false} width={48} />
      <Tooltip
        {...tooltipStyle}
        cursor={{ strokeDasharray: "3 3" }}
        formatter={(v, name) => [name === "Overall" ? String(v) : fmt(Number(v)), String(name)]}
        labelFormatter={(_l, payload) => String((payload?.[0]?.payload as CostPoint | undefined)?.agent ?? "")}
      />
      {/* Legend text in the page's colours: recharts colours it like the fill, and the partial entries' pale fill would not read. */}
      <Legend wrapperStyle={{ fontSize: 12 }} formatter={(value) => <span className="text-slate-700 dark:text-slate-300">{value}</span>} />
      {series
        .filter((s) => s.points.length > 0)
        .map((s) => (
          <Scatter
            key={s.name}
            name={s.name}
            data={s.points}
            shape={s.shape}
            fill={s.hollow ? PARTIAL_FILL : s.color}
            stroke={s.color}
            strokeWidth={s.hollow ? 2 : 1}
            line={s.line ? { stroke: s.color, strokeWidth: 2 } : false}
            lineJointType="stepAfter"
            label={label}
            isAnimationActive={false}
          />
        ))}
    </ScatterChart>
  );
}
