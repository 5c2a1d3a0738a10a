/**
 * Filters, sort and page size for the item table as a plain GET form: the view lives in the
 * URL, works without JavaScript, and a new filter starts again at page 1. "Lost points" is
 * the default view; "All items" sends `lost=0`.
 */
import Link from "next/link";
import { ITEM_PAGE_SIZES, ITEM_SORT_KEYS } from "@/lib/queries/item-params";
import { outcomeTerm } from "@/lib/scoring/outcome";
import type { ItemFilters, ItemPage, ItemSortKey } from "@/lib/queries/types";
import { SelectField } from "@/components/common/select-field";
import { buttonClass, linkClass } from "@/components/common/styles";
import { itemQuery } from "./item-query";

const SORT_LABELS: Record<ItemSortKey, string> = {
  item: "Item id",
  trial: "Trial",
  capability: "Capability",
  domain: "Domain",
  question: "Question",
  answer: "Agent's answer",
  reason: "Reason",
  outcome: "Outcome",
  weight: "Weight",
  score: "Score",
};


/** The facet's values, keeping the current one even when this run has none of it (an old link). */
const withCurrent = (values: string[], current: string | undefined) => (current && !values.includes(current) ? [...values, current] : values);

export function ItemFilterForm({ action, facets, filters, capabilityLabels }: { action: string; facets: ItemPage["facets"]; filters: ItemFilters; capabilityLabels: Record<string, string> }) {
  const all = { value: "", label: "All" };
  const opt = (value: string, label = value) => ({ value, label });
  const narrowed = filters.capability || filters.domain || filters.trial !== undefined || filters.outcome || filters.lost === false || filters.sort;
  // A plain run has one trial: no filter to offer, and no trial to sort by.
  const trials = facets.trials.length > 1;
  return (
    <form method="get" action={`${action}#items`} className="flex flex-wrap items-end gap-3" aria-label="Filter and sort items">
      <SelectField id="item-filter-lost" label="Show" name="lost" value={filters.lost === false ? "0" : "1"} options={[opt("1", "Lost points (score below 1)"), opt("0", "All items")]} />
      <SelectField id="item-filter-capability" label="Capability" name="capability" value={filters.capability ?? ""} options={[all, ...withCurrent(facets.capabilities, filters.capability).map((v) => opt(v, capabilityLabels[v] ?? v))]} />
      <SelectField id="item-filter-domain" label="Domain" name="domain" value={filters.domain ?? ""} options={[all, ...withCurrent(facets.domains, filters.domain).map((v) => opt(v))]} />
      {trials ? (
        <SelectField
          id="item-filter-trial"
          label="Trial"
          name="trial"
          value={filters.trial === undefined ? "" : String(filters.trial)}
          options={[all, ...withCurrent(facets.trials.map(String), filters.trial === undefined ? undefined : String(filters.trial)).map((v) => opt(v, `Trial ${v}`))]}
        />
      ) : null}
      <SelectField id="item-filter-outcome" label="Outcome" name="outcome" value={filters.outcome ?? ""} options={[all, ...facets.outcomes.map((v) => opt(v, outcomeTerm(v).label))]} />
      <SelectField id="item-filter-sort" label="Sort by" name="sort" value={filters.sort ?? ""} options={[opt("", "Capability, domain, id"), ...ITEM_SORT_KEYS.filter((k) => trials || k !== "trial").map((k) => opt(k, SORT_LABELS[k]))]} />
      <SelectField id="item-filter-dir" label="Order" name="dir" value={filters.dir ?? "asc"} options={[opt("asc", "Ascending"), opt("desc", "Descending")]} />
      <SelectField id="item-filter-size" label="Per page" name="size" value={String(filters.pageSize ?? ITEM_PAGE_SIZES[0])} options={ITEM_PAGE_SIZES.map((n) => opt(String(n)))} />
      <button type="submit" className={buttonClass}>
        Apply
      </button>
      {filters.lost !== false ? (
        <Link href={`${action}${itemQuery({ ...filters, lost: false, page: undefined })}#items`} className={`${linkClass} py-1.5 text-sm`}>
          Show all items
        </Link>
      ) : null}
      {narrowed ? (
        <Link href={`${action}#items`} className={`${linkClass} py-1.5 text-sm`}>
          Reset to lost points
        </Link>
      ) : null}
    </form>
  );
}
