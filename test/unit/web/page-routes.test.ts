/**
 * The response cache keys a URL on the parameters its page reads (page-routes.ts). A parameter
 * a page reads but the route leaves out would serve one view's page for another: the lists are
 * checked here against the parsers the pages use, by recording every key they read.
 */
import { describe, expect, it } from "vitest";
import { SESSION_COOKIE as APP_SESSION_COOKIE } from "@/app/admin/auth";
import { parseView } from "@/components/leaderboard/view-state";
import { itemFiltersFrom } from "@/components/submission/item-query";
import type { SearchParams } from "@/components/common/search-params";
import { canonicalKey, COMPARE_PARAMS, ITEM_LIST_PARAMS, LEADERBOARD_PARAMS, pageRouteOf } from "@/scripts/server/page-routes";
import { SESSION_COOKIE } from "@/scripts/server/response-cache";

/** The keys `parse` reads from its parameters, over a few inputs (a parser may read some keys only after others). */
function keysRead(parse: (sp: SearchParams) => unknown, inputs: SearchParams[]): string[] {
  const read = new Set<string>();
  for (const input of inputs) {
    const probe = new Proxy(input, {
      get(target, key) {
        if (typeof key === "string") read.add(key);
        return target[key as string];
      },
    });
    parse(probe);
  }
  return [...read].sort();
}

const VIEWS: SearchParams[] = [{}, { sort: "agent", dir: "desc", q: "x", hide: "date", verified: "1", flagged: "0", vs: "cost", metric: "passk" }];
const ITEM_VIEWS: SearchParams[] = [{}, { capability: "c", domain: "d", trial: "2", outcome: "missing", lost: "0", sort: "score", dir: "desc", page: "2", size: "100" }];

describe("page routes", () => {
  it("list every parameter the leaderboard's and the item list's parsers read", () => {
    const board = keysRead((sp) => parseView(sp, ["cap_a"]), VIEWS);
    expect(board.length).toBeGreaterThan(5);
    for (const k of board) expect(LEADERBOARD_PARAMS as readonly string[], k).toContain(k);
    const items = keysRead(itemFiltersFrom, ITEM_VIEWS);
    expect(items.length).toBeGreaterThan(5);
    for (const k of items) expect(ITEM_LIST_PARAMS as readonly string[], k).toContain(k);
  });

  it("key a URL on those parameters alone, in the route's order, every value kept", () => {
    const key = (url: string) => {
      const u = new URL(url, "http://x");
      return canonicalKey(u.pathname, u.searchParams, pageRouteOf(u.pathname)!.params!);
    };
    expect(key("/?utm_source=a&fbclid=b")).toBe("/");
    expect(key("/?dir=asc&zz=1&sort=agent")).toBe("/?sort=agent&dir=asc");
    expect(key("/?q=a+b")).toBe(key("/?q=a%20b"));
    expect(key("/submissions/7?size=100&lost=0&full=1&x=y")).toBe("/submissions/7?lost=0&size=100");
    expect(key("/compare?page=2&ids=6&ids=3")).toBe("/compare?ids=6&ids=3&page=2");
    expect(COMPARE_PARAMS[0]).toBe("ids");
  });

  it("mark the heavy pages, and leave other paths to Next", () => {
    for (const p of ["/", "/api/leaderboard", "/submissions/7", "/submissions/7/items/cap/u-1", "/compare", "/api/submissions/7", "/api/submissions/7/verdicts"]) expect(pageRouteOf(p)?.heavy, p).toBe(true);
    for (const p of ["/queue", "/about", "/admin", "/api/github/webhook", "/_next/static/x.js", "/submissions/7/other"]) expect(pageRouteOf(p), p).toBeNull();
    // Verdicts and per-item JSON are private: never answered from the shared response cache.
    expect(pageRouteOf("/api/submissions/7/verdicts")?.params).toBeNull();
  });

  it("pass a bundle download through its own gate, never the render gate or the cache", () => {
    const route = pageRouteOf("/api/submissions/7/bundle");
    expect(route).toMatchObject({ download: true, heavy: false, params: null });
    for (const p of ["/", "/api/submissions/7", "/submissions/7"]) expect(pageRouteOf(p)?.download, p).toBeUndefined();
  });

  it("know the maintainer's session cookie by the app's name for it", () => {
    expect(SESSION_COOKIE).toBe(APP_SESSION_COOKIE);
  });
});
