import Link from "next/link";
import { plural } from "./format";

/** Previous/next links plus "page 2 of 6"; `hrefFor` keeps the other URL parameters. */
export function Pagination({ page, pageSize, total, hrefFor, noun = "item" }: { page: number; pageSize: number; total: number; hrefFor: (page: number) => string; noun?: string }) {
  const pages = Math.max(1, Math.ceil(total / pageSize));
  const current = Math.min(page, pages);
  const from = total === 0 ? 0 : (current - 1) * pageSize + 1;
  const to = Math.min(total, current * pageSize);
  const link = "rounded-md border border-slate-300 px-3 py-1 hover:bg-slate-100 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-sky-600 dark:border-slate-600 dark:hover:bg-slate-800";
  const off = "rounded-md border border-slate-200 px-3 py-1 text-slate-400 dark:border-slate-800 dark:text-slate-600";
  return (
    <nav aria-label="Pagination" className="flex flex-wrap items-center justify-between gap-3 text-sm">
      <p className="text-slate-600 dark:text-slate-400">
        {total === 0 ? `No ${noun}s` : `${from.toLocaleString("en-US")}–${to.toLocaleString("en-US")} of ${plural(total, noun)}`} · page {current} of {pages}
      </p>
      <div className="flex gap-2">
        {current > 1 ? (
          <Link href={hrefFor(current - 1)} rel="prev" className={link}>
            ← Previous
          </Link>
        ) : (
          <span aria-disabled="true" className={off}>
            ← Previous
          </span>
        )}
        {current < pages ? (
          <Link href={hrefFor(current + 1)} rel="next" className={link}>
            Next →
          </Link>
        ) : (
          <span aria-disabled="true" className={off}>
            Next →
          </span>
        )}
      </div>
    </nav>
  );
}
