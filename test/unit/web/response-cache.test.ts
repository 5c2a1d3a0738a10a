/** The response cache keeps the common pages whatever unique URLs arrive, and stays within its bounds. */
import { createServer, type Server } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { cacheLimitsFromEnv, createResponseCache, DEFAULT_CACHE_LIMITS, type CacheLimits, type ResponseCache } from "@/scripts/server/response-cache";

let server: Server | undefined;
afterEach(() => new Promise<void>((r) => (server ? server.close(() => r()) : r())));

/** A cache in front of a counting renderer, served on a free port. */
async function start(limits: CacheLimits) {
  const renders: string[] = [];
  let version = "1";
  const cache: ResponseCache = createResponseCache({
    origin: "http://127.0.0.1",
    version: () => version,
    limits,
    render: async (key) => {
      renders.push(key);
      return new Response(`page ${key} ${"x".repeat(1000)}`, { status: 200, headers: { "content-type": "text/html" } });
    },
  });
  server = createServer((req, res) => {
    cache.serve(req, res).then((served) => {
      if (!served) res.writeHead(404).end();
    });
  });
  await new Promise<void>((r) => server!.listen(0, "127.0.0.1", () => r()));
  const port = (server.address() as { port: number }).port;
  const get = (p: string) => fetch(`http://127.0.0.1:${port}${p}`).then((r) => r.text());
  return { cache, renders, get, bump: () => (version = String(Number(version) + 1)) };
}

describe("the response cache", () => {
  it("keeps `/` stored through a flood of unique search URLs", async () => {
    const { cache, renders, get } = await start({ ...DEFAULT_CACHE_LIMITS, maxEntries: 5 });
    await get("/");
    for (let i = 0; i < 300; i++) expect(await get(`/?q=${i}`)).toContain(`q=${i}`);
    const before = renders.length;
    expect(await get("/")).toContain("page / ");
    expect(renders.length).toBe(before); // answered from the cache
    expect(cache.keys()).toEqual(["/"]); // one-off URLs were rendered, not stored
  });

  it("stores a search URL on its second request, least recently used out first", async () => {
    const { cache, renders, get } = await start({ ...DEFAULT_CACHE_LIMITS, maxEntries: 2 });
    for (const q of ["a", "a", "b", "b"]) await get(`/?q=${q}`);
    expect(cache.keys().sort()).toEqual(["/?q=a", "/?q=b"]);
    const n = renders.length;
    await get("/?q=a"); // a hit, and now the most recent
    expect(renders.length).toBe(n);
    await get("/?q=c");
    await get("/?q=c");
    expect(cache.keys().sort()).toEqual(["/?q=a", "/?q=c"]);
  });

  it("holds no more bytes than allowed, and never stores over-long URLs", async () => {
    const { cache, get } = await start({ maxEntries: 100, maxBytes: 3000, maxKeyLength: 64 });
    for (let i = 0; i < 10; i++) for (let k = 0; k < 2; k++) await get(`/?q=${i}`);
    expect(cache.keys().length).toBeLessThanOrEqual(3);
    const long = `/?q=${"z".repeat(100)}`;
    await get(long);
    await get(long);
    expect(cache.keys()).not.toContain(long);
  });

  it("renders again when the data version moves", async () => {
    const { renders, get, bump } = await start(DEFAULT_CACHE_LIMITS);
    await get("/");
    await get("/");
    expect(renders.filter((k) => k === "/")).toHaveLength(1);
    bump();
    await get("/");
    expect(renders.filter((k) => k === "/")).toHaveLength(2);
  });

  it("reads its bounds from the environment", () => {
    expect(cacheLimitsFromEnv({})).toEqual(DEFAULT_CACHE_LIMITS);
    expect(cacheLimitsFromEnv({ AGENTBOARD_RESPONSE_CACHE_ENTRIES: "50", AGENTBOARD_RESPONSE_CACHE_MB: "8" })).toMatchObject({ maxEntries: 50, maxBytes: 8 * 1048576 });
    expect(cacheLimitsFromEnv({ AGENTBOARD_RESPONSE_CACHE_ENTRIES: "-1" }).maxEntries).toBe(DEFAULT_CACHE_LIMITS.maxEntries);
  });
});
