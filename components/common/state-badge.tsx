import type { ReactNode } from "react";

/** A submission state as a coloured pill; the state's name is always written, so colour is never the only signal. */

const tone: Record<string, string> = {
  received: "bg-slate-100 text-slate-800 ring-slate-300 dark:bg-slate-800 dark:text-slate-200 dark:ring-slate-600",
  validating: "bg-slate-100 text-slate-800 ring-slate-300 dark:bg-slate-800 dark:text-slate-200 dark:ring-slate-600",
  queued: "bg-amber-50 text-amber-900 ring-amber-300 dark:bg-amber-950 dark:text-amber-200 dark:ring-amber-700",
  scoring: "bg-sky-50 text-sky-900 ring-sky-300 dark:bg-sky-950 dark:text-sky-200 dark:ring-sky-700",
  scored: "bg-indigo-50 text-indigo-900 ring-indigo-300 dark:bg-indigo-950 dark:text-indigo-200 dark:ring-indigo-700",
  approved: "bg-teal-50 text-teal-900 ring-teal-300 dark:bg-teal-950 dark:text-teal-200 dark:ring-teal-700",
  published: "bg-emerald-50 text-emerald-900 ring-emerald-300 dark:bg-emerald-950 dark:text-emerald-200 dark:ring-emerald-700",
  invalid: "bg-red-50 text-red-900 ring-red-300 dark:bg-red-950 dark:text-red-200 dark:ring-red-700",
  error: "bg-red-50 text-red-900 ring-red-300 dark:bg-red-950 dark:text-red-200 dark:ring-red-700",
  rejected: "bg-rose-50 text-rose-900 ring-rose-300 dark:bg-rose-950 dark:text-rose-200 dark:ring-rose-700",
  withdrawn: "bg-zinc-100 text-zinc-700 ring-zinc-300 dark:bg-zinc-800 dark:text-zinc-300 dark:ring-zinc-600",
};

const icon: Record<string, string> = {
  received: "○",
  validating: "◌",
  queued: "◷",
  scoring: "◔",
  scored: "◑",
  approved: "◕",
  published: "●",
  invalid: "✕",
  error: "!",
  rejected: "✕",
  withdrawn: "–",
};

export function StateBadge({ state }: { state: string }) {
  return (
    <span className={`inline-flex items-center gap-1 rounded-full px-2 py-0.5 text-xs font-medium whitespace-nowrap ring-1 ring-inset ${tone[state] ?? tone.received}`}>
      <span aria-hidden="true">{icon[state] ?? "○"}</span>
      {state}
    </span>
  );
}

/** A small neutral label: "demo", "verified replay", "partial". */
export function Tag({ children, title, tone: t = "neutral" }: { children: ReactNode; title?: string; tone?: "neutral" | "good" | "warn" }) {
  const cls =
    t === "good"
      ? "border-emerald-400 text-emerald-800 dark:border-emerald-600 dark:text-emerald-300"
      : t === "warn"
        ? "border-amber-400 text-amber-800 dark:border-amber-600 dark:text-amber-300"
        : "border-slate-300 text-slate-700 dark:border-slate-600 dark:text-slate-300";
  return (
    <span title={title} className={`inline-flex items-center rounded border px-1.5 py-0.5 text-xs whitespace-nowrap ${cls}`}>
      {children}
    </span>
  );
}
