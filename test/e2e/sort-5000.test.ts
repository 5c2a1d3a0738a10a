/** With 5,000 published entries, re-sorting the leaderboard in the browser takes ≤ 100 ms. */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROW_PAGE } from "@/components/leaderboard/leaderboard-table";
import { launchBrowser, screenshot, startApp, type App } from "./harness";
import { seedMany } from "./seed-many";

const N = 5000;
let app: App;
let browser: Browser;
beforeAll(async () => {
  app = await startApp(async (dbFile) => {
    expect(await seedMany(dbFile, mkdtempSync(path.join(tmpdir(), "agentboard-many-")), N)).toBe(N);
  });
  browser = await launchBrowser();
}, 600_000); // scoring 5,000 entries: about two minutes alone (120 s, 2026-11-27), near five on a CI machine busy with other files
afterAll(async () => {
  await browser?.close();
  await app?.stop();
});

describe(`a leaderboard of ${N} entries`, () => {
  it("re-sorts in the browser within 100 ms (performance marks), keeping official ranks", async () => {
    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    // Every column shown (`hide=` empty): Coverage is one of the optional columns the default view hides.
    await page.goto(`${app.url}/?hide=`, { waitUntil: "networkidle", timeout: 60_000 });
    expect(await page.textContent("main")).toContain(`${N} entries`);
    const durations: number[] = [];
    for (const column of [/Tool selection/, /^Agent/, /Overall/, /Coverage/]) {
      await page.getByRole("button", { name: column }).first().click();
      await page.waitForFunction((n) => performance.getEntriesByName("leaderboard-sort").length >= n, durations.length + 1);
      durations.push(await page.evaluate(() => performance.getEntriesByName("leaderboard-sort").at(-1)!.duration));
    }
    // After the last sort the visible rows still carry their official ranks.
    const official = new Map(((await (await fetch(`${app.url}/api/leaderboard`)).json()) as { entries: { agent: string; rank: number }[] }).entries.map((e) => [e.agent, e.rank]));
    const shown = await page.$$eval("table", (tables) => {
      const board = tables.find((t) => t.querySelector("caption")?.textContent?.includes("Leaderboard entries"))!;
      // The rendered entry rows (the "show more" row has no agent link).
      return [...board.querySelectorAll("tbody tr")].filter((tr) => tr.querySelector("th a")).map((tr) => [tr.querySelector("th a")?.textContent?.trim() ?? "", Number(/\d+/.exec(tr.querySelector("td")?.textContent ?? "")?.[0])] as const);
    });
    expect(shown.length).toBe(ROW_PAGE);
    for (const [agent, rank] of shown) expect(rank, agent).toBe(official.get(agent));
    process.stdout.write(`re-sort of ${N} entries: ${durations.map((d) => `${d.toFixed(1)} ms`).join(", ")}\n`);
    // The median of the four sorts: one scheduling pause on a busy CI machine is not the page's cost.
    const median = [...durations].sort((a, b) => a - b).slice(1, 3).reduce((a, b) => a + b, 0) / 2;
    expect(median).toBeLessThanOrEqual(100);
    await screenshot(page, "leaderboard-5000");
  });
});
