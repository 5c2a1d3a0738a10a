/**
 * The item table's view state in the URL, read and written in one place: the entry page and
 * the item page (whose previous/next links keep the list they walk) share it.
 * `lost` is on unless the URL says `lost=0`; defaults are left out of the URL. `trial` filters a
 * run of k trials to one trial (the item page: the trial of the item shown, which previous and
 * next keep).
 */
import { DEFAULT_ITEM_PAGE_SIZE, parseItemPageSize, parseItemSort, parseTrial } from "@/lib/queries/item-params";
import { OUTCOME_IDS, outcomeTerm } from "@/lib/scoring/outcome";
import { oneOf } from "@/lib/scoring/item-result";
import type { ItemFilters } from "@/lib/queries/types";
import { firstParam, parsePage, queryString, type SearchParams } from "@/components/common/search-params";

export function itemFiltersFrom(sp: SearchParams): ItemFilters {
  return {
    capability: firstParam(sp, "capability"),
    domain: firstParam(sp, "domain"),
    trial: parseTrial(firstParam(sp, "trial")),
    outcome: oneOf(OUTCOME_IDS, firstParam(sp, "outcome")),
    lost: firstParam(sp, "lost") !== "0",
    ...parseItemSort(firstParam(sp, "sort"), firstParam(sp, "dir")),
    page: parsePage(firstParam(sp, "page")),
    pageSize: parseItemPageSize(firstParam(sp, "size")),
  };
}

/** The URL values of a view (without `page` unless asked), defaults left out. */
export function itemQueryValues(f: ItemFilters, opts: { page?: boolean } = {}): Record<string, string | number | undefined> {
  return {
    capability: f.capability,
    domain: f.domain,
    trial: f.trial,
    outcome: f.outcome,
    lost: f.lost === false ? 0 : undefined,
    sort: f.sort,
    dir: f.sort ? f.dir : undefined,
    size: f.pageSize && f.pageSize !== DEFAULT_ITEM_PAGE_SIZE ? f.pageSize : undefined,
    page: opts.page && f.page && f.page > 1 ? f.page : undefined,
  };
}

export function itemQuery(f: ItemFilters, extra: Record<string, string | number | undefined> = {}, opts: { page?: boolean } = {}): string {
  return queryString({ ...itemQueryValues(f, opts), ...extra });
}

/** "lost-points items", "Correctness items", "items": what the list holds, for "3 of 39 …". */
export function describeItemList(f: ItemFilters, capabilityLabel?: string): string {
  const parts = [f.lost ? "lost-points items" : "items"];
  if (f.outcome) parts.push(`with outcome ${outcomeTerm(f.outcome).label}`);
  if (f.capability) parts.push(`in ${capabilityLabel ?? f.capability}`);
  if (f.domain) parts.push(`(${f.domain})`);
  if (f.trial !== undefined) parts.push(`of trial ${f.trial}`);
  return parts.join(" ");
}
