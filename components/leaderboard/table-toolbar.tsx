"use client";
import { useId } from "react";
import { BOARD_VIEW, isDefaultView, MAX_QUERY_LENGTH, queryString, serializeView, type BadgeFilter, type BadgeFilterKey, type Metric, type ViewState } from "./view-state";

const focusRing = "focus-visible:outline focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-sky-600";
const control = `rounded-md border border-slate-300 bg-white px-2.5 py-1.5 text-sm hover:bg-slate-50 dark:border-slate-600 dark:bg-slate-900 dark:hover:bg-slate-800 ${focusRing}`;

const FILTERS: { key: BadgeFilterKey; label: string; on: BadgeFilter; title: string }[] = [
  { key: "verified", label: "Verified only", on: "only", title: "Only entries whose tool calls were replay verified" },
  { key: "partial", label: "Hide partial", on: "hide", title: "Hide entries that did not submit every capability" },
  { key: "demo", label: "Hide demo", on: "hide", title: "Hide demo entries" },
  { key: "flagged", label: "Hide flagged", on: "hide", title: "Hide entries with an integrity flag (duplicate, near copy, unsupported answers, canary)" },
];

const METRIC_CHOICES: { value: Metric; label: string; title: string }[] = [
  { value: "score", label: "Mean score", title: "Scores with their 95% intervals: for an entry of several trials, the mean over its trials" },
  { value: "passk", label: "pass^k", title: "The share of items solved in all k trials, for entries of two trials or more (— for one trial)" },
];

export interface ToggleableColumn {
  id: string;
  label: string;
}

/** The API URL of the current view for a download format. */
export function downloadHref(base: { benchmark: string; version: string }, view: ViewState, format: "csv" | "json"): string {
  const p = new URLSearchParams({ benchmark: base.benchmark, version: base.version });
  // The chart's axis is no part of an export; the columns hidden by the board's default are named (the API's default hides none).
  for (const [k, v] of serializeView({ ...view, vs: "auto" })) p.set(k, v);
  p.set("format", format);
  return `/api/leaderboard?${queryString(p)}`;
}

export function TableToolbar({
  view,
  onChange,
  columns,
  shown,
  total,
  base,
}: {
  view: ViewState;
  onChange: (next: ViewState) => void;
  columns: ToggleableColumn[];
  shown: number;
  total: number;
  base: { benchmark: string; version: string };
}) {
  const searchId = useId();
  const fileBase = `${base.benchmark}-${base.version}-leaderboard`.replace(/[^\w.-]+/g, "_");
  return (
    <div className="flex flex-col gap-3">
      <div className="flex flex-wrap items-end gap-x-3 gap-y-2">
        <div className="flex min-w-48 flex-1 flex-col gap-1 sm:max-w-sm">
          <label htmlFor={searchId} className="text-xs font-medium text-slate-600 dark:text-slate-400">
            Search agent, model or maintainer
          </label>
          <input
            id={searchId}
            type="search"
            value={view.q}
            maxLength={MAX_QUERY_LENGTH}
            placeholder="e.g. gpt claude"
            onChange={(e) => onChange({ ...view, q: e.target.value })}
            className={`${control} w-full placeholder:text-slate-400 dark:placeholder:text-slate-500`}
          />
        </div>
        <fieldset className="flex flex-wrap gap-2">
          <legend className="sr-only">Filters</legend>
          {FILTERS.map((f) => {
            const active = view[f.key] === f.on;
            return (
              <label
                key={f.key}
                title={f.title}
                className={`flex cursor-pointer items-center gap-1.5 rounded-md border px-2.5 py-1.5 text-sm has-[:focus-visible]:outline has-[:focus-visible]:outline-2 has-[:focus-visible]:outline-offset-2 has-[:focus-visible]:outline-sky-600 ${
                  active
                    ? "border-sky-600 bg-sky-50 text-sky-900 dark:border-sky-500 dark:bg-sky-950 dark:text-sky-100"
                    : "border-slate-300 bg-white hover:bg-slate-50 dark:border-slate-600 dark:bg-slate-900 dark:hover:bg-slate-800"
                }`}
              >
                <input
                  type="checkbox"
                  checked={active}
                  onChange={(e) => onChange({ ...view, [f.key]: e.target.checked ? f.on : "any" })}
                  className="size-3.5 accent-sky-600"
                />
                {f.label}
              </label>
            );
          })}
        </fieldset>
        <fieldset className="flex rounded-md border border-slate-300 p-0.5 dark:border-slate-600">
          <legend className="sr-only">Score shown</legend>
          {METRIC_CHOICES.map((m) => (
            <label
              key={m.value}
              title={m.title}
              className={`cursor-pointer rounded px-2 py-1 text-sm has-[:focus-visible]:outline has-[:focus-visible]:outline-2 has-[:focus-visible]:outline-offset-2 has-[:focus-visible]:outline-sky-600 ${
                view.metric === m.value ? "bg-sky-100 font-medium text-sky-900 dark:bg-sky-900 dark:text-sky-100" : "hover:bg-slate-50 dark:hover:bg-slate-800"
              }`}
            >
              <input type="radio" name="board-metric" value={m.value} checked={view.metric === m.value} onChange={() => onChange({ ...view, metric: m.value })} className="sr-only" />
              {view.metric === m.value ? <span aria-hidden="true">✓ </span> : null}
              {m.label}
            </label>
          ))}
        </fieldset>
        <details className="relative">
          <summary className={`${control} cursor-pointer list-none select-none [&::-webkit-details-marker]:hidden`}>
            Columns{view.hide.length ? ` (${view.hide.length} hidden)` : ""} ▾
          </summary>
          <fieldset className="absolute left-0 z-30 mt-1 flex w-56 flex-col gap-1 rounded-md border border-slate-200 bg-white p-2 shadow-lg dark:border-slate-700 dark:bg-slate-900">
            <legend className="sr-only">Visible columns</legend>
            {columns.map((c) => (
              <label key={c.id} className="flex cursor-pointer items-center gap-2 rounded px-1.5 py-1 text-sm hover:bg-slate-100 dark:hover:bg-slate-800">
                <input
                  type="checkbox"
                  checked={!view.hide.includes(c.id)}
                  onChange={(e) => {
                    const hidden = new Set(view.hide);
                    if (e.target.checked) hidden.delete(c.id);
                    else hidden.add(c.id);
                    onChange({ ...view, hide: columns.map((x) => x.id).filter((id) => hidden.has(id)) });
                  }}
                  className={`size-3.5 accent-sky-600 ${focusRing}`}
                />
                {c.label}
              </label>
            ))}
          </fieldset>
        </details>
        {!isDefaultView(view, BOARD_VIEW) && (
          <button type="button" onClick={() => onChange(BOARD_VIEW)} className={`${control} text-slate-700 dark:text-slate-300`}>
            Reset view
          </button>
        )}
        <div className="flex items-center gap-2 sm:ml-auto">
          <span className="text-xs text-slate-600 dark:text-slate-400">Download view</span>
          <a href={downloadHref(base, view, "csv")} download={`${fileBase}.csv`} className={control}>
            CSV
          </a>
          <a href={downloadHref(base, view, "json")} download={`${fileBase}.json`} className={control}>
            JSON
          </a>
        </div>
      </div>
      <p className="text-sm text-slate-600 dark:text-slate-400" aria-live="polite">
        {shown === total ? `${total} ${total === 1 ? "entry" : "entries"}` : `Showing ${shown} of ${total} entries`}
      </p>
    </div>
  );
}
