/**
 * A response cache in front of the leaderboard and its API. Both change only when a
 * submission changes state (the audit log's data version), so a rendered response is kept
 * per URL until then: a request costs one indexed lookup instead of a render. A miss renders
 * once through the app itself (marked so the proxy lets it pass) and stores the bytes.
 */
import { NextResponse, type NextRequest } from "next/server";
import { pageDb } from "@/lib/queries/db";
import { dataVersion } from "@/lib/queries/memo";

export const config = { matcher: ["/", "/api/leaderboard"] };

const PASS = "x-agentboard-render";
const KEPT_HEADERS = ["content-type", "etag", "cache-control", "content-disposition", "vary"];
const MAX_ENTRIES = 200;

interface Cached {
  version: string;
  status: number;
  headers: [string, string][];
  body: ArrayBuffer;
  etag: string | null;
}

const cache = new Map<string, Cached>();
const pending = new Map<string, Promise<Cached | null>>();

async function render(url: URL, key: string, version: string): Promise<Cached | null> {
  const res = await fetch(url, { headers: { [PASS]: "1", accept: "text/html,application/json" }, signal: AbortSignal.timeout(15_000) }).catch(() => null);
  if (!res || res.status !== 200) return null;
  const headers = KEPT_HEADERS.flatMap((h) => (res.headers.has(h) ? [[h, res.headers.get(h)!] as [string, string]] : []));
  const entry: Cached = { version, status: res.status, headers, body: await res.arrayBuffer(), etag: res.headers.get("etag") };
  if (cache.size >= MAX_ENTRIES) cache.clear();
  cache.set(key, entry);
  return entry;
}

export async function proxy(request: NextRequest) {
  // Only plain GETs of documents and the API are cached: renders for the cache, client-router
  // requests (RSC payloads: an `rsc` header or `_rsc` parameter) and the rest pass through.
  if (
    request.method !== "GET" ||
    request.headers.has(PASS) ||
    request.headers.has("rsc") ||
    request.headers.has("next-router-prefetch") ||
    request.headers.has("next-router-state-tree") ||
    request.nextUrl.searchParams.has("_rsc") ||
    request.headers.has("next-url") ||
    (request.headers.get("accept") ?? "").includes("text/x-component")
  ) {
    return NextResponse.next();
  }
  const version = dataVersion(pageDb());
  const key = `${request.nextUrl.pathname}${request.nextUrl.search}`;
  let entry: Cached | null | undefined = cache.get(key);
  if (!entry || entry.version !== version) {
    let p = pending.get(key);
    if (!p) {
      p = render(new URL(request.url), key, version).finally(() => pending.delete(key));
      pending.set(key, p);
    }
    entry = await p;
    if (!entry) return NextResponse.next();
  }
  const headers = new Headers(entry.headers);
  headers.set("x-agentboard-cache", "hit");
  const inm = request.headers.get("if-none-match");
  if (entry.etag && inm && inm.split(",").some((t) => t.trim().replace(/^W\//, "") === entry.etag)) return new NextResponse(null, { status: 304, headers });
  return new NextResponse(entry.body, { status: entry.status, headers });
}
