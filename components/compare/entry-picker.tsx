/**
 * Choose the entries to compare: a switch between the board's benchmarks, then checkboxes of
 * the chosen benchmark's entries grouped by version, plus a box for ids, as a GET form (works
 * without JavaScript; the page turns the result into `?ids=a,b,c`). Selected entries come
 * first in their current order, so the baseline stays first when more are added.
 *
 * A client component: a popular board lists a thousand entries here, which the page then
 * carries once as data instead of a second time as markup in its payload.
 */
"use client";

import Link from "next/link";
import type { BenchmarkLink, PickableGroup } from "@/lib/queries/types";
import { formatScore } from "@/components/common/format";
import { StateBadge } from "@/components/common/state-badge";
import { buttonClass, controlClass, pillClass } from "@/components/common/styles";

export function EntryPicker({ benchmarks, benchmark, groups, selected }: { benchmarks: BenchmarkLink[]; benchmark: { slug: string; title: string }; groups: PickableGroup[]; selected: number[] }) {
  const several = groups.length > 1;
  return (
    <div className="space-y-3">
      {benchmarks.length > 1 ? (
        <nav aria-label="Benchmark to pick entries from" className="flex flex-wrap items-center gap-2 text-sm">
          <span className="text-slate-700 dark:text-slate-300">Benchmark:</span>
          <ul className="flex flex-wrap gap-1">
            {benchmarks.map((b) => (
              <li key={b.slug}>
                <Link href={`/compare?benchmark=${encodeURIComponent(b.slug)}`} aria-current={b.slug === benchmark.slug ? "page" : undefined} className={pillClass(b.slug === benchmark.slug)}>
                  {b.title}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
      ) : null}
      <form method="get" action="/compare" className="space-y-4 rounded-lg border border-slate-200 p-4 dark:border-slate-800">
        <div className="flex flex-col gap-1">
          <label htmlFor="compare-ids" className="text-sm font-medium">
            Entry ids to put first
          </label>
          <input
            id="compare-ids"
            name="ids"
            inputMode="numeric"
            placeholder="e.g. 6, 3"
            aria-describedby="compare-ids-hint"
            className={`${controlClass} max-w-xs`}
            pattern="[0-9,\s]*"
          />
          <p id="compare-ids-hint" className="text-xs text-slate-600 dark:text-slate-400">
            Optional. Comma-separated ids; the first entry of the comparison is the baseline the others are tested against.
          </p>
        </div>
        {groups.every((g) => g.entries.length === 0) ? <p className="text-sm text-slate-600 dark:text-slate-400">No entries of {benchmark.title} to compare yet.</p> : null}
        {groups.map((g) =>
          g.entries.length === 0 ? null : (
            <fieldset key={g.version}>
              <legend className="text-sm font-medium">
                {benchmark.title} v{g.version} (choose two to four{several ? " of one version" : ""})
              </legend>
              <ul className="mt-2 grid gap-x-6 gap-y-1 sm:grid-cols-2 lg:grid-cols-3">
                {[...selected.flatMap((id) => g.entries.filter((e) => e.id === id)), ...g.entries.filter((e) => !selected.includes(e.id))].map((e) => (
                  <li key={e.id}>
                    <label className="flex items-center gap-2 rounded px-1 py-1 text-sm hover:bg-slate-50 dark:hover:bg-slate-900">
                      <input
                        type="checkbox"
                        name="ids"
                        value={e.id}
                        defaultChecked={selected.includes(e.id)}
                        className="h-4 w-4 shrink-0 accent-sky-700 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-sky-600"
                      />
                      <span className="break-words">
                        {e.agent}{" "}
                        <span className="text-slate-600 dark:text-slate-400">
                          #{e.id} · {e.rank === null ? "" : `rank ${e.rank} · `}
                          {formatScore(e.overall)}
                        </span>
                        {e.state !== "published" ? (
                          <>
                            {" "}
                            <StateBadge state={e.state} />
                          </>
                        ) : null}
                      </span>
                    </label>
                  </li>
                ))}
              </ul>
            </fieldset>
          ),
        )}
        <button type="submit" className={buttonClass}>
          Compare
        </button>
      </form>
    </div>
  );
}
