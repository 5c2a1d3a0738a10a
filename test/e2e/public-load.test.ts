/**
 * What one public client can make the production server (serve.ts) do, through the real server
 * on both engines:
 * - a heavy page (an entry's item list) is bounded: its page size is clamped at one canonical
 *   URL, and many at once from one client are limited (429 with Retry-After) while `/` is
 *   answered throughout (issue 26, item 4);
 * - the page cache keys a URL on the parameters its page reads: unknown ones do not make an
 *   entry, reordered ones share one (item 7);
 * - a withdrawn entry's verdicts are never kept by shared caches, and our own cache drops its
 *   pages at the withdrawal (item 9).
 * Timing figures are bench:web's ("/ p99 under 32 heavy"); nothing here bounds a time.
 */
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { submissions } from "@/db/schema";
import { withdraw } from "@/lib/submissions/review";
import { ITEM_SORT_KEYS, MAX_ITEM_PAGE_SIZE } from "@/lib/queries/item-params";
import { ENGINES } from "../helpers/engines";
import { repo, startApp, type App } from "./harness";

interface Answer {
  status: number;
  retryAfter: string | null;
  cache: string | null;
}

describe.each(ENGINES)("public load on %s", (engine) => {
  let app: App;
  const idOf = async (agent: string) => (await app.db.select({ id: submissions.id }).from(submissions).where(eq(submissions.agentName, agent)))[0]!.id;
  const get = (path: string, headers: Record<string, string> = {}) => fetch(`${app.url}${path}`, { headers, redirect: "manual" });
  const answer = async (path: string, headers: Record<string, string> = {}): Promise<Answer> => {
    const r = await get(path, headers);
    await r.arrayBuffer();
    return { status: r.status, retryAfter: r.headers.get("retry-after"), cache: r.headers.get("x-agentboard-cache") };
  };

  beforeAll(async () => {
    app = await startApp(undefined, {}, engine);
  }, 600_000);
  afterAll(async () => {
    await app?.stop();
  });

  describe("a heavy page (item 4)", () => {
    it("lists at most the largest page size, at one canonical URL", async () => {
      const id = await idOf("strong-agent");
      const asked = await get(`/submissions/${id}?lost=0&size=300`);
      expect(asked.status).toBe(307);
      const location = asked.headers.get("location")!;
      expect(location).toBe(`/submissions/${id}?lost=0&size=${MAX_ITEM_PAGE_SIZE}`);
      const html = await (await get(location)).text();
      // Each row links its item (in the table and again in the phone's cards), in the items section.
      const items = html.slice(html.indexOf('id="items"'));
      const rows = new Set(items.match(new RegExp(`href="/submissions/${id}/items/[^"?]+`, "g")));
      expect(rows.size).toBe(MAX_ITEM_PAGE_SIZE); // strong-agent has more items than that
      expect((await get(`/submissions/${id}?lost=0&size=${MAX_ITEM_PAGE_SIZE}`)).status).toBe(200);
      expect((await get(`/submissions/${id}?lost=0&size=50`)).headers.get("location")).toBe(`/submissions/${id}?lost=0`);
    });

    it("limits 32 heavy requests at once from one client (some 429 with Retry-After), and answers every `/` meanwhile", async () => {
      const id = await idOf("strong-agent");
      expect((await answer("/")).status).toBe(200); // `/` is in the cache, as it is on a live board
      // 32 different views of the item list (none of them in the cache), half with a forged
      // session cookie, which skips the cache and goes to Next: both ways are limited.
      const views = ITEM_SORT_KEYS.flatMap((sort) => ["asc", "desc"].flatMap((dir) => [1, 2].map((page) => `sort=${sort}&dir=${dir}&page=${page}`)));
      const heavy = views.slice(0, 32).map((v, k) => answer(`/submissions/${id}?lost=0&size=${MAX_ITEM_PAGE_SIZE}&${v}`, k % 2 ? { cookie: "agentboard_admin=forged" } : {}));
      let heavyDone = false;
      const all = Promise.all(heavy).finally(() => (heavyDone = true));
      const home: Answer[] = [];
      while (!heavyDone || home.length < 10) home.push(await answer("/"));
      const heavyAnswers = await all;

      expect(new Set(home.map((a) => a.status))).toEqual(new Set([200]));
      expect(home.every((a) => a.cache === "hit")).toBe(true);
      for (const a of heavyAnswers) expect([200, 429]).toContain(a.status);
      const refused = heavyAnswers.filter((a) => a.status === 429);
      expect(refused.length).toBeGreaterThan(0);
      for (const a of refused) expect(Number(a.retryAfter)).toBeGreaterThan(0);
      // The client's share still got through.
      expect(heavyAnswers.filter((a) => a.status === 200).length).toBeGreaterThan(0);
    });
  });

  describe("the page cache's keys (item 7)", () => {
    it("answers a URL with unknown parameters from the page's own entry", async () => {
      await answer("/");
      for (let i = 0; i < 5; i++) {
        const token = `t${randomUUID().replaceAll("-", "")}`;
        const r = await get(`/?utm_source=${token}&${token}=1`);
        expect(r.headers.get("x-agentboard-cache")).toBe("hit");
        // The board as rendered for `/`: nothing of this URL's made-up parameters is in it.
        expect(await r.text()).not.toContain(token);
      }
    });

    it("keeps one entry for the same parameters in any order", async () => {
      const id = await idOf("weak-agent");
      for (const [stored, reordered] of [
        ["/?dir=asc&sort=agent", "/?sort=agent&dir=asc"],
        [`/submissions/${id}?size=100&lost=0`, `/submissions/${id}?lost=0&zz=${randomUUID()}&size=100`],
      ] as const) {
        await answer(stored); // a URL other than the bare page is stored when it is asked for a second time
        const second = await get(stored);
        expect(second.status).toBe(200);
        const body = await second.text();
        const again = await get(reordered);
        expect(again.headers.get("x-agentboard-cache"), reordered).toBe("hit");
        expect(await again.text(), reordered).toBe(body);
      }
    });
  });

  describe("a withdrawn entry (item 9)", () => {
    it("is never kept by shared caches, and the server's own cache drops its pages at the withdrawal", async () => {
      const id = await idOf("weak-agent");
      const entryPage = `/submissions/${id}?lost=0`;
      const html = await (await get(entryPage)).text();
      const itemPage = new RegExp(`/submissions/${id}/items/[^"?]+`).exec(html)![0];
      const paths = [entryPage, itemPage];
      // Per-item results and verdict exports: private, so no shared cache keeps a copy to serve after a withdrawal.
      for (const p of [`/api/submissions/${id}`, `/api/submissions/${id}/verdicts`]) {
        const r = await get(p);
        expect(r.status, p).toBe(200);
        const cc = r.headers.get("cache-control") ?? "";
        expect(cc, p).toMatch(/\bprivate\b/);
        expect(cc, p).not.toMatch(/public|s-maxage|stale-while-revalidate/);
      }
      // The board may be kept by shared caches, but only if they ask again before each use.
      const board = (await get("/api/leaderboard")).headers.get("cache-control") ?? "";
      expect(board).toMatch(/no-cache/);
      expect(board).not.toMatch(/s-maxage|stale-while-revalidate/);
      // The entry's pages are in the server's own cache (each stored on its second ask)…
      for (const p of paths) {
        await answer(p);
        await answer(p);
        expect((await answer(p)).cache, p).toBe("hit");
      }

      // …until the withdrawal: from the next request on, none of it is served.
      await withdraw(app.db, id, { actor: "maintainer:e2e", at: new Date() }, "withdrawn by the test");
      for (const p of [...paths, `/api/submissions/${id}`, `/api/submissions/${id}/verdicts`]) expect((await answer(p)).status, p).toBe(404);
      expect(await (await get("/api/leaderboard")).text()).not.toContain("weak-agent");
    });
  });
});

describe("the render gate's settings", () => {
  it("stop the server at start-up when one is out of range, naming it", async () => {
    const p = spawn(process.execPath, ["--import", "tsx", path.join(repo, "scripts/server/serve.ts"), "--port", "1"], {
      cwd: repo,
      env: { ...process.env, AGENTBOARD_HEAVY_CONCURRENCY: "0" },
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    p.stderr!.on("data", (c: Buffer) => (stderr += c.toString()));
    expect(await new Promise<number | null>((resolve) => p.once("exit", resolve))).toBe(2);
    expect(stderr).toContain('AGENTBOARD_HEAVY_CONCURRENCY must be a whole number from 1 to 1,000, not "0"');
  }, 60_000);
});
