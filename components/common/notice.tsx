import type { ReactNode } from "react";

/** A boxed message; `problem` ones are announced and carry a written "Problem:" prefix. */
export function Notice({ kind = "info", title, children }: { kind?: "info" | "problem"; title?: string; children: ReactNode }) {
  const cls =
    kind === "problem"
      ? "border-red-300 bg-red-50 text-red-950 dark:border-red-800 dark:bg-red-950/50 dark:text-red-100"
      : "border-slate-300 bg-slate-50 text-slate-800 dark:border-slate-700 dark:bg-slate-900 dark:text-slate-200";
  return (
    <div role={kind === "problem" ? "alert" : "status"} className={`rounded-md border px-4 py-3 text-sm ${cls}`}>
      {title ? <p className="font-semibold">{title}</p> : null}
      <div className={title ? "mt-1" : ""}>{children}</div>
    </div>
  );
}
