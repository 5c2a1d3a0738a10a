/**
 * A response cache in front of the leaderboard and its API. Both change only when a
 * submission changes state (the data version: the audit log's and benchmark versions'
 * highest ids), so a rendered response is kept per URL until then. A hit is answered by
 * Node's HTTP server alone: one indexed lookup and a write, without Next's request pipeline.
 * A miss renders once through the app itself (marked with a per-process secret so the cache
 * lets it pass) and stores the bytes; concurrent misses share one render.
 *
 * Bounded so that unique URLs (`/?q=<random>`) cannot push the common pages out: the bare
 * paths are always kept; a URL with a query string is stored only when it is asked for a
 * second time (one-off URLs are rendered and passed through), within `maxEntries` and
 * `maxBytes`, least recently used first out; over-long URLs are never stored.
 */
import { randomBytes } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { gzipSync } from "node:zlib";

export const CACHED_PATHS = new Set(["/", "/api/leaderboard"]);
const KEPT_HEADERS = ["content-type", "etag", "cache-control", "content-disposition", "vary"];
const RENDER_TIMEOUT_MS = 15_000;

/** The cache's bounds; serve.ts reads them from the environment (see cacheLimitsFromEnv). */
export interface CacheLimits {
  /** Stored URLs with a query string, at most (AGENTBOARD_RESPONSE_CACHE_ENTRIES, default 200). */
  maxEntries: number;
  /** Bytes of stored bodies (uncompressed + gzip) of those URLs, at most (AGENTBOARD_RESPONSE_CACHE_MB, default 64 MiB). */
  maxBytes: number;
  /** Longest path + query string stored, in characters (default 1,024). */
  maxKeyLength: number;
}

export const DEFAULT_CACHE_LIMITS: CacheLimits = { maxEntries: 200, maxBytes: 64 * 1024 * 1024, maxKeyLength: 1024 };

export function cacheLimitsFromEnv(env: Record<string, string | undefined>): CacheLimits {
  const int = (v: string | undefined, fallback: number) => (v && /^\d+$/.test(v) ? Number(v) : fallback);
  return {
    maxEntries: int(env.AGENTBOARD_RESPONSE_CACHE_ENTRIES, DEFAULT_CACHE_LIMITS.maxEntries),
    maxBytes: int(env.AGENTBOARD_RESPONSE_CACHE_MB, DEFAULT_CACHE_LIMITS.maxBytes / 1048576) * 1048576,
    maxKeyLength: DEFAULT_CACHE_LIMITS.maxKeyLength,
  };
}

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
  version: () => string | Promise<string>;
  limits?: CacheLimits;
  /** Renders a URL on a miss (default: a request to `origin`); tests pass their own. */
  render?: (key: string, headers: Record<string, string>) => Promise<Response | null>;
}

export interface ResponseCache {
  /** Answers the request from the cache and returns true, or returns false to pass it on. */
  serve(req: IncomingMessage, res: ServerResponse): Promise<boolean>;
  /** The URLs stored now (for tests and monitoring). */
  keys(): string[];
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
  const limits = opts.limits ?? DEFAULT_CACHE_LIMITS;
  const passHeader = "x-agentboard-render";
  const passToken = randomBytes(16).toString("hex");
  // Bare paths (a handful) are always kept; URLs with a query string live in an LRU (Map order).
  const pinned = new Map<string, Cached>();
  const entries = new Map<string, Cached>();
  let bytes = 0;
  // URLs with a query string asked for once (and not stored yet): the second ask stores one.
  const seen = new Map<string, true>();
  const pending = new Map<string, Promise<Cached | null>>();

  const sizeOf = (e: Cached) => e.body.length + (e.gzip?.length ?? 0);
  const isPinned = (key: string) => !key.includes("?");

  const fetchRender =
    opts.render ??
    ((key: string, headers: Record<string, string>) => fetch(new URL(key, opts.origin), { headers, signal: AbortSignal.timeout(RENDER_TIMEOUT_MS) }).catch(() => null));

  function store(key: string, entry: Cached) {
    if (isPinned(key)) {
      pinned.set(key, entry);
      return;
    }
    const old = entries.get(key);
    if (old) {
      bytes -= sizeOf(old);
      entries.delete(key);
    }
    entries.set(key, entry);
    bytes += sizeOf(entry);
    trim();
  }

  function trim() {
    for (const [k, e] of entries) {
      if (entries.size <= limits.maxEntries && bytes <= limits.maxBytes) break;
      entries.delete(k);
      bytes -= sizeOf(e);
    }
  }

  function lookup(key: string): Cached | undefined {
    if (isPinned(key)) return pinned.get(key);
    const e = entries.get(key);
    if (e) {
      // Most recently used goes to the back.
      entries.delete(key);
      entries.set(key, e);
    }
    return e;
  }

  /** Whether a missed URL should be stored: bare paths yes, others on their second ask. */
  function admit(key: string): boolean {
    if (key.length > limits.maxKeyLength) return false;
    if (isPinned(key) || entries.has(key) || seen.has(key)) {
      seen.delete(key);
      return true;
    }
    seen.set(key, true);
    for (const k of seen.keys()) {
      if (seen.size <= limits.maxEntries * 4) break;
      seen.delete(k);
    }
    return false;
  }

  async function render(key: string, version: string, keep: boolean): Promise<Cached | null> {
    const res = await fetchRender(key, { [passHeader]: passToken, accept: "text/html,application/json" });
    // Errors and not-founds are never cached: the app answers those itself.
    if (!res || res.status !== 200) return null;
    const headers: Record<string, string> = {};
    for (const h of KEPT_HEADERS) {
      const v = res.headers.get(h);
      if (v !== null) headers[h] = v;
    }
    const entry: Cached = { version, headers, body: Buffer.from(await res.arrayBuffer()), etag: res.headers.get("etag") };
    if (keep) store(key, entry);
    return entry;
  }

  return {
    keys: () => [...pinned.keys(), ...entries.keys()],
    async serve(req, res) {
      const url = new URL(req.url ?? "/", opts.origin);
      if (!cacheable(req, url, passToken, passHeader)) return false;
      const key = `${url.pathname}${url.search}`;
      const version = await opts.version();
      let entry: Cached | null | undefined = lookup(key);
      if (!entry || entry.version !== version) {
        let p = pending.get(key);
        if (!p) {
          p = render(key, version, admit(key)).finally(() => pending.delete(key));
          pending.set(key, p);
        }
        entry = await p;
        if (!entry) return false;
      }
      const headers = { ...entry.headers, "x-agentboard-cache": "hit" };
      if (entry.etag && etagMatches(req.headers["if-none-match"], entry.etag)) {
        res.writeHead(304, headers).end();
      } else if (acceptsGzip(req.headers["accept-encoding"])) {
        if (!entry.gzip) {
          entry.gzip = gzipSync(entry.body);
          if (entries.get(key) === entry) {
            bytes += entry.gzip.length;
            trim();
          }
        }
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
