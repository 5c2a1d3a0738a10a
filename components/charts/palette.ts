/** Series colours that read on both light and dark backgrounds. */
export const SERIES_COLORS = ["#0ea5e9", "#f59e0b", "#10b981", "#a855f7", "#f43f5e", "#14b8a6"] as const;

export function seriesColor(i: number): string {
  return SERIES_COLORS[i % SERIES_COLORS.length]!;
}

/** Tooltip box styles; the colours come from CSS variables set on the chart frame (light and dark). */
export const tooltipStyle = {
  contentStyle: {
    backgroundColor: "var(--chart-tooltip-bg)",
    borderColor: "var(--chart-tooltip-border)",
    borderRadius: 6,
    color: "inherit",
    fontSize: 12,
  },
  labelStyle: { color: "inherit", fontWeight: 600 },
} as const;

export const axisTick = { fill: "currentColor", fontSize: 12 } as const;
