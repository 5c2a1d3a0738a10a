/** Reading Next's `searchParams` and route ids: the URL is the view state, so parse it strictly. */

export type SearchParams = Record<string, string | string[] | undefined>;

/** The first value of a query parameter, trimmed; undefined when absent or empty. */
export function firstParam(params: SearchParams, key: string): string | undefined {
  const v = params[key];
  const s = (Array.isArray(v) ? v[0] : v)?.trim();
  return s ? s : undefined;
}

/** Every value of a parameter, each split on commas: `?ids=1,2&ids=3` → ["1", "2", "3"]. */
export function listParam(params: SearchParams, key: string): string[] {
  const v = params[key];
  const all = Array.isArray(v) ? v : v === undefined ? [] : [v];
  return all.flatMap((s) => s.split(/[\s,]+/)).filter(Boolean);
}

/** A positive integer id, or null for anything else ("1e3", "-1", "01x"). */
export function parseId(raw: string | undefined): number | null {
  if (!raw || !/^\d{1,15}$/.test(raw)) return null;
  const n = Number(raw);
  return n > 0 && Number.isSafeInteger(n) ? n : null;
}

export function parsePage(raw: string | undefined): number {
  return parseId(raw) ?? 1;
}

/** A query string from the defined values, keys in the given order: "?a=1&b=x" or "". */
export function queryString(values: Record<string, string | number | undefined | null>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(values)) if (v !== undefined && v !== null && v !== "") q.set(k, String(v));
  const s = q.toString();
  return s ? `?${s}` : "";
}
