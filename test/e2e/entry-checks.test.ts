/**
 * Issue 27, points 7 to 9, in chromium against the production build:
 * - where an entry lost points: the capability bars and the domain grid open the entry's
 *   lost-points items of that capability or domain; the entry page shows its rank and a
 *   breadcrumb that follows its state; the funnel's rows add up to its items; the item list
 *   names the agent's side of the first divergence, never a private reference value;
 * - the board at 1400 px fits without sideways scrolling with its flag badges in view, a phone
 *   shows a flag marker, rescore asks for confirmation, /submit keeps maintainers' setup to them;
 * - anyone can check an entry: the bundle downloads with the sha256 its manifest records (a ZIP
 *   as stored, a folder as a ZIP of its files), `verify` re-derives the entry from the page's URL
 *   and that download alone (and the benchmark folder), and the download is refused (404) for an
 *   unpublished entry and where the benchmark turns it off; the board links an entry's own links.
 */
import { createHash } from "node:crypto";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { eq } from "drizzle-orm";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { itemResults, submissions } from "@/db/schema";
import { registerBenchmark } from "@/lib/submissions/benchmarks";
import { ingestBundle } from "@/lib/submissions/ingest";
import { approve } from "@/lib/submissions/review";
import { hostedStorageFromEnv } from "@/lib/submissions/storage-settings";
import { runWorker } from "@/lib/submissions/worker";
import { openBundle } from "@/lib/validate/bundle-source";
import type { RunManifest } from "@/lib/scoring/manifest";
import { DEMO_DIR } from "@/scripts/demo/build-demo";
import { GOOD_BUNDLE, MINI_BENCHMARK } from "../helpers/mini-fixtures";
import { runCli } from "../helpers/run-cli";
import { zipFolder } from "../helpers/zip-writer";
import { criticalViolations, launchBrowser, loadDemos, openPage, repo, screenshot, seedDatabase, startApp, type App, type PageOptions } from "./harness";

const ADMIN = "maintainer-token-for-entry-checks";
const work = mkdtempSync(path.join(tmpdir(), "agentboard-e2e-entry-checks-"));
const ids = { zip: 0, stored: 0, off: 0, invalid: 0, strong: 0, weak: 0, steady: 0, fabricator: 0 };
const LINKS = { paper: "https://example.org/zipped-agent.pdf", code: "https://example.org/zipped-agent", homepage: "javascript:alert(1)" };

/**
 * The demos, plus: the weak agent's bundle as a ZIP with links in its metadata (stored, then its
 * file removed: served from the store); the strong agent's folder stored file by file (then
 * removed: laid out from the store); and a mini benchmark that turns downloads off, with one
 * published entry. Every one of them published.
 */
async function seed(dbFile: string) {
  const storage = hostedStorageFromEnv({ AGENTBOARD_STORAGE_URL: "", AGENTBOARD_CACHE_DIR: "" });
  await seedDatabase(dbFile, async (db, deps) => {
    await loadDemos(db, deps);
    const { versionId } = await registerBenchmark(db, DEMO_DIR, { isDefault: true, now: new Date() });
    const zip = path.join(work, "zipped-agent.zip");
    writeFileSync(zip, zipFolder(path.join(DEMO_DIR, "submissions/weak-agent"), (name, text) => (name === "metadata.json" ? JSON.stringify({ agent_name: "zipped-agent", models: ["m"], ...LINKS }) : text)));
    ids.zip = (await ingestBundle(db, { versionId, bundlePath: zip, source: "local", sourceRef: zip, actor: "e2e", storage }, () => new Date())).submissionId;
    const folder = path.join(work, "stored-agent");
    cpSync(path.join(DEMO_DIR, "submissions/strong-agent"), folder, { recursive: true });
    writeFileSync(path.join(folder, "metadata.json"), JSON.stringify({ agent_name: "stored-agent", models: ["m"] }));
    ids.stored = (await ingestBundle(db, { versionId, bundlePath: folder, source: "local", sourceRef: folder, actor: "e2e", storage }, () => new Date())).submissionId;

    const mini = path.join(work, "mini-off");
    cpSync(MINI_BENCHMARK, mini, { recursive: true });
    const yaml = readFileSync(path.join(mini, "benchmark.yaml"), "utf8").replace("slug: mini", "slug: mini-off");
    writeFileSync(path.join(mini, "benchmark.yaml"), `${yaml}\nbundleDownload: false\n`);
    const off = await registerBenchmark(db, mini, { now: new Date() });
    ids.off = (await ingestBundle(db, { versionId: off.versionId, bundlePath: GOOD_BUNDLE, source: "local", sourceRef: GOOD_BUNDLE, actor: "e2e" }, () => new Date())).submissionId;

    await runWorker(db, deps, { untilIdle: true });
    for (const id of [ids.zip, ids.stored, ids.off]) await approve(db, id, { actor: "e2e", at: new Date() });
    for (const row of await db.select({ id: submissions.id, agent: submissions.agentName }).from(submissions)) {
      if (row.agent === "invalid-bundle") ids.invalid = row.id;
      if (row.agent === "strong-agent") ids.strong = row.id;
      if (row.agent === "weak-agent") ids.weak = row.id;
      if (row.agent === "steady-agent") ids.steady = row.id;
      if (row.agent === "fabricator") ids.fabricator = row.id;
    }
  });
  // The server finds these in the store only.
  rmSync(path.join(work, "zipped-agent.zip"));
  rmSync(path.join(work, "stored-agent"), { recursive: true });
}

let app: App;
let browser: Browser;
beforeAll(async () => {
  app = await startApp(seed, { AGENTBOARD_ADMIN_TOKEN: ADMIN });
  browser = await launchBrowser();
}, 240_000);
afterAll(async () => {
  await browser?.close();
  await app?.stop();
  rmSync(work, { recursive: true, force: true });
});

const open = (url: string, opts?: PageOptions) => openPage(browser, app.url + url, opts);
const scrollWidth = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth);

async function adminSession(): Promise<string> {
  const res = await fetch(`${app.url}/admin/login`, { method: "POST", body: new URLSearchParams({ token: ADMIN }), headers: { origin: app.url }, redirect: "manual" });
  return res.headers.get("set-cookie")!.split(";")[0]!.split("=").slice(1).join("=");
}

interface EntryJson {
  manifest: RunManifest;
  capabilities: { id: string; label: string; nItems: number; scorer: string }[];
  run: { trials: number };
}
const entryJson = async (id: number) => (await (await fetch(`${app.url}/api/submissions/${id}`)).json()) as EntryJson;

/** "45 lost-points items in API chaining (harbor)": the count the item list says it holds. */
const listCount = async (page: Page) => Number(/([\d,]+) lost-points items/.exec((await page.textContent("#items"))!)![1]!.replace(/,/g, ""));

describe("the board at a glance", () => {
  it("fits 1400 px with every default column, the flag badge in view, and the models one click away", async () => {
    const page = await open("/", { width: 1400 });
    expect(await scrollWidth(page)).toBeLessThanOrEqual(1400);
    const table = await page.$eval("table", (t) => ({ table: t.getBoundingClientRect().width, box: t.parentElement!.clientWidth, scrolls: t.parentElement!.scrollWidth > t.parentElement!.clientWidth }));
    expect(table.scrolls, JSON.stringify(table)).toBe(false);
    // The fabricator's, and the copies' of demo bundles this test published (flagged as copies).
    const badge = page.locator("tbody tr", { has: page.locator(".lb-agent", { hasText: /^fabricator$/ }) }).locator('[data-badge="flagged"]');
    expect(await badge.count()).toBe(1);
    const box = (await badge.boundingBox())!;
    expect(box.x + box.width).toBeLessThanOrEqual(1400);
    expect(await badge.isVisible()).toBe(true);
    const headers = await page.$eval("table", (t) => [...t.querySelectorAll("thead th")].map((th) => th.textContent!.replace(/[▲▼↕]/g, "").trim()));
    expect(headers).toEqual(["Rank", "Agent", "Overall", "API chaining", "Tool selection", "Multi-hop reasoning", "Multi-source + policy", "Trials", "Cost", "Badges"]);
    await screenshot(page, "entry-checks-board-1400");
    // The optional columns are in the Columns menu; showing one keeps the rest of the default.
    await page.getByText(/^Columns/).click();
    await page.getByRole("checkbox", { name: "Model(s)" }).check();
    await page.waitForFunction(() => new URLSearchParams(location.search).get("hide") === "tokens,latency,latency_p95,coverage,maintainer,date");
    expect(await page.locator("table").first().locator("thead th", { hasText: "Model(s)" }).count()).toBe(1);
    // The CSV download names what the view hides, so it holds the columns on screen.
    const csv = await (await fetch(app.url + (await page.getByRole("link", { name: "CSV" }).getAttribute("href"))!)).text();
    expect(csv.split("\r\n")[0]).toContain("models");
    expect(csv.split("\r\n")[0]).not.toContain("maintainer");
  });

  it("marks a flagged entry on a phone, where the Badges column is off screen", async () => {
    const page = await open("/", { width: 390 });
    expect(await scrollWidth(page)).toBeLessThanOrEqual(390);
    // Every flagged row has a marker, and only they.
    const flagged = await page.$$eval("tbody tr", (trs) => trs.map((tr) => [!!tr.querySelector('[data-badge="flagged"]'), !!tr.querySelector("[data-flag-mark]")]));
    expect(flagged.filter(([badge, mark]) => badge !== mark)).toEqual([]);
    const marks = page.locator("tbody tr", { has: page.locator(".lb-agent", { hasText: /^fabricator$/ }) }).locator("[data-flag-mark]");
    expect(await marks.count()).toBe(1);
    expect(await marks.isVisible()).toBe(true);
    expect(await marks.getAttribute("aria-label")).toBe("flagged: unsupported answers");
    const box = (await marks.boundingBox())!;
    expect(box.x).toBeGreaterThanOrEqual(0);
    expect(box.x + box.width).toBeLessThanOrEqual(390);
    expect(await criticalViolations(page)).toEqual([]);
    await screenshot(page, "entry-checks-board-390");
    // The marker is for phones: the desktop board has the badge.
    expect(await (await open("/", { width: 1400 })).locator("tbody [data-flag-mark]").first().isVisible()).toBe(false);
  });

  it("links an entry's own paper and code (http(s) only), and no entry that gave none", async () => {
    const page = await open("/", { width: 1400 });
    const row = page.locator("tbody tr", { has: page.locator(".lb-agent", { hasText: "zipped-agent" }) });
    const links = await row.locator("[data-entry-link]").evaluateAll((as) => as.map((a) => [a.textContent, a.getAttribute("href"), a.getAttribute("rel")]));
    expect(links).toEqual([
      ["paper", LINKS.paper, "noopener noreferrer nofollow ugc"],
      ["code", LINKS.code, "noopener noreferrer nofollow ugc"],
    ]);
    expect(await page.locator("tbody tr", { has: page.locator(".lb-agent", { hasText: /^oracle$/ }) }).locator("[data-entry-link]").count()).toBe(0);
    expect(await page.content()).not.toContain("javascript:alert");
  });
});

describe("where an entry lost points", () => {
  it("shows the entry's rank, as its board ranks it, and a breadcrumb to that board", async () => {
    const board = (await (await fetch(`${app.url}/api/leaderboard`)).json()) as { entries: { id: number; rank: number }[] };
    const rank = board.entries.find((e) => e.id === ids.strong)!.rank;
    const tied = board.entries.filter((e) => e.rank === rank).length > 1;
    const page = await open(`/submissions/${ids.strong}`);
    expect((await page.locator("[data-entry-rank]").textContent())!.replace(/\s+/g, " ")).toMatch(new RegExp(`^Rank ${tied ? "=" : ""}${rank} of ${board.entries.length} on the Agentboard demo leaderboard`));
    const crumbs = page.getByRole("navigation", { name: "Breadcrumb" });
    expect((await crumbs.textContent())!.replace(/\s+/g, " ")).toBe(`Agentboard demo leaderboard / Entry #${ids.strong}`);
    expect(await crumbs.locator("a").first().getAttribute("href")).toBe("/?benchmark=demo&version=1.0");
    const item = await open(`/submissions/${ids.strong}?capability=api_chaining`);
    await item.locator("#items table tbody tr th a").first().click();
    await item.waitForURL(/\/items\//);
    expect(await item.getByRole("navigation", { name: "Breadcrumb" }).locator("a").first().textContent()).toBe("Agentboard demo leaderboard");
  });

  it("gives an unpublished entry a breadcrumb of its state in the queue, and no rank", async () => {
    const page = await open(`/submissions/${ids.invalid}`, { adminSession: await adminSession() });
    const crumbs = page.getByRole("navigation", { name: "Breadcrumb" });
    expect((await crumbs.textContent())!.replace(/\s+/g, " ")).toBe(`Queue · invalid / Submission #${ids.invalid}`);
    expect(await crumbs.locator("a").first().getAttribute("href")).toBe("/queue?state=invalid#finished");
    expect(await page.locator("[data-entry-rank]").count()).toBe(0);
  });

  it("opens a capability's lost-points items from its bar, and a domain's from its cell", async () => {
    const page = await open(`/submissions/${ids.weak}`);
    const bar = page.locator('#capabilities li[data-capability="tool_selection"]');
    const said = Number(/(\d+) items? lost points/.exec((await bar.textContent())!)![1]);
    expect(said).toBeGreaterThan(0);
    await bar.locator("[data-lost-bar]").click();
    await page.waitForURL((u) => u.searchParams.get("capability") === "tool_selection" && u.hash === "#items");
    expect(await listCount(page)).toBe(said);
    expect(await page.textContent("#items")).toContain(`${said} lost-points items in Tool selection`);
    const scores = await page.$$eval("#items table tbody tr", (trs) => trs.map((tr) => [tr.children[1]!.textContent, Number(tr.lastElementChild!.textContent)] as const));
    for (const [capability, score] of scores) {
      expect(capability).toBe("Tool selection");
      expect(score).toBeLessThan(1);
    }
    await screenshot(page, "entry-checks-lost-capability");

    const grid = await open(`/submissions/${ids.weak}`);
    const cell = grid.locator("#domains [data-lost-cell]").first();
    const title = (await cell.getAttribute("title"))!;
    const [, label, domain, n] = /^(.+) · (.+): (\d+) items? lost points$/.exec(title)!;
    await cell.click();
    await grid.waitForURL((u) => u.searchParams.get("domain") === domain && u.hash === "#items");
    expect(await listCount(grid)).toBe(Number(n));
    const rows = await grid.$$eval("#items table tbody tr", (trs) => trs.map((tr) => [tr.children[1]!.textContent, tr.children[2]!.textContent]));
    for (const [capability, d] of rows) expect([capability, d]).toEqual([label, domain]);
  });

  it("has funnel rows that add up to every item, each lost row opening its items", async () => {
    for (const id of [ids.strong, ids.weak, ids.steady]) {
      const entry = await entryJson(id);
      const items = entry.capabilities.filter((c) => c.scorer === "waterfall").reduce((n, c) => n + c.nItems, 0);
      const page = await open(`/submissions/${id}`);
      const counts = await page.$$eval("#funnel tbody [data-funnel-count]", (els) => els.map((e) => Number(e.textContent!.replace(/,/g, ""))));
      const total = Number((await page.textContent("#funnel [data-funnel-total]"))!.replace(/,/g, ""));
      expect(counts.reduce((a, b) => a + b, 0), `entry ${id}`).toBe(total);
      expect(total, `entry ${id}`).toBe(items);
      // Items that never reached a stage are broken down, and each part opens its items.
      const part = page.locator("#funnel [data-funnel-part]").first();
      if (await part.count()) {
        const n = Number(/^[\d,]+/.exec((await part.textContent())!)![0].replace(/,/g, ""));
        await part.click();
        await page.waitForURL((u) => u.searchParams.has("outcome"));
        expect(await listCount(page), `entry ${id}`).toBe(n);
      }
    }
    const steady = await open(`/submissions/${ids.steady}#funnel`);
    expect(await steady.locator("#funnel").textContent()).toContain("All item-trials");
    const strong = await open(`/submissions/${ids.strong}`);
    await strong.locator("#funnel").screenshot({ path: path.join(repo, "test-artifacts/screenshots/entry-checks-funnel.png") });
    await strong.locator('#funnel [data-funnel-row="correctness"] a').click();
    await strong.waitForURL((u) => u.searchParams.get("outcome") === "correctness");
    expect(await listCount(strong)).toBe(Number(await strong.locator('#funnel [data-funnel-row="correctness"] [data-funnel-count]').textContent()));
  });

  it("names the agent's side of the first divergence on each row lost at correctness, never the reference's", async () => {
    const page = await open(`/submissions/${ids.strong}?outcome=correctness&size=100`);
    const rows = await page.$$eval("#items table tbody tr", (trs) => trs.map((tr) => ({ uuid: tr.querySelector("th a")!.textContent!.trim(), capability: tr.children[1]!.textContent, reason: tr.children[5]!.textContent!.trim() })));
    expect(rows.length).toBeGreaterThan(10);
    for (const r of rows) expect(r.reason, r.uuid).toMatch(/^(First divergence: (call \d+ `[^`]+`|the agent)|The agent's calls match the reference's; its answer )/);
    expect(rows.some((r) => /the value of parameter `\w+` differed \(the agent gave .+\)/.test(r.reason))).toBe(true);
    expect(rows.filter((r) => /reference value/.test(r.reason))).toEqual([]);
    expect(new Set(rows.map((r) => r.reason)).size).toBeGreaterThan(3);
    // The expected side of each differing parameter is ground truth: never on the row.
    const { run } = (await db().select({ run: submissions.currentRunId }).from(submissions).where(eq(submissions.id, ids.strong)))[0]!;
    const stored = await db().select({ uuid: itemResults.uuid, result: itemResults.result }).from(itemResults).where(eq(itemResults.runId, run!));
    let checked = 0;
    for (const r of rows) {
      const result = stored.find((s) => s.uuid === r.uuid)!.result as { trajectory?: { pairs?: { params: { mismatched: { expected: unknown; actual: unknown }[] } | null }[] } };
      for (const p of result.trajectory?.pairs ?? []) {
        for (const m of p.params?.mismatched ?? []) {
          if (JSON.stringify(m.expected) === JSON.stringify(m.actual)) continue;
          expect(r.reason, r.uuid).not.toContain(`gave ${JSON.stringify(m.expected)}`);
          if (typeof m.expected === "string" && m.expected.length >= 4) expect(r.reason, r.uuid).not.toContain(m.expected);
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThan(0);
    await screenshot(page, "entry-checks-reasons");
  });

  it("says on the item page which parameter's value differed", async () => {
    const page = await open(`/submissions/${ids.strong}?outcome=correctness`);
    await page.locator("#items table tbody tr th a").first().click();
    await page.waitForURL(/\/items\//);
    const t = (await page.textContent("#trajectory"))!;
    expect(t).toMatch(/the value of parameter \S+ differed|parameter \S+ was (left out|not expected)|not expected: no expected call/);
    expect(t).not.toMatch(/(?<!value of )parameter \S+ differed/);
  });
});

describe("/submit", () => {
  it("keeps maintainers' setup hints to maintainers, and fits a phone", async () => {
    for (const width of [390, 1400]) {
      const page = await open("/submit", { width });
      expect(await scrollWidth(page), `${width} px`).toBeLessThanOrEqual(width);
      const text = (await page.textContent("main"))!;
      expect(text).not.toContain("GITHUB_REPOSITORY");
      expect(text).not.toContain("Maintainers:");
      expect(text).toContain("takes no submissions by GitHub issue yet");
      if (width === 390) await screenshot(page, "entry-checks-submit-390");
    }
    const maintainer = await open("/submit", { width: 390, adminSession: await adminSession() });
    expect(await maintainer.textContent("main")).toContain("GITHUB_REPOSITORY=owner/name");
    expect(await scrollWidth(maintainer)).toBeLessThanOrEqual(390);
  });
});

describe("anyone can check a published entry", () => {
  const sha256 = (b: Buffer) => createHash("sha256").update(b).digest("hex");
  const download = async (id: number) => {
    const res = await fetch(`${app.url}/api/submissions/${id}/bundle`);
    return { status: res.status, kind: res.headers.get("x-bundle-kind"), sha: res.headers.get("x-bundle-sha256"), type: res.headers.get("content-type"), bytes: Buffer.from(await res.arrayBuffer()) };
  };
  /** The ZIP's files laid out in a new folder. */
  async function unzip(bytes: Buffer, name: string): Promise<string> {
    const file = path.join(work, `${name}.zip`);
    writeFileSync(file, bytes);
    const opened = await openBundle(file);
    if (!opened.ok) throw new Error(JSON.stringify(opened.problems));
    const dir = path.join(work, name);
    for (const f of opened.source.files) {
      mkdirSync(path.dirname(path.join(dir, f.path)), { recursive: true });
      writeFileSync(path.join(dir, f.path), await f.read());
    }
    await opened.source.close();
    return dir;
  }
  const folderSha = async (dir: string) => {
    const opened = await openBundle(dir);
    if (!opened.ok) throw new Error(JSON.stringify(opened.problems));
    return opened.source.sha256();
  };

  it("downloads a ZIP bundle as stored: its sha256 is the manifest's, and the page links it", async () => {
    const { manifest } = await entryJson(ids.zip);
    const got = await download(ids.zip);
    expect(got.status).toBe(200);
    expect(got.type).toBe("application/zip");
    expect(got.kind).toBe("zip");
    expect(got.sha).toBe(manifest.bundle.sha256);
    expect(sha256(got.bytes)).toBe(manifest.bundle.sha256);
    const page = await open(`/submissions/${ids.zip}#reproducibility`);
    expect(await page.locator('[data-bundle-offer="zip"] a').getAttribute("href")).toBe(`/api/submissions/${ids.zip}/bundle`);
    await page.locator("#reproducibility").screenshot({ path: path.join(repo, "test-artifacts/screenshots/entry-checks-download.png") });
  });

  it("downloads a folder bundle as a ZIP of its files, whose unzipped folder has the manifest's sha256 (from the store, or from the folder)", async () => {
    for (const id of [ids.stored, ids.strong]) {
      const { manifest } = await entryJson(id);
      const got = await download(id);
      expect(got.status, `entry ${id}`).toBe(200);
      expect(got.kind).toBe("folder");
      expect(got.sha).toBe(manifest.bundle.sha256);
      expect(sha256(got.bytes)).not.toBe(manifest.bundle.sha256);
      expect(await folderSha(await unzip(got.bytes, `entry-${id}`)), `entry ${id}`).toBe(manifest.bundle.sha256);
      // The same bytes again (kept once made).
      expect(sha256((await download(id)).bytes)).toBe(sha256(got.bytes));
    }
  });

  it("lets verify re-derive the entry from its page's URL and the downloaded bundle", async () => {
    const got = await download(ids.zip);
    const file = path.join(work, "downloaded.zip");
    writeFileSync(file, got.bytes);
    const r = await runCli(["verify", `${app.url}/submissions/${ids.zip}`, "--bundle", file, "--benchmark", DEMO_DIR, "--quiet"]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^IDENTICAL: every number of .+ was re-derived \(300 items\)/);
  }, 240_000);

  it("refuses the download (404) for an unpublished entry, an unknown one, and where the benchmark turns it off", async () => {
    // The off benchmark's entry is published (the rescore test, last, takes it off the board).
    expect((await fetch(`${app.url}/submissions/${ids.off}`)).status).toBe(200);
    for (const id of [ids.invalid, 999_999, ids.off]) expect((await download(id)).status, `entry ${id}`).toBe(404);
    expect((await fetch(`${app.url}/api/submissions/x/bundle`)).status).toBe(404);
    const page = await open(`/submissions/${ids.off}#reproducibility`);
    expect(await page.locator('[data-bundle-offer="off"]').textContent()).toContain("does not offer bundles for download");
    expect(await page.locator(`a[href="/api/submissions/${ids.off}/bundle"]`).count()).toBe(0);
  });
});

describe("rescore", () => {
  it("asks for confirmation on /admin as reject and withdraw do, and a post without it changes nothing", async () => {
    const session = await adminSession();
    const posted = await fetch(`${app.url}/admin/actions`, {
      method: "POST",
      body: new URLSearchParams({ submissionId: String(ids.off), action: "rescore" }),
      headers: { origin: app.url, cookie: `agentboard_admin=${session}` },
      redirect: "manual",
    });
    expect(posted.headers.get("location")).toBe(`/admin?confirm=rescore&id=${ids.off}#confirm`);
    expect((await db().select({ state: submissions.state }).from(submissions).where(eq(submissions.id, ids.off)))[0]!.state).toBe("published");

    const page = await open("/admin", { adminSession: session });
    await page.getByRole("link", { name: "Rescore mini-agent", exact: true }).first().click();
    await page.waitForURL(/confirm=rescore/);
    const confirm = page.locator("#confirm");
    expect(await confirm.locator("h2").textContent()).toMatch(/^Rescore .+ \(#\d+\)\?$/);
    expect(await confirm.textContent()).toContain("It leaves the leaderboard now");
    expect(await criticalViolations(page)).toEqual([]);
    await screenshot(page, "entry-checks-rescore-confirm");
    await confirm.getByRole("button", { name: /^Rescore / }).click();
    await page.waitForURL(/done=rescore/);
    expect((await db().select({ state: submissions.state }).from(submissions).where(eq(submissions.id, ids.off)))[0]!.state).toBe("queued");
  });
});

function db() {
  return app.db;
}
