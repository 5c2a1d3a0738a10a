/**
 * The item list's URL vocabulary (sort keys, page sizes) and its strict parsers: plain values
 * with no database behind them, so the item table can render in the browser bundle too.
 */
import type { ItemSortKey, SortDir } from "./types";

export const ITEM_SORT_KEYS: readonly ItemSortKey[] = ["item", "trial", "capability", "domain", "question", "answer", "reason", "outcome", "weight", "score"];
/**
 * Rows of one page of the item list. The largest is what one public request may cost: 300 rows
 * were 2.6 MB of HTML and 0.6 s of a core, so thirty-two such requests stalled the site.
 */
export const DEFAULT_ITEM_PAGE_SIZE = 50;
export const MAX_ITEM_PAGE_SIZE = 100;
export const ITEM_PAGE_SIZES: readonly number[] = [DEFAULT_ITEM_PAGE_SIZE, MAX_ITEM_PAGE_SIZE];

/** A trial number from a URL: a whole number from 1 (the bundle limit is far below the cap), else none. */
export function parseTrial(raw: string | undefined): number | undefined {
  if (!raw || !/^[1-9]\d{0,3}$/.test(raw)) return undefined;
  return Number(raw);
}

/** Parses the sort and paging values of a URL strictly: anything else is the default. */
export function parseItemSort(sort: string | undefined, dir: string | undefined): { sort?: ItemSortKey; dir?: SortDir } {
  const key = ITEM_SORT_KEYS.find((k) => k === sort);
  if (!key) return {};
  return { sort: key, dir: dir === "desc" ? "desc" : "asc" };
}

/** A page size from a URL: one of ITEM_PAGE_SIZES; a larger whole number (an old `size=300` link) is the largest; anything else the default. */
export function parseItemPageSize(raw: string | undefined): number {
  const n = raw && /^\d{1,9}$/.test(raw) ? Number(raw) : NaN;
  if (n > MAX_ITEM_PAGE_SIZE) return MAX_ITEM_PAGE_SIZE;
  return ITEM_PAGE_SIZES.includes(n) ? n : DEFAULT_ITEM_PAGE_SIZE;
}
