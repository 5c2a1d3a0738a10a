/**
 * Choose the entries to compare: checkboxes of the published entries plus a box for ids, as a
 * GET form (works without JavaScript; the page turns the result into `?ids=a,b,c`). Selected
 * entries come first in their current order, so the baseline stays first when more are added.
 */
import type { LeaderboardEntry } from "@/lib/queries/types";
import { formatScore } from "@/components/common/format";
import { buttonClass, controlClass } from "@/components/common/styles";

export function EntryPicker({ entries, selected }: { entries: Pick<LeaderboardEntry, "id" | "agent" | "rank" | "overall">[]; selected: number[] }) {
  const chosen = selected.map((id) => entries.find((e) => e.id === id)).filter((e) => e !== undefined);
  const rest = entries.filter((e) => !selected.includes(e.id));
  return (
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
      <fieldset>
        <legend className="text-sm font-medium">Published entries (choose two to four)</legend>
        {entries.length === 0 ? (
          <p className="mt-2 text-sm text-slate-600 dark:text-slate-400">No published entries yet.</p>
        ) : (
          <ul className="mt-2 grid gap-x-6 gap-y-1 sm:grid-cols-2 lg:grid-cols-3">
            {[...chosen, ...rest].map((e) => (
              <li key={e.id}>
                <label className="flex items-center gap-2 rounded px-1 py-1 text-sm hover:bg-slate-50 dark:hover:bg-slate-900">
                  <input type="checkbox" name="ids" value={e.id} defaultChecked={selected.includes(e.id)} className="h-4 w-4 accent-sky-700 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-sky-600" />
                  <span>
                    {e.agent} <span className="text-slate-500 dark:text-slate-400">#{e.id} · rank {e.rank} · {formatScore(e.overall.score)}</span>
                  </span>
                </label>
              </li>
            ))}
          </ul>
        )}
      </fieldset>
      <button type="submit" className={buttonClass}>
        Compare
      </button>
    </form>
  );
}
