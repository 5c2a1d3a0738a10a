/**
 * The item list's URL vocabulary (sort keys, page sizes) and its strict parsers: plain values
 * with no database behind them, so the item table can render in the browser bundle too.
 */
import type { ItemSortKey, SortDir } from "./types";

export const ITEM_SORT_KEYS: readonly ItemSortKey[] = ["item", "trial", "capability", "domain", "question", "answer", "reason", "outcome", "weight", "score"];
export const ITEM_PAGE_SIZES: readonly number[] = [50, 100, 300];
export const DEFAULT_ITEM_PAGE_SIZE = 50;

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

export function parseItemPageSize(raw: string | undefined): number {
  const n = Number(raw);
  return ITEM_PAGE_SIZES.includes(n) ? n : DEFAULT_ITEM_PAGE_SIZE;
}
