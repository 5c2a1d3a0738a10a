/**
 * "Why did my agent lose points?" in a real browser: a developer opens strong-agent's entry,
 * sees only the items that lost points, reads why each failed on the table, opens the first and
 * walks "next" through every failed item, seeing which call or parameter differed; in light and
 * dark, at 1400 px and 390 px, with axe finding no critical violation.
 */
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { criticalViolations, launchBrowser, openPage, screenshot, startApp, type App, type PageOptions } from "./harness";

let app: App;
let browser: Browser;
let entry: string;

beforeAll(async () => {
  app = await startApp();
  browser = await launchBrowser();
  const board = (await (await fetch(`${app.url}/api/leaderboard`)).json()) as { entries: { id: number; agent: string }[] };
  entry = `/submissions/${board.entries.find((e) => e.agent === "strong-agent")!.id}`;
}, 180_000);
afterAll(async () => {
  await browser?.close();
  await app?.stop();
});

const open = (url: string, opts?: PageOptions) => openPage(browser, app.url + url, opts);

interface TableRow {
  id: string;
  href: string;
  question: string;
  answer: string;
  reason: string;
  outcome: string;
  score: number;
}

/** The item table's rows as a reader sees them, by column header. */
const tableRows = (page: Page): Promise<TableRow[]> =>
  page.$$eval("#items table", ([table]) => {
    const heads = [...table!.querySelectorAll("thead th")].map((th) => th.textContent!.replace(/[↑↓]/g, "").trim());
    const col = (tr: Element, name: string) => tr.children[heads.indexOf(name)]!.textContent!.trim();
    return [...table!.querySelectorAll("tbody tr")].map((tr) => ({
      id: col(tr, "Item"),
      href: tr.querySelector("th a")!.getAttribute("href")!,
      question: col(tr, "Question"),
      answer: col(tr, "Agent's answer"),
      reason: col(tr, "Reason"),
      outcome: col(tr, "Outcome"),
      score: Number(col(tr, "Score")),
    }));
  });

describe("a developer finds why strong-agent lost points", () => {
  it("sees only the items that lost points, each with its question, answer and reason", async () => {
    const page = await open(entry);
    expect(await page.title()).toBe("strong-agent · Agentboard demo · Agentboard");
    await expect(page.getByRole("heading", { name: "Items that lost points" }).isVisible()).resolves.toBe(true);
    const total = Number(/(\d+) lost-points items/.exec((await page.textContent("#items"))!)![1]);
    expect(total).toBeGreaterThan(5);
    expect(total).toBeLessThan(300);
    const rows = await tableRows(page);
    expect(rows).toHaveLength(Math.min(50, total));
    for (const r of rows) {
      expect(r.score, r.id).toBeLessThan(1);
      expect(r.reason, r.id).not.toBe("");
      expect(r.reason, r.id).not.toBe("—");
      expect(r.outcome, r.id).not.toMatch(/^✓|Passed/);
      // Full ids, never cut to 8 characters.
      expect(r.id, r.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    }
    // Scored failures show the question and the agent's answer.
    const scored = rows.filter((r) => /^✗ Lost at /.test(r.outcome));
    expect(scored.length).toBeGreaterThan(0);
    for (const r of scored) expect(r.question, r.id).not.toBe("—");
    // Agent errors are called agent errors, and count 0.
    expect(rows.some((r) => r.outcome.includes("Agent error · counts 0")) || rows.every((r) => !/agent error/i.test(r.reason))).toBe(true);
    expect(await page.locator("#capabilities").textContent()).not.toMatch(/judge errors?/);
    expect(await criticalViolations(page)).toEqual([]);
    await screenshot(page, "drill-entry");

    // All items, sorted by score, best first: the passed ones are back. A page holds at most 100
    // rows: an old `size=300` link is redirected to `size=100`.
    const all = await open(`${entry}?lost=0&sort=score&dir=desc&size=300`);
    expect(new URL(all.url()).searchParams.get("size")).toBe("100");
    const allRows = await tableRows(all);
    expect(allRows).toHaveLength(100);
    expect(allRows[0]!.score).toBe(1);
    expect(allRows.map((r) => r.score)).toEqual([...allRows.map((r) => r.score)].sort((a, b) => b - a));
    // Worst first, the items that lost points lead the list.
    const worst = await tableRows(await open(`${entry}?lost=0&sort=score&dir=asc&size=100`));
    expect(worst.filter((r) => r.score < 1)).toHaveLength(Math.min(total, 100));
  });

  it("opens the first failed item and follows next through every one, seeing which call or parameter differed", async () => {
    const page = await open(entry);
    const total = Number(/(\d+) lost-points items/.exec((await page.textContent("#items"))!)![1]);
    const first = (await tableRows(page))[0]!;
    await page.locator("#items table tbody tr th a").first().click();
    await page.waitForURL(/\/items\//);
    await page.waitForFunction((id) => document.title.startsWith(id), first.id);
    expect(await page.title()).toBe(`${first.id} · strong-agent · Agentboard demo · Agentboard`);
    let seen = 0;
    let differences = 0;
    for (;;) {
      seen++;
      const nav = (await page.getByRole("navigation", { name: "Items in this list" }).textContent())!;
      expect(nav).toContain(`${seen} of ${total} lost-points items`);
      const main = (await page.textContent("main"))!;
      expect(main).toMatch(/Outcome(✗|◐) (Lost at|Partial|Missing|Agent error|Replay error|Judge error)/);
      expect(main).not.toMatch(/Outcome✓/);
      expect(main).toMatch(/Why: \S/);
      if (await page.locator("#trajectory").count()) {
        const t = (await page.textContent("#trajectory"))!;
        if (/parameter \S+ differed|parameter \S+ missing|extra parameter|not expected|expected calls? (was|were) not made/.test(t)) differences++;
        // The expected side is ground truth on this benchmark.
        expect(t).not.toMatch(/Expected:/);
      }
      if (seen === 1 || seen === 2) await screenshot(page, `drill-item-${seen}`);
      if (seen === 1) expect(await criticalViolations(page)).toEqual([]);
      const next = page.getByRole("link", { name: "Next →" });
      if ((await next.count()) === 0) break;
      const before = page.url();
      await Promise.all([page.waitForURL((u) => u.href !== before), next.click()]);
      await page.waitForLoadState("networkidle");
    }
    expect(seen).toBe(total);
    expect(differences).toBeGreaterThan(0);
    // Back to the list keeps the filter.
    await page.getByRole("link", { name: /Back to the items of strong-agent/ }).click();
    await page.waitForURL(/\/submissions\/\d+(\?.*)?#items$/);
    await expect(page.getByRole("heading", { name: "Items that lost points" }).isVisible()).resolves.toBe(true);
  }, 240_000);

  it("reads well in dark mode and on a phone, with id, outcome and score visible without scrolling sideways", async () => {
    for (const dark of [false, true]) {
      const phone = await open(entry, { width: 390, dark });
      expect(await phone.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
      const card = phone.getByRole("list", { name: "Items" }).getByRole("listitem").first();
      await expect(card.isVisible()).resolves.toBe(true);
      const text = (await card.textContent())!;
      expect(text).toMatch(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/);
      expect(text).toMatch(/Lost at|Partial|counts 0/);
      expect(text).toMatch(/Score\s*0/);
      for (const box of [await card.boundingBox(), await card.locator("a").first().boundingBox()]) expect(box!.x + box!.width).toBeLessThanOrEqual(390);
      expect(await criticalViolations(phone)).toEqual([]);
      await screenshot(phone, `drill-entry-phone${dark ? "-dark" : ""}`);

      await card.locator("a").first().click();
      await phone.waitForURL(/\/items\//);
      await phone.waitForLoadState("networkidle");
      expect(await phone.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
      expect(await criticalViolations(phone)).toEqual([]);
      await screenshot(phone, `drill-item-phone${dark ? "-dark" : ""}`);
      await phone.context().close();

      const desk = await open(entry, { dark });
      expect(await criticalViolations(desk)).toEqual([]);
      if (dark) await screenshot(desk, "drill-entry-dark");
      await desk.locator("#items table tbody tr th a").first().click();
      await desk.waitForURL(/\/items\//);
      await desk.waitForLoadState("networkidle");
      expect(await criticalViolations(desk)).toEqual([]);
      if (dark) await screenshot(desk, "drill-item-dark");
      await desk.context().close();
    }
  }, 180_000);

  it("answers 404 for an unknown entry or item", async () => {
    expect((await fetch(`${app.url}/submissions/999999`)).status).toBe(404);
    expect((await fetch(`${app.url}${entry}/items/api_chaining/no-such-item`)).status).toBe(404);
  });
});
