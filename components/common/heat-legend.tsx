import type { CSSProperties } from "react";
import { heatLegend } from "./heat-scale";

/** The 0-100 colour ramp of heat-shaded tables, with a sentence saying how to read it. */
export function HeatLegend() {
  return (
    <div className="flex flex-wrap items-center gap-2 text-xs text-slate-600 dark:text-slate-400">
      <span>0</span>
      <span
        aria-hidden="true"
        className="h-3 w-40 rounded-sm border border-slate-300 bg-[image:var(--legend-light)] dark:border-slate-600 dark:bg-[image:var(--legend-dark)]"
        style={{ "--legend-light": heatLegend.light, "--legend-dark": heatLegend.dark } as CSSProperties}
      />
      <span>100</span>
      <span className="sm:ml-2">Stronger shade, higher score; every cell also prints its score.</span>
    </div>
  );
}
