/**
 * A response cache in front of the public pages (page-routes.ts): the leaderboard and its
 * export, an entry's page and item pages, comparisons. They change only when a submission
 * changes state (the data version: the audit log's and benchmark versions' highest ids), so a
 * rendered response is kept per URL until then; a withdrawal moves the version, so nothing
 * withdrawn is served from here a request later. A hit is answered by Node's HTTP server
 * alone: one indexed lookup and a write, without Next's request pipeline. A miss renders once
 * through the app itself (marked with a per-server secret so the cache lets it pass) and stores
 * the bytes; concurrent misses share one render; a render waits for the render gate's turn
 * when the caller passes one. Answers other than 200 (not found, redirects, errors) are passed
 * on as the app gave them, never stored. `x-agentboard-cache` says `hit` (stored bytes) or
 * `miss` (rendered for this request).
 *
 * Keyed on the parameters the page reads, in the route's order: unknown parameters
 * (`/?utm=<random>`) are the page without them, reordered ones one entry. Bounded so that
 * unique URLs (`/?q=<random>`) cannot push the common pages out: the bare board and export are
 * always kept; any other URL is stored only when it is asked for a second time (one-off URLs
 * are rendered and passed through), within `maxEntries` and `maxBytes`, least recently used
 * first out; over-long URLs are never stored. Pages a signed-in maintainer sees differently
 * are answered from here only for requests without a session cookie (the render has none).
 */
import { randomBytes } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { gzipSync } from "node:zlib";
import { canonicalKey, pageRouteOf, type PageRoute } from "./page-routes";

const KEPT_HEADERS = ["content-type", "etag", "cache-control", "content-disposition", "vary"];
/** Also passed on with an answer that is not stored (a redirect's target, a refusal's wait). */
const PASSED_HEADERS = [...KEPT_HEADERS, "location", "retry-after"];
/** The maintainer's session cookie (app/admin/auth.ts SESSION_COOKIE). */
export const SESSION_COOKIE = "agentboard_admin";
/** The header that marks the cache's own renders. */
export const RENDER_HEADER = "x-agentboard-render";
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

/** An answer other than 200, passed on as the app gave it. */
interface Passed {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

type Rendered = Cached | Passed | null;

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
  /** The secret that marks the cache's own renders: shared by every server process of a port (default: a new one). */
  renderToken?: string;
}

/** Runs a render when its turn comes (the render gate), or throws to refuse it. */
export type Gate = <T>(work: () => Promise<T>) => Promise<T>;

export interface ResponseCache {
  /** Answers the request from the cache and returns true, or returns false to pass it on; a render on a miss runs through `gate`. */
  serve(req: IncomingMessage, res: ServerResponse, gate?: Gate): Promise<boolean>;
  /** True for the cache's own render of a miss: the app answers it, and the request that missed holds its turn. */
  isRender(req: IncomingMessage): boolean;
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

/** True when the Cookie header holds a maintainer's session cookie (valid or not: the app decides). */
function hasSessionCookie(cookie: string | undefined): boolean {
  return (cookie ?? "").split(";").some((part) => part.trim().startsWith(`${SESSION_COOKIE}=`));
}

/** The route of a request the cache may answer, or null: client-router requests (RSC payloads), non-GETs and a maintainer's own view are never cached. */
function cacheableRoute(req: IncomingMessage, url: URL): (PageRoute & { params: readonly string[] }) | null {
  const route = pageRouteOf(url.pathname);
  const h = req.headers;
  if (!route?.params || req.method !== "GET") return null;
  if (h["rsc"] || h["next-router-prefetch"] || h["next-router-state-tree"] || h["next-url"] || url.searchParams.has("_rsc")) return null;
  if ((h["accept"] ?? "").includes("text/x-component")) return null;
  if (route.maintainerView && hasSessionCookie(h["cookie"])) return null;
  return { ...route, params: route.params };
}

export function createResponseCache(opts: ResponseCacheOptions): ResponseCache {
  const limits = opts.limits ?? DEFAULT_CACHE_LIMITS;
  const passToken = opts.renderToken ?? randomBytes(16).toString("hex");
  // The bare board and export are always kept; other URLs live in an LRU (Map order).
  const pinned = new Map<string, Cached>();
  const entries = new Map<string, Cached>();
  let bytes = 0;
  // Unpinned URLs asked for once (and not stored yet): the second ask stores one.
  const seen = new Map<string, true>();
  const pending = new Map<string, Promise<Rendered>>();
  const pinnedKeys = new Set<string>();

  const sizeOf = (e: Cached) => e.body.length + (e.gzip?.length ?? 0);
  const isPinned = (key: string) => pinnedKeys.has(key);

  // Redirects are answers to pass on, not to follow: the page a redirect names has a key of its own.
  const fetchRender =
    opts.render ??
    ((key: string, headers: Record<string, string>) => fetch(new URL(key, opts.origin), { headers, redirect: "manual", signal: AbortSignal.timeout(RENDER_TIMEOUT_MS) }).catch(() => null));

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

  /** Whether a missed URL should be stored: the pinned ones yes, others on their second ask. */
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

  /** A 200 as an entry (stored when `keep`), any other answer as it came to pass on, null when the app gave none. */
  async function render(key: string, version: string, keep: boolean): Promise<Rendered> {
    const res = await fetchRender(key, { [RENDER_HEADER]: passToken, accept: "text/html,application/json" });
    if (!res) return null;
    const body = Buffer.from(await res.arrayBuffer());
    const headers: Record<string, string> = {};
    for (const h of res.status === 200 ? KEPT_HEADERS : PASSED_HEADERS) {
      const v = res.headers.get(h);
      if (v !== null) headers[h] = v;
    }
    if (res.status !== 200) return { status: res.status, headers, body };
    const entry: Cached = { version, headers, body, etag: res.headers.get("etag") };
    if (keep) store(key, entry);
    return entry;
  }

  /**
   * The render of a missed URL, shared by the requests that miss it together. Only the request
   * that starts it waits for `gate`; one that joined a render the gate refused (its starter's
   * turn, not its own) starts one of its own.
   */
  async function renderShared(key: string, version: string, gate: Gate): Promise<Rendered> {
    const joined = pending.get(key);
    if (joined) {
      try {
        return await joined;
      } catch {
        // the starter's refusal or failure: this request asks on its own below
      }
    }
    let p = pending.get(key);
    if (!p) {
      // The bare board and export skip the gate: however busy the heavy pages, `/` is rendered.
      const work = () => render(key, version, admit(key));
      p = (isPinned(key) ? work() : gate(work)).finally(() => pending.delete(key));
      pending.set(key, p);
    }
    return p;
  }

  return {
    keys: () => [...pinned.keys(), ...entries.keys()],
    isRender: (req) => req.headers[RENDER_HEADER] === passToken,
    async serve(req, res, gate = (work) => work()) {
      const url = new URL(req.url ?? "/", opts.origin);
      const route = cacheableRoute(req, url);
      if (!route || req.headers[RENDER_HEADER] === passToken) return false;
      const key = canonicalKey(url.pathname, url.searchParams, route.params);
      if (route.pinned && key === url.pathname) pinnedKeys.add(key);
      const version = await opts.version();
      let entry: Cached | undefined = lookup(key);
      let state = "hit";
      if (!entry || entry.version !== version) {
        state = "miss";
        const rendered = await renderShared(key, version, gate);
        if (!rendered) return false;
        if (!("version" in rendered)) {
          res.writeHead(rendered.status, { ...rendered.headers, "content-length": String(rendered.body.length) });
          res.end(rendered.body);
          return true;
        }
        entry = rendered;
      }
      const headers = { ...entry.headers, "x-agentboard-cache": state };
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
