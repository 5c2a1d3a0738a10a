/** The leaderboard's two charts (server part: data shaping, captions and data tables; the charts load in the browser). */
import { fmtDateTime } from "@/components/leaderboard/format";
import type { CapabilityInfo, LeaderboardEntry } from "@/lib/queries/types";
import { bestOverTimeData, capabilityBarsData } from "./chart-data";
import { ChartFigure } from "./chart-figure";
import { LazyBestOverTime, LazyCapabilityBars } from "./lazy-charts";

export function LeaderboardCharts({ capabilities, entries }: { capabilities: CapabilityInfo[]; entries: LeaderboardEntry[] }) {
  const bars = capabilityBarsData(capabilities, entries, 5);
  const best = bestOverTimeData(entries);
  return (
    <section aria-label="Charts" className="grid gap-4 lg:grid-cols-2">
      <ChartFigure
        id="chart-capabilities"
        title="Capabilities of the top 5"
        caption={`Score per capability (0–100) of the ${bars.series.length} best entries by official rank. A missing bar means the capability was not submitted.`}
        columns={["Capability", ...bars.series.map((s) => s.name)]}
        rows={bars.rows.map((r) => [String(r.capability), ...bars.series.map((s) => (r[s.key] == null ? "not submitted" : String(r[s.key])))])}
      >
        <LazyCapabilityBars data={bars} />
      </ChartFigure>
      <ChartFigure
        id="chart-best"
        title="Best overall score over time"
        caption="The highest overall score on the board at each date (a step each time the record was beaten). Partial entries are not counted."
        columns={["Date", "Best overall", "Held by"]}
        rows={best.map((p) => [fmtDateTime(new Date(p.t).toISOString()), p.best, p.agent])}
      >
        <LazyBestOverTime points={best} />
      </ChartFigure>
    </section>
  );
}
