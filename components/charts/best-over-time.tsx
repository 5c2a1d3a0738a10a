"use client";
import { CartesianGrid, Line, LineChart, Tooltip, XAxis, YAxis } from "recharts";
import type { BestPoint } from "./chart-data";
import { axisTick, seriesColor, tooltipStyle } from "./palette";

const DAY = 86_400_000;
const day = (t: number) => new Date(t).toISOString().slice(0, 10);
const minute = (t: number) => new Date(t).toISOString().slice(5, 16).replace("T", " ");

/** The best overall score over time, as a step line. Described by the surrounding figure. */
export default function BestOverTime({ points }: { points: BestPoint[] }) {
  const span = (points.at(-1)?.t ?? 0) - (points[0]?.t ?? 0);
  const tick = span < 2 * DAY ? minute : day;
  return (
    <LineChart data={points} responsive style={{ width: "100%", height: 288 }} margin={{ top: 8, right: 16, bottom: 0, left: -16 }} accessibilityLayer={false}>
      <CartesianGrid stroke="currentColor" strokeOpacity={0.15} />
      <XAxis dataKey="t" type="number" scale="time" domain={["dataMin", "dataMax"]} tickFormatter={tick} tick={axisTick} stroke="currentColor" strokeOpacity={0.4} tickLine={false} minTickGap={24} />
      <YAxis domain={[0, 100]} tick={axisTick} stroke="currentColor" strokeOpacity={0.4} tickLine={false} width={48} />
      <Tooltip
        {...tooltipStyle}
        labelFormatter={(t) => `${minute(Number(t))} UTC`}
        formatter={(v, _name, item) => [`${String(v)} (${String((item.payload as BestPoint | undefined)?.agent ?? "")})`, "Best overall"]}
      />
      <Line type="stepAfter" dataKey="best" name="Best overall" stroke={seriesColor(0)} strokeWidth={2} dot={{ r: 3 }} isAnimationActive={false} />
    </LineChart>
  );
}
