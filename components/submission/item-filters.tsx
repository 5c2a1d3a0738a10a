/**
 * Filters for the item table as a plain GET form: the filters live in the URL, work without
 * JavaScript, and a new filter starts again at page 1.
 */
import Link from "next/link";
import type { ItemFilters, ItemPage } from "@/lib/queries/types";
import { buttonClass, controlClass, linkClass } from "@/components/common/styles";

export const ITEM_FILTER_KEYS = ["capability", "domain", "stage", "status"] as const;
export type ItemFilterKey = (typeof ITEM_FILTER_KEYS)[number];

const LABELS: Record<ItemFilterKey, string> = { capability: "Capability", domain: "Domain", stage: "Ended at stage", status: "Status" };

export function ItemFilterForm({
  action,
  facets,
  filters,
  capabilityLabels,
}: {
  action: string;
  facets: ItemPage["facets"];
  filters: ItemFilters;
  capabilityLabels: Record<string, string>;
}) {
  const options: Record<ItemFilterKey, string[]> = { capability: facets.capabilities, domain: facets.domains, stage: facets.stages, status: facets.statuses };
  const active = ITEM_FILTER_KEYS.some((k) => filters[k]);
  return (
    <form method="get" action={`${action}#items`} className="flex flex-wrap items-end gap-3" aria-label="Filter items">
      {ITEM_FILTER_KEYS.map((key) => {
        const id = `item-filter-${key}`;
        const current = filters[key] ?? "";
        const values = current && !options[key].includes(current) ? [...options[key], current] : options[key];
        return (
          <div key={key} className="flex flex-col gap-1">
            <label htmlFor={id} className="text-xs font-medium text-slate-700 dark:text-slate-300">
              {LABELS[key]}
            </label>
            <select id={id} name={key} defaultValue={current} className={controlClass}>
              <option value="">All</option>
              {values.map((v) => (
                <option key={v} value={v}>
                  {key === "capability" ? (capabilityLabels[v] ?? v) : v}
                </option>
              ))}
            </select>
          </div>
        );
      })}
      <button type="submit" className={buttonClass}>
        Apply filters
      </button>
      {active ? (
        <Link href={`${action}#items`} className={`${linkClass} py-1.5 text-sm`}>
          Clear filters
        </Link>
      ) : null}
    </form>
  );
}
