"use client";
/**
 * Picking rows of the board to compare: a checkbox in each row's rank cell and a "Compare
 * selected" link to `/compare?ids=…`. The pick is transient component state (not in the URL): it
 * lives until the reader leaves the page, as a selection in a file manager does.
 */
import Link from "next/link";
import { createContext, useCallback, useContext, useId, useMemo, useState } from "react";

export const MIN_PICK = 2;
export const MAX_PICK = 4;

interface Pick {
  /** Entry ids in the order they were picked: the compare page tests each against the first. */
  picked: readonly number[];
  toggle: (id: number) => void;
}

const PickContext = createContext<Pick>({ picked: [], toggle: () => {} });
export const PickProvider = PickContext.Provider;

/** The compare page's URL for picked entries. */
export function compareHref(ids: readonly number[]): string {
  return `/compare?ids=${ids.join(",")}`;
}

export function usePick() {
  const [picked, setPicked] = useState<number[]>([]);
  const toggle = useCallback((id: number) => setPicked((p) => (p.includes(id) ? p.filter((x) => x !== id) : p.length < MAX_PICK ? [...p, id] : p)), []);
  const clear = useCallback(() => setPicked([]), []);
  const value = useMemo(() => ({ picked, toggle }), [picked, toggle]);
  return { picked, clear, value };
}

/** The checkbox of one row; disabled (with the reason as its title) once four others are picked. */
export function PickBox({ id, agent }: { id: number; agent: string }) {
  const { picked, toggle } = useContext(PickContext);
  const checked = picked.includes(id);
  const full = !checked && picked.length >= MAX_PICK;
  return (
    <input
      type="checkbox"
      checked={checked}
      disabled={full}
      onChange={() => toggle(id)}
      aria-label={`Compare ${agent}`}
      title={full ? `At most ${MAX_PICK} entries can be compared` : undefined}
    />
  );
}

const control =
  "rounded-md border px-2.5 py-1 text-sm focus-visible:outline focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-sky-600";

/** "Compare selected (n)": a link from two picked rows on, a disabled button with the reason below that. */
export function CompareBar({ picked, onClear }: { picked: readonly number[]; onClear: () => void }) {
  const hintId = useId();
  const ready = picked.length >= MIN_PICK;
  const label = `Compare selected (${picked.length})`;
  return (
    <div className="flex flex-wrap items-center gap-2">
      {ready ? (
        <Link href={compareHref(picked)} prefetch={false} className={`${control} border-sky-700 bg-sky-700 font-medium text-white hover:bg-sky-800 dark:border-sky-600 dark:bg-sky-700 dark:hover:bg-sky-600`}>
          {label}
        </Link>
      ) : (
        <button type="button" disabled aria-describedby={hintId} className={`${control} cursor-not-allowed border-slate-300 text-slate-500 dark:border-slate-600 dark:text-slate-400`}>
          {label}
        </button>
      )}
      {picked.length > 0 ? (
        <button type="button" onClick={onClear} className={`${control} border-slate-300 hover:bg-slate-50 dark:border-slate-600 dark:hover:bg-slate-800`}>
          Clear
        </button>
      ) : null}
      <span id={hintId} className="text-xs text-slate-600 dark:text-slate-400">
        {picked.length >= MAX_PICK ? `${MAX_PICK} picked: the most a comparison takes.` : `Tick ${MIN_PICK} to ${MAX_PICK} rows to compare them.`}
      </span>
    </div>
  );
}
