/** Class strings several pages share, so tables, links and controls look and focus the same. */

export const linkClass = "text-sky-700 underline decoration-1 underline-offset-2 hover:decoration-2 focus-visible:rounded-sm focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-sky-600 dark:text-sky-400";

export const tableClass = "w-full border-collapse text-left text-sm";
export const theadClass = "border-b border-slate-300 text-xs tracking-wide text-slate-600 uppercase dark:border-slate-700 dark:text-slate-400";
export const thClass = "px-3 py-2 font-semibold";
export const tdClass = "px-3 py-2 align-top";
export const rowClass = "border-b border-slate-100 dark:border-slate-800/80";

/** A horizontally scrolling, keyboard-focusable wrapper for wide tables on phones. */
export const scrollClass = "relative overflow-x-auto rounded-md border border-slate-200 focus-visible:outline-2 focus-visible:outline-sky-600 dark:border-slate-800";

export const controlClass =
  "rounded-md border border-slate-300 bg-white px-2 py-1.5 text-sm focus-visible:outline-2 focus-visible:outline-offset-1 focus-visible:outline-sky-600 dark:border-slate-600 dark:bg-slate-900";

export const buttonClass =
  "rounded-md bg-sky-700 px-3 py-1.5 text-sm font-medium text-white hover:bg-sky-800 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-sky-600 dark:bg-sky-700 dark:hover:bg-sky-600";

export const secondaryButtonClass =
  "rounded-md border border-slate-300 px-3 py-1.5 text-sm hover:bg-slate-100 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-sky-600 dark:border-slate-600 dark:hover:bg-slate-800";

export const codeClass = "rounded bg-slate-100 px-1 py-0.5 font-mono text-[0.85em] dark:bg-slate-800";

/** A switch between views (benchmarks, versions) as a row of links; `current` marks the one shown. */
export const pillClass = (current: boolean) =>
  `inline-block rounded-md border px-2 py-0.5 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-sky-600 ${
    current ? "border-sky-600 bg-sky-50 font-medium text-sky-900 dark:border-sky-500 dark:bg-sky-950 dark:text-sky-100" : "border-slate-300 hover:bg-slate-50 dark:border-slate-600 dark:hover:bg-slate-800"
  }`;
