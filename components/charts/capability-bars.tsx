"use client";
import { Bar, BarChart, CartesianGrid, Legend, Tooltip, XAxis, YAxis, type XAxisTickContentProps } from "recharts";
import type { CapabilityBarsData } from "./chart-data";
import { axisTick, seriesColor, tooltipStyle } from "./palette";

/** A category label broken into lines of words, so long capability names fit under narrow groups. */
function WrappedTick({ x, y, payload }: XAxisTickContentProps) {
  const words = String(payload.value).split(/\s+/);
  const lines: string[] = [];
  for (const w of words) {
    const last = lines.at(-1);
    if (last !== undefined && `${last} ${w}`.length <= 12) lines[lines.length - 1] = `${last} ${w}`;
    else lines.push(w);
  }
  return (
    <text x={x} y={y} textAnchor="middle" fill="currentColor" fontSize={12}>
      {lines.map((l, i) => (
        <tspan key={i} x={x} dy={i === 0 ? 12 : 14}>
          {l}
        </tspan>
      ))}
    </text>
  );
}

/** Grouped bars: one group per capability, one bar per entry. Described by the surrounding figure. */
export default function CapabilityBars({ data }: { data: CapabilityBarsData }) {
  return (
    <BarChart data={data.rows} responsive style={{ width: "100%", height: 288 }} margin={{ top: 8, right: 8, bottom: 0, left: -16 }} accessibilityLayer={false}>
      <CartesianGrid vertical={false} stroke="currentColor" strokeOpacity={0.15} />
      <XAxis dataKey="capability" tick={WrappedTick} height={48} stroke="currentColor" strokeOpacity={0.4} interval={0} tickLine={false} />
      <YAxis domain={[0, 100]} tick={axisTick} stroke="currentColor" strokeOpacity={0.4} tickLine={false} width={48} />
      <Tooltip {...tooltipStyle} cursor={{ fill: "currentColor", fillOpacity: 0.06 }} formatter={(v) => (v == null ? "not submitted" : v)} />
      <Legend wrapperStyle={{ fontSize: 12 }} itemSorter={null} />
      {data.series.map((s, i) => (
        <Bar key={s.key} dataKey={s.key} name={s.name} fill={seriesColor(i)} radius={[3, 3, 0, 0]} maxBarSize={28} isAnimationActive={false} />
      ))}
    </BarChart>
  );
}
