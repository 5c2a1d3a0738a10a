/**
 * A response cache in front of the leaderboard and its API. Both change only when a
 * submission changes state (the data version: the audit log's and benchmark versions'
 * highest ids), so a rendered response is kept per URL until then. A hit is answered by
 * Node's HTTP server alone: one indexed lookup and a write, without Next's request pipeline.
 * A miss renders once through the app itself (marked with a per-process secret so the cache
 * lets it pass) and stores the bytes; concurrent misses share one render.
 */
import { randomBytes } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { gzipSync } from "node:zlib";

export const CACHED_PATHS = new Set(["/", "/api/leaderboard"]);
const KEPT_HEADERS = ["content-type", "etag", "cache-control", "content-disposition", "vary"];
const MAX_ENTRIES = 200;
const RENDER_TIMEOUT_MS = 15_000;

interface Cached {
  version: string;
  headers: Record<string, string>;
  body: Buffer;
  /** Compressed once, on the first request that accepts gzip. */
  gzip?: Buffer;
  etag: string | null;
}

export interface ResponseCacheOptions {
  /** Where the app itself listens, for renders on a miss. */
  origin: string;
  /** The current data version; a change empties the cache's view of every URL. */
  version: () => string;
}

export interface ResponseCache {
  /** Answers the request from the cache and returns true, or returns false to pass it on. */
  serve(req: IncomingMessage, res: ServerResponse): Promise<boolean>;
}

/** True when If-None-Match lists this ETag (weak or strong) or `*`. */
export function etagMatches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  return ifNoneMatch.split(",").some((t) => {
    const tag = t.trim();
    return tag === "*" || tag.replace(/^W\//, "") === etag;
  });
}

/** True when Accept-Encoding allows gzip (`gzip` or `*`, without `q=0`). */
export function acceptsGzip(acceptEncoding: string | undefined): boolean {
  if (!acceptEncoding) return false;
  return acceptEncoding.split(",").some((part) => {
    const [coding, ...params] = part.trim().toLowerCase().split(";");
    if (coding !== "gzip" && coding !== "*") return false;
    const q = params.map((p) => p.trim()).find((p) => p.startsWith("q="));
    return q === undefined || Number(q.slice(2)) > 0;
  });
}

/** Client-router requests (RSC payloads) and non-GETs are never cached. */
function cacheable(req: IncomingMessage, url: URL, passToken: string, passHeader: string): boolean {
  const h = req.headers;
  return (
    req.method === "GET" &&
    CACHED_PATHS.has(url.pathname) &&
    h[passHeader] !== passToken &&
    !h["rsc"] &&
    !h["next-router-prefetch"] &&
    !h["next-router-state-tree"] &&
    !h["next-url"] &&
    !url.searchParams.has("_rsc") &&
    !(h["accept"] ?? "").includes("text/x-component")
  );
}

export function createResponseCache(opts: ResponseCacheOptions): ResponseCache {
  const passHeader = "x-agentboard-render";
  const passToken = randomBytes(16).toString("hex");
  const entries = new Map<string, Cached>();
  const pending = new Map<string, Promise<Cached | null>>();

  async function render(key: string, version: string): Promise<Cached | null> {
    const res = await fetch(new URL(key, opts.origin), {
      headers: { [passHeader]: passToken, accept: "text/html,application/json" },
      signal: AbortSignal.timeout(RENDER_TIMEOUT_MS),
    }).catch(() => null);
    // Errors and not-founds are never cached: the app answers those itself.
    if (!res || res.status !== 200) return null;
    const headers: Record<string, string> = {};
    for (const h of KEPT_HEADERS) {
      const v = res.headers.get(h);
      if (v !== null) headers[h] = v;
    }
    const entry: Cached = { version, headers, body: Buffer.from(await res.arrayBuffer()), etag: res.headers.get("etag") };
    if (entries.size >= MAX_ENTRIES) entries.clear();
    entries.set(key, entry);
    return entry;
  }

  return {
    async serve(req, res) {
      const url = new URL(req.url ?? "/", opts.origin);
      if (!cacheable(req, url, passToken, passHeader)) return false;
      const key = `${url.pathname}${url.search}`;
      const version = opts.version();
      let entry: Cached | null | undefined = entries.get(key);
      if (!entry || entry.version !== version) {
        let p = pending.get(key);
        if (!p) {
          p = render(key, version).finally(() => pending.delete(key));
          pending.set(key, p);
        }
        entry = await p;
        if (!entry) return false;
      }
      const headers = { ...entry.headers, "x-agentboard-cache": "hit" };
      if (entry.etag && etagMatches(req.headers["if-none-match"], entry.etag)) {
        res.writeHead(304, headers).end();
      } else if (acceptsGzip(req.headers["accept-encoding"])) {
        entry.gzip ??= gzipSync(entry.body);
        res.writeHead(200, { ...headers, "content-encoding": "gzip", "content-length": String(entry.gzip.length) });
        res.end(entry.gzip);
      } else {
        res.writeHead(200, { ...headers, "content-length": String(entry.body.length) });
        res.end(entry.body);
      }
      return true;
    },
  };
}
