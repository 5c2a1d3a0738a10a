/**
 * A chart with its accessible name: a heading, a caption, optional controls, and the data as a
 * visually hidden table. With `empty`, the chart gives way to that sentence (too little data to draw).
 */
import type { ReactNode } from "react";

export function ChartFigure({
  id,
  title,
  caption,
  columns,
  rows,
  controls,
  empty,
  className = "",
  children,
}: {
  id: string;
  title: string;
  caption: string;
  columns: string[];
  rows: (string | number)[][];
  controls?: ReactNode;
  empty?: string | null;
  className?: string;
  children: ReactNode;
}) {
  return (
    <figure aria-labelledby={`${id}-title`} aria-describedby={`${id}-caption`} className={`relative flex min-w-0 flex-col gap-2 rounded-lg border border-slate-200 p-4 dark:border-slate-800 ${className}`}>
      <figcaption className="flex flex-col gap-1">
        <h2 id={`${id}-title`} className="text-base font-semibold">
          {title}
        </h2>
        <p id={`${id}-caption`} className="text-sm text-slate-600 dark:text-slate-400">
          {caption}
        </p>
      </figcaption>
      {controls}
      {empty ? (
        <p data-chart-empty className="flex h-72 items-center justify-center rounded border border-dashed border-slate-300 px-6 text-center text-sm text-slate-600 dark:border-slate-700 dark:text-slate-400">
          {empty}
        </p>
      ) : (
        <div
          aria-hidden="true"
          className="text-slate-600 [--chart-tooltip-bg:#ffffff] [--chart-tooltip-border:#cbd5e1] dark:text-slate-400 dark:[--chart-tooltip-bg:#0f172a] dark:[--chart-tooltip-border:#334155]"
        >
          {children}
        </div>
      )}
      <div className="sr-only">
        <table>
          <caption>{title}: data</caption>
          <thead>
            <tr>
              {columns.map((c) => (
                <th key={c} scope="col">
                  {c}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {rows.map((r, i) => (
              <tr key={i}>
                {r.map((v, j) => (j === 0 ? <th key={j} scope="row">{v}</th> : <td key={j}>{v}</td>))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </figure>
  );
}
