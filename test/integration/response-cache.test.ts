import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { gunzipSync } from "node:zlib";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { acceptsGzip, createResponseCache, etagMatches } from "@/scripts/server/response-cache";

/** A stand-in for the app: counts renders, answers `/` with the render number, 404 for unknown queries. */
let renders = 0;
let app: Server;
let front: Server;
let version = "1:1";
let base = "";

beforeEach(async () => {
  renders = 0;
  version = "1:1";
  let cache: ReturnType<typeof createResponseCache>;
  // One server plays both roles, as in production: the cache first, the "app" on a pass.
  front = createServer((req, res) => {
    void cache.serve(req, res).then((served) => {
      if (served) return;
      if ((req.url ?? "").includes("missing")) {
        res.writeHead(404).end("no");
        return;
      }
      renders++;
      const body = JSON.stringify({ render: renders, url: req.url, pass: req.headers["x-agentboard-render"] !== undefined });
      setTimeout(() => res.writeHead(200, { "content-type": "application/json", etag: `"r${renders}"`, "x-secret": "dropped" }).end(body), 20);
    });
  });
  await new Promise<void>((r) => front.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(front.address() as AddressInfo).port}`;
  cache = createResponseCache({ origin: base, version: () => version });
  app = front;
});

afterEach(() => new Promise<void>((r) => app.close(() => r())));

const get = (path: string, headers: Record<string, string> = {}) => fetch(base + path, { headers });

describe("response cache", () => {
  it("renders once per URL and data version, then answers from memory", async () => {
    const a = await get("/api/leaderboard");
    const b = await get("/api/leaderboard");
    expect(a.headers.get("x-agentboard-cache")).toBe("miss");
    expect(b.headers.get("x-agentboard-cache")).toBe("hit");
    expect(await a.json()).toMatchObject({ render: 1, pass: true });
    expect(await b.json()).toMatchObject({ render: 1 });
    expect(b.headers.get("x-secret")).toBeNull();
    await get("/api/leaderboard?benchmark=x");
    expect(renders).toBe(2);
    version = "2:1";
    expect(await (await get("/api/leaderboard")).json()).toMatchObject({ render: 3 });
  });

  it("shares one render between concurrent misses", async () => {
    const all = await Promise.all(Array.from({ length: 10 }, () => get("/").then((r) => r.json())));
    expect(renders).toBe(1);
    expect(new Set(all.map((x) => (x as { render: number }).render))).toEqual(new Set([1]));
  });

  it("passes through other paths, RSC requests, non-GETs and a forged render header", async () => {
    await get("/");
    const cases = [
      get("/other"),
      get("/", { rsc: "1" }),
      get("/?_rsc=abc"),
      get("/", { accept: "text/x-component" }),
      fetch(base + "/", { method: "POST", body: "x" }),
    ];
    for (const r of await Promise.all(cases)) expect(r.headers.get("x-agentboard-cache")).toBeNull();
    expect(renders).toBe(1 + cases.length);
    // A forged render header is not the process's secret: it is answered from the cache.
    const forged = await get("/", { "x-agentboard-render": "guess" });
    expect(forged.headers.get("x-agentboard-cache")).toBe("hit");
    expect(renders).toBe(1 + cases.length);
  });

  it("does not cache errors", async () => {
    const r = await get("/api/leaderboard?benchmark=missing");
    expect(r.status).toBe(404);
    expect(r.headers.get("x-agentboard-cache")).toBeNull();
  });

  it("answers 304 for a matching ETag and gzip when accepted", async () => {
    const first = await get("/api/leaderboard");
    const etag = first.headers.get("etag")!;
    const again = await get("/api/leaderboard", { "if-none-match": `W/${etag}` });
    expect(again.status).toBe(304);
    const raw = await new Promise<Buffer>((resolve, reject) => {
      import("node:http").then(({ get: httpGet }) =>
        httpGet(base + "/api/leaderboard", { headers: { "accept-encoding": "br, gzip" } }, (res) => {
          expect(res.headers["content-encoding"]).toBe("gzip");
          const chunks: Buffer[] = [];
          res.on("data", (c: Buffer) => chunks.push(c)).on("end", () => resolve(Buffer.concat(chunks))).on("error", reject);
        }),
      );
    });
    expect(JSON.parse(gunzipSync(raw).toString())).toMatchObject({ render: 1 });
  });
});

describe("header helpers", () => {
  it("matches ETags weakly and by star", () => {
    expect(etagMatches('"a", W/"b"', '"b"')).toBe(true);
    expect(etagMatches("*", '"z"')).toBe(true);
    expect(etagMatches('"a"', '"b"')).toBe(false);
    expect(etagMatches(undefined, '"b"')).toBe(false);
  });
  it("reads Accept-Encoding with q-values", () => {
    expect(acceptsGzip("gzip, deflate, br")).toBe(true);
    expect(acceptsGzip("br;q=1.0, gzip;q=0")).toBe(false);
    expect(acceptsGzip("*")).toBe(true);
    expect(acceptsGzip("identity")).toBe(false);
    expect(acceptsGzip(undefined)).toBe(false);
  });
});
