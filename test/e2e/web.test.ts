/**
 * The product in a real browser (Debian chromium via playwright-core) against the production
 * build, on a database holding the demo entries plus one hostile entry.
 */
import { cpSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eq, inArray } from "drizzle-orm";
import { submissions } from "@/db/schema";
import { registerBenchmark } from "@/lib/submissions/benchmarks";
import { loadDemoEntries } from "@/lib/submissions/demo-entries";
import { ingestBundle } from "@/lib/submissions/ingest";
import { approve, withdraw } from "@/lib/submissions/review";
import { runWorker } from "@/lib/submissions/worker";
import { DEMO_DIR, NVIDIA_DEMO_DIR } from "@/scripts/demo/build-demo";
import { loadBenchmark } from "@/lib/benchmark/load-benchmark";
import { getItem, getSubmission } from "@/lib/queries/submission";
import { listItems } from "@/lib/queries/item-list";
import { ENGINES } from "../helpers/engines";
import { expectedCallValues, quotes, secretsOf } from "../helpers/private-values";
import { criticalViolations, launchBrowser, openPage, screenshot, startApp, seedDatabase, type App, type PageOptions } from "./harness";

const HOSTILE = `<img src=x onerror="window.__xss=1"><script>window.__xss=2</script>`;

/** The entries of both demos, plus the oracle's bundle under a hostile agent name. */
async function seed(dbFile: string) {
  await seedDatabase(dbFile, async (db, deps) => {
    await loadDemoEntries(db, DEMO_DIR, deps);
    await loadDemoEntries(db, NVIDIA_DEMO_DIR, deps, undefined, { isDefault: false });
    const bundle = path.join(mkdtempSync(path.join(tmpdir(), "agentboard-hostile-")), "bundle");
    cpSync(path.join(DEMO_DIR, "submissions/oracle"), bundle, { recursive: true });
    writeFileSync(path.join(bundle, "metadata.json"), JSON.stringify({ agent_name: HOSTILE, models: ["<b>bold</b>"], maintainer: "mallory" }));
    const { versionId } = await registerBenchmark(db, DEMO_DIR, { isDefault: true, now: new Date() });
    const { submissionId } = await ingestBundle(db, { versionId, bundlePath: bundle, source: "local", sourceRef: bundle, actor: "e2e" }, () => new Date());
    await runWorker(db, deps, { untilIdle: true });
    await approve(db, submissionId, { actor: "e2e", at: new Date() });
  });
}

describe.each(ENGINES)("the web app on %s", (engine) => {
  let app: App;
  let browser: Browser;
  beforeAll(async () => {
    app = await startApp(seed, {}, engine);
    browser = await launchBrowser();
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await app?.stop();
  });

  const open = (url: string, opts?: PageOptions) => openPage(browser, app.url + url, opts);

  /** [rank, agent] of every row of the leaderboard table, in order: the rank without its screen-reader note, the agent from the row header. */
  const rows = (page: Page) =>
    page.$$eval("table", (tables) => {
      const board = tables.find((t) => t.querySelector("caption")?.textContent?.includes("Leaderboard entries"));
      return [...(board?.querySelectorAll("tbody tr") ?? [])].map((tr) => [/=?\d+/.exec(tr.querySelector("td")?.textContent ?? "")?.[0] ?? "", tr.querySelector("th a")?.textContent?.trim() ?? ""]);
    });

  describe("the leaderboard", () => {
    it("server-renders every row with official ranks, escaping user text", async () => {
      const html = await (await fetch(app.url)).text();
      for (const agent of ["oracle", "strong-agent", "weak-agent", "policy-breaker", "fabricator", "partial-entry", "steady-agent"]) expect(html).toContain(agent);
      expect(html).not.toContain("Loading");
      expect(html).not.toContain("<script>window.__xss");
      const page = await open("/");
      expect(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss)).toBeUndefined();
      const r = await rows(page);
      expect(r.length).toBe(8);
      expect(r.map((x) => x[1])).toContain(HOSTILE);
      expect(r.find((x) => x[1] === "fabricator")![0]).toBe("8");
      await screenshot(page, "leaderboard");
    });

    it("keeps the official rank when sorting by a capability", async () => {
      const page = await open("/");
      const before = new Map((await rows(page)).map(([rank, agent]) => [agent, rank]));
      await page.getByRole("button", { name: /Multi-source/ }).click();
      await page.waitForFunction(() => location.search.includes("sort=multiturn"));
      const after = await rows(page);
      expect(after.map((x) => x[1])).not.toEqual([...before.keys()]);
      for (const [rank, agent] of after) expect(rank, agent).toBe(before.get(agent));
      const policy = after.findIndex((x) => x[1] === "policy-breaker");
      expect(policy).toBeGreaterThan(after.findIndex((x) => x[1] === "strong-agent"));
      const measures = await page.evaluate(() => performance.getEntriesByName("leaderboard-sort").map((m) => m.duration));
      expect(measures.length).toBeGreaterThan(0);
    });

    it("searches and filters, with the view in the URL", async () => {
      const page = await open("/");
      await page.getByLabel("Search agent, model or maintainer").fill("weak");
      await page.waitForFunction(() => new URLSearchParams(location.search).get("q") === "weak");
      expect((await rows(page)).map((x) => x[1])).toEqual(["weak-agent"]);
      await page.getByLabel("Search agent, model or maintainer").fill("");
      await page.getByLabel("Hide partial").check();
      await page.waitForFunction(() => location.search.includes("partial=0"));
      expect((await rows(page)).map((x) => x[1])).not.toContain("partial-entry");
    });

    it("keeps a column toggle across a reload", async () => {
      // Every column shown (the board's default hides the optional ones, Maintainer among them).
      const page = await open("/?hide=");
      expect(await page.locator("thead th", { hasText: "Maintainer" }).count()).toBe(1);
      await page.getByText(/^Columns/).click();
      await page.getByRole("checkbox", { name: "Maintainer" }).uncheck();
      await page.waitForFunction(() => /hide=[^&]*maintainer/.test(location.search));
      await page.reload({ waitUntil: "networkidle" });
      expect(page.url()).toMatch(/hide=[^&]*maintainer/);
      expect(await page.locator("thead th", { hasText: "Maintainer" }).count()).toBe(0);
    });

    it("downloads the current view as CSV", async () => {
      const csv = await (await fetch(`${app.url}/api/leaderboard?format=csv&q=oracle`)).text();
      const lines = csv.trim().split(/\r?\n/);
      expect(lines[0]).toMatch(/^rank,id,agent,url,overall,/);
      expect(lines).toHaveLength(2);
      expect(lines[1]).toMatch(/^1,\d+,oracle,\/submissions\/\d+,/);
      expect(lines[1]).toContain("100");
      const all = await (await fetch(`${app.url}/api/leaderboard?format=csv`)).text();
      expect(all).toContain(`"<img src=x onerror=""window.__xss=1""><script>window.__xss=2</script>"`); // quoted, quotes doubled
    });

    it("works in dark mode and on a phone", async () => {
      const page = await open("/", { dark: true });
      expect(await page.evaluate(() => document.documentElement.classList.contains("dark"))).toBe(true);
      await screenshot(page, "leaderboard-dark");
      const phone = await open("/", { width: 390 });
      const scroll = await phone.$eval("table", (t) => {
        const box = t.parentElement!;
        const [rank, agent, overall] = [...t.querySelector("tbody tr")!.children].map((c) => getComputedStyle(c).position);
        return { scrollable: box.scrollWidth > box.clientWidth, sticky: [rank, agent, overall] };
      });
      expect(scroll.scrollable).toBe(true);
      expect(scroll.sticky).toEqual(["sticky", "sticky", "sticky"]);
      await screenshot(phone, "leaderboard-phone");
      const toggle = await open("/");
      await toggle.getByRole("button", { name: /dark mode/i }).click();
      await toggle.reload({ waitUntil: "networkidle" });
      expect(await toggle.evaluate(() => document.documentElement.classList.contains("dark"))).toBe(true);
    });
  });

  describe("entries", () => {
    it("shows the funnel, the items and an item's verdicts", async () => {
      const page = await open("/");
      await page.getByRole("link", { name: "strong-agent" }).click();
      await page.waitForURL(/\/submissions\/\d+/);
      await expect(page.getByRole("heading", { name: "Waterfall funnel" }).isVisible()).resolves.toBe(true);
      await expect(page.getByRole("heading", { name: "Scores per domain" }).isVisible()).resolves.toBe(true);
      const trajectory = await page.locator("#trajectory table").textContent();
      expect(trajectory).toMatch(/Tool names F1/);
      await screenshot(page, "submission");
      // The item table says what was asked, answered and why, for the items that lost points.
      expect(await page.locator("#items table thead").textContent()).toMatch(/Item.*Question.*Agent's answer.*Reason.*Outcome.*Weight.*Score/);
      await page.locator("#items table tbody tr a").first().click();
      await page.waitForURL(/\/items\//);
      const text = await page.textContent("main");
      expect(text).toMatch(/Exact tool response|exact/i);
      expect(text).toMatch(/Tool calls \(\d+\)/);
      expect(text).toMatch(/Trajectory diagnostic.*Tool names F1/s);
      await screenshot(page, "item");
    });

    it("compares entries with a paired bootstrap", async () => {
      const ids = await (await fetch(`${app.url}/api/leaderboard`)).json().then((j: { entries: { id: number; agent: string }[] }) => ["oracle", "fabricator"].map((a) => j.entries.find((e) => e.agent === a)!.id));
      const page = await open(`/compare?ids=${ids.join(",")}`);
      const text = (await page.textContent("main")) ?? "";
      expect(text).toContain("oracle");
      expect(text).toContain("fabricator");
      expect(text).toMatch(/significant/);
      // The overall row is tested too, and the items one passed and the other did not are listed.
      expect(text).toMatch(new RegExp(`Overall.*−\\d+\\.\\d vs #${ids[0]} \\[.+?\\] significant`, "s"));
      expect(text).toMatch(/Per-item flips.*All items/s);
      expect(await page.locator("#flips tbody tr[data-flip]").count()).toBeGreaterThan(0);
      await screenshot(page, "compare");
    });

    it("has no critical accessibility violations on any page", async () => {
      const ids = await (await fetch(`${app.url}/api/leaderboard`)).json().then((j: { entries: { id: number }[] }) => j.entries.map((e) => e.id));
      const detail = ids.at(-1)!; // the last entry has items that lost points, so its page links some
      const item = /href="(\/submissions\/\d+\/items\/[^"#]+)"/.exec(await (await fetch(`${app.url}/submissions/${detail}`)).text())![1]!.replaceAll("&amp;", "&");
      const pages = ["/", "/?benchmark=demo-nvidia", `/submissions/${detail}`, item, "/compare", `/compare?ids=${ids[0]},${ids[1]}`, "/queue", "/changelog", "/submit", "/about", "/no-such-page"];
      // The markup does not depend on the engine: on Postgres each page is only checked to render
      // (axe over 22 pages costs two minutes, and the story above drives the same pages in the browser).
      if (engine !== "sqlite") {
        for (const url of pages) expect((await fetch(app.url + url, { headers: { accept: "text/html" } })).status, url).toBe(url === "/no-such-page" ? 404 : 200);
        return;
      }
      for (const url of pages) {
        for (const dark of [false, true]) {
          const page = await open(url, { dark });
          expect(await criticalViolations(page), `${url}${dark ? " (dark)" : ""}`).toEqual([]);
          await page.context().close();
        }
      }
    }, 480_000); // 22 pages through axe: about two minutes on an idle machine
  });

  describe("private ground truth", () => {
    // The VAKRA demo keeps its ground truth private: no page or API body of a failed item may quote a reference.
    it("quotes no reference value on any failed item's page or in the entry's API body", async () => {
      const benchmark = await loadBenchmark(DEMO_DIR);
      const db = app.db;
      let scanned = 0;
      {
        const ids = await db
          .select({ id: submissions.id, agent: submissions.agentName, description: submissions.description })
          .from(submissions)
          .where(inArray(submissions.agentName, ["strong-agent", "fabricator"]));
        expect(ids).toHaveLength(2);
        for (const { id, agent, description } of ids) {
          const detail = (await getSubmission(db, id))!;
          const api = await (await fetch(`${app.url}/api/submissions/${id}`)).text();
          const rows = (await listItems(db, detail.run!.id, { pageSize: 300 })).rows;
          // The entry page's item table (lost points by default, and all items): question, answer and reason per row.
          const tables = [await (await fetch(`${app.url}/submissions/${id}?size=300`)).text(), await (await fetch(`${app.url}/submissions/${id}?lost=0&size=300`)).text()];
          // Every row's question and answer are public: a value one item's answer holds is no leak in another row.
          const listPublic = JSON.stringify(rows.map((r) => [r.question, r.answer]));
          for (const row of rows) {
            if (row.status === "scored" && row.score >= 1) continue;
            const item = (await getItem(db, detail.run!.id, row.capability, row.uuid, { showGroundTruth: false }))!;
            const secrets = secretsOf(benchmark, item, JSON.stringify([agent, description]));
            const callSecrets = secretsOf(benchmark, item, JSON.stringify([agent, description]), expectedCallValues(benchmark, row.capability, row.uuid));
            if (secrets.length === 0 && callSecrets.length === 0) continue;
            const res = await fetch(`${app.url}/submissions/${id}/items/${encodeURIComponent(row.capability)}/${encodeURIComponent(row.uuid)}`);
            expect(res.status).toBe(200);
            const html = await res.text();
            for (const s of secrets) {
              expect(quotes(html, s), `${agent} ${row.uuid}: ${s}`).toBe(false);
              expect(quotes(api, s), `${agent} API: ${s}`).toBe(false);
            }
            for (const s of secretsOf(benchmark, item, JSON.stringify([agent, description]) + listPublic)) for (const t of tables) expect(quotes(t, s), `${agent} table ${row.uuid}: ${s}`).toBe(false);
            // The trajectory diagnostic's call pairs name no expected call or value on the item page.
            for (const s of callSecrets) expect(quotes(html, s), `${agent} ${row.uuid} expected call: ${s}`).toBe(false);
            scanned++;
          }
        }
      }
      expect(scanned).toBeGreaterThan(5);
    }, 120_000);
  });

  describe("a benchmark scored by evaluators", () => {
    it("ranks on its evaluator columns and opens an item on the evaluator's verdict", async () => {
      const page = await open("/");
      await page.getByRole("navigation", { name: "Leaderboards" }).getByRole("link", { name: "Agentboard VSS-style demo" }).click();
      await page.waitForURL(/\?benchmark=demo-nvidia/);
      const headers = await page.locator("thead th").allTextContents();
      for (const label of ["Video Q&A", "Tool trajectory", "Incident reports"]) expect(headers.some((h) => h.includes(label)), label).toBe(true);
      expect((await rows(page)).map((r) => r[1])).toEqual(["reference-agent", "vss-baseline", "qa-only", "caption-only"]);
      expect(await criticalViolations(page)).toEqual([]);
      await screenshot(page, "evaluator-leaderboard");

      await page.getByRole("link", { name: "reference-agent" }).click();
      await page.waitForURL(/\/submissions\/\d+/);
      await expect(page.getByRole("heading", { name: "Evaluators" }).isVisible()).resolves.toBe(true);
      expect(await page.getByRole("heading", { name: "Waterfall funnel" }).count()).toBe(0);
      expect(await page.locator("#evaluators table").textContent()).toMatch(/VLM fields.*Incident reports\s*Report/s);

      await page.goto(`${page.url().split("?")[0]}?capability=incident_report&lost=0#items`, { waitUntil: "networkidle" });
      // Full ids: the four reports no longer all read "incident".
      const ids = await page.locator("#items table tbody th a").allTextContents();
      expect(ids).toHaveLength(4);
      expect(new Set(ids).size).toBe(4);
      for (const id of ids) expect(id).toMatch(/^incident-.+/);
      await page.locator("#items table tbody tr a").first().click();
      await page.waitForURL(/\/items\/incident_report\//);
      const text = (await page.textContent("main")) ?? "";
      expect(text).toMatch(/Evaluator verdict/);
      expect(text).toMatch(/Scored by\s*report evaluator/);
      expect(text).toMatch(/Outcome\s*(✓ Passed|◐ Partial|✗ Lost at) ·? ?(report evaluator)?/);
      expect(text).not.toMatch(/Waterfall verdicts/);
      // The ground truth is public on this benchmark, so the field-by-field reasoning shows.
      expect(await page.locator("#evaluation table").textContent()).toMatch(/exact_match/);
      expect(await criticalViolations(page)).toEqual([]);
      await screenshot(page, "evaluator-item");

      // An item with no output at all (qa-only sent no trajectories) is still an evaluator item, not a waterfall one.
      const qaOnly = await (await fetch(`${app.url}/api/leaderboard?benchmark=demo-nvidia`)).json().then((j: { entries: { id: number; agent: string }[] }) => j.entries.find((e) => e.agent === "qa-only")!.id);
      const missing = await open(`/submissions/${qaOnly}/items/tool_trajectory/gate-log`);
      const missingText = (await missing.textContent("main")) ?? "";
      expect(missingText).toMatch(/Evaluator verdict.*The evaluator did not run: no output for this item/s);
      expect(missingText).not.toMatch(/Waterfall verdicts|Replayed tool responses/);
    });
  });

  describe("the response cache", () => {
    it("serves cached pages until the data changes, then the change at once", async () => {
      const first = await fetch(app.url, { headers: { accept: "text/html" } });
      expect(first.headers.get("x-agentboard-cache")).toBe("hit");
      expect(await first.text()).toContain("weak-agent");
      const api = await fetch(`${app.url}/api/leaderboard`);
      const etag = api.headers.get("etag")!;
      expect((await fetch(`${app.url}/api/leaderboard`, { headers: { "if-none-match": etag } })).status).toBe(304);

      // A maintainer withdraws an entry (written by another process, as the worker would).
      const [{ id }] = (await app.db.select({ id: submissions.id }).from(submissions).where(eq(submissions.agentName, "weak-agent"))) as [{ id: number }];
      await withdraw(app.db, id, { actor: "maintainer:e2e", at: new Date() }, "test");

      expect(await (await fetch(app.url, { headers: { accept: "text/html" } })).text()).not.toContain("weak-agent");
      const after = await fetch(`${app.url}/api/leaderboard`, { headers: { "if-none-match": etag } });
      expect(after.status).toBe(200);
      expect(((await after.json()) as { entries: { agent: string }[] }).entries.map((e) => e.agent)).not.toContain("weak-agent");
    });
  });
});
