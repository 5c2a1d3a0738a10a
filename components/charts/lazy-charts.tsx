"use client";
/** The recharts charts load after the page (they are the heaviest client code); a fixed-height placeholder keeps the layout still. */
import dynamic from "next/dynamic";

function Placeholder() {
  return <div className="h-72 w-full animate-pulse rounded bg-slate-100 dark:bg-slate-900" />;
}

export const LazyCapabilityBars = dynamic(() => import("./capability-bars"), { ssr: false, loading: Placeholder });
export const LazyBestOverTime = dynamic(() => import("./best-over-time"), { ssr: false, loading: Placeholder });
export const LazyCostScatter = dynamic(() => import("./cost-scatter"), { ssr: false, loading: Placeholder });
