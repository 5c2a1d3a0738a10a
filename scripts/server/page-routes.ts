/**
 * What the production server (serve.ts) knows of each public page before Next sees the request:
 * the query parameters the page reads, so the response cache keys a URL on those alone, in one
 * order (`/?utm=1` is `/`, `?dir=asc&sort=agent` is `?sort=agent&dir=asc`); whether a signed-in
 * maintainer sees it differently, so a request with a session cookie is never answered from the
 * cache; and whether rendering it is heavy, so the render gate (render-gate.ts) bounds how many
 * run at once. Paths not listed here go to Next untouched.
 *
 * The parameter lists must name every parameter the page reads: a parameter left out would be
 * dropped from the key and the page of another view served. test/unit/web/page-routes.test.ts
 * checks them against the parsers the pages use.
 */

export interface PageRoute {
  /** The query parameters the page reads, in the cache key's order; null: never answered from the cache. */
  params: readonly string[] | null;
  /** The bare URL is kept in the cache whatever else arrives: the board and its export. */
  pinned: boolean;
  /** A signed-in maintainer sees more (unpublished entries, larger limits): such requests skip the cache. */
  maintainerView: boolean;
  /** Rendering it takes a core for a while (an entry's items, a comparison, a CSV): the render gate applies. */
  heavy: boolean;
  /** A file download (an entry's bundle): its own gate, so a slow downloader holds no render's turn. */
  download?: true;
}

/** The leaderboard's view (components/leaderboard/view-state.ts parseView) and the board it names (app/page.tsx). */
export const LEADERBOARD_PARAMS = ["benchmark", "version", "sort", "dir", "q", "hide", "verified", "partial", "demo", "flagged", "vs", "metric"] as const;
/** The item list's view (components/submission/item-query.ts itemFiltersFrom); `full` is a maintainer's, who skips the cache. */
export const ITEM_LIST_PARAMS = ["capability", "domain", "trial", "outcome", "lost", "sort", "dir", "size", "page"] as const;
/** The comparison (app/compare/page.tsx): the ids and the parameters it keeps. */
export const COMPARE_PARAMS = ["ids", "benchmark", "vs", "capability", "domain", "passed", "page"] as const;

const SEGMENT = "[^/]+";
const ROUTES: { pattern: RegExp; route: PageRoute }[] = [
  { pattern: /^\/$/, route: { params: LEADERBOARD_PARAMS, pinned: true, maintainerView: false, heavy: true } },
  { pattern: /^\/api\/leaderboard$/, route: { params: [...LEADERBOARD_PARAMS, "format"], pinned: true, maintainerView: false, heavy: true } },
  { pattern: new RegExp(`^/submissions/${SEGMENT}$`), route: { params: ITEM_LIST_PARAMS, pinned: false, maintainerView: true, heavy: true } },
  { pattern: new RegExp(`^/submissions/${SEGMENT}/items/${SEGMENT}/${SEGMENT}$`), route: { params: ITEM_LIST_PARAMS, pinned: false, maintainerView: true, heavy: true } },
  { pattern: /^\/compare$/, route: { params: COMPARE_PARAMS, pinned: false, maintainerView: true, heavy: true } },
  // Per-item results and verdict exports: private (never in shared caches), so not kept here either.
  { pattern: new RegExp(`^/api/submissions/${SEGMENT}(/verdicts)?$`), route: { params: null, pinned: false, maintainerView: true, heavy: true } },
  // Each download hashes the bundle again before sending it (nothing is served that does not match the entry).
  { pattern: new RegExp(`^/api/submissions/${SEGMENT}/bundle$`), route: { params: null, pinned: false, maintainerView: false, heavy: false, download: true } },
];

/** The route of a path, or null for paths the server passes to Next as they are. */
export function pageRouteOf(pathname: string): PageRoute | null {
  return ROUTES.find((r) => r.pattern.test(pathname))?.route ?? null;
}

/**
 * The cache key of a URL: its path and the parameters the page reads, in the route's order
 * (every value of each, in the order sent: the comparison reads `ids` more than once).
 */
export function canonicalKey(pathname: string, search: URLSearchParams, params: readonly string[]): string {
  const kept = new URLSearchParams();
  for (const name of params) for (const value of search.getAll(name)) kept.append(name, value);
  const query = kept.toString();
  return query ? `${pathname}?${query}` : pathname;
}
