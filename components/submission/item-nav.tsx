/** Previous and next item in the list the reader came from (its filter and sort kept), and where this one stands: "3 of 39 lost-points items". */
import Link from "next/link";
import type { ItemFilters, ItemPosition } from "@/lib/queries/types";
import { linkClass } from "@/components/common/styles";
import { describeItemList } from "./item-query";
import { itemHref } from "./item-href";

const step = "rounded-md border border-slate-300 px-3 py-1 hover:bg-slate-100 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-sky-600 dark:border-slate-600 dark:hover:bg-slate-800";
const off = "rounded-md border border-slate-200 px-3 py-1 text-slate-400 dark:border-slate-800 dark:text-slate-500";

export function ItemNav({ submissionId, position, filters, query, capabilityLabel, list }: { submissionId: number; position: ItemPosition | null; filters: ItemFilters; query: string; capabilityLabel?: string; list: string }) {
  const what = describeItemList(filters, capabilityLabel);
  if (!position) {
    return (
      <p className="text-sm text-slate-600 dark:text-slate-400">
        This item is not among the {what}.{" "}
        <Link href={list} className={linkClass}>
          Back to the list
        </Link>
      </p>
    );
  }
  return (
    <nav aria-label="Items in this list" className="flex flex-wrap items-center gap-3 text-sm">
      {position.prev ? (
        <Link href={itemHref(submissionId, position.prev, query)} rel="prev" className={step}>
          ← Previous
        </Link>
      ) : (
        <span aria-disabled="true" className={off}>
          ← Previous
        </span>
      )}
      <span className="text-slate-700 dark:text-slate-300">
        {position.index.toLocaleString("en-US")} of {position.total.toLocaleString("en-US")} {what}
      </span>
      {position.next ? (
        <Link href={itemHref(submissionId, position.next, query)} rel="next" className={step}>
          Next →
        </Link>
      ) : (
        <span aria-disabled="true" className={off}>
          Next →
        </span>
      )}
    </nav>
  );
}
