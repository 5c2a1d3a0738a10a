/**
 * /compare in a real browser on both demos: picking entries with the page's picker and by URL,
 * the overall row's paired test and the board's ranks agreeing on it, the flipped items and the
 * item pages they link to, the VSS-style demo's entries, phone and desktop widths, light and
 * dark, and axe.
 */
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { criticalViolations, launchBrowser, openPage, screenshot, startApp, type App, type PageOptions } from "./harness";

let app: App;
let browser: Browser;
/** Entry ids by agent name, of both demos. */
const ids: Record<string, number> = {};
/** Official ranks by agent name, of both demos. */
const ranks: Record<string, number> = {};

beforeAll(async () => {
  app = await startApp();
  browser = await launchBrowser();
  for (const q of ["", "?benchmark=demo-nvidia"]) {
    const board = (await (await fetch(`${app.url}/api/leaderboard${q}`)).json()) as { entries: { id: number; agent: string; rank: number }[] };
    for (const e of board.entries) {
      ids[e.agent] = e.id;
      ranks[e.agent] = e.rank;
    }
  }
}, 180_000);
afterAll(async () => {
  await browser?.close();
  await app?.stop();
});

const open = (url: string, opts?: PageOptions) => openPage(browser, app.url + url, opts);

/** Ticks the picker's checkbox of each agent, in this order, and submits. */
async function pick(page: Page, agents: string[]) {
  for (const agent of agents) await page.locator("#choose label", { hasText: new RegExp(`^${agent} #`) }).locator("input[type=checkbox]").check();
  await page.getByRole("button", { name: "Compare", exact: true }).click();
  await page.waitForURL(/\/compare\?ids=\d+,\d+/);
  await page.waitForLoadState("networkidle");
}

/** The desktop table's overall row: each entry's cell text. */
const overallRow = (page: Page) => page.$$eval("#capabilities table tbody tr", (rows) => rows.find((r) => r.querySelector("th")?.textContent === "Overall")?.textContent ?? "");

async function expectNoCriticalViolations(page: Page, what: string) {
  expect(await criticalViolations(page), what).toEqual([]);
}

describe("/compare", () => {
  it("picks strong-agent and weak-agent with its picker, tests the overall, and lists flipped items linking to both item pages", async () => {
    const strong = ids["strong-agent"]!;
    const weak = ids["weak-agent"]!;
    const page = await open("/compare");
    expect(await page.textContent("main")).toContain("Choose entries");
    await pick(page, ["strong-agent", "weak-agent"]);
    expect(new URL(page.url()).search).toBe(`?ids=${strong},${weak}`);
    expect(await page.title()).toBe("strong-agent vs weak-agent · Compare · Agentboard");

    // The overall row carries a paired test like the capability rows: weak-agent minus strong-agent, with its interval.
    const overall = await overallRow(page);
    expect(overall).toMatch(new RegExp(`−\\d+\\.\\d vs #${strong} \\[−\\d+\\.\\d, −\\d+\\.\\d\\] significant`));

    // Flips: counts (not a second test: the paired bootstrap is the one verdict), and a page of items.
    const flips = (await page.textContent("#flips")) ?? "";
    expect(flips).toContain("full marks (score 1)");
    expect(flips).toMatch(/All items\s*\d+\s*\d+\s*\d+\s*\d+\s*[^\d\s]/);
    expect(flips).not.toMatch(/McNemar|significant/);
    const total = Number(/of ([\d,]+) flipped items/.exec(flips)?.[1]?.replace(/,/g, ""));
    expect(total).toBeGreaterThan(50);
    const rows = page.locator("#flips tbody tr[data-flip]");
    expect(await rows.count()).toBe(50);
    await screenshot(page, "compare-pick-1400-light");
    await expectNoCriticalViolations(page, "/compare (picked, light)");

    // Each side links to that entry's own item page for the same item.
    const uuid = (await rows.first().getAttribute("data-flip"))!;
    for (const [id, side] of [
      [weak, "weak"],
      [strong, "strong"],
    ] as const) {
      await rows.first().locator(`a[data-entry="${id}"]`).click();
      await page.waitForURL(new RegExp(`/submissions/${id}/items/[^/]+/${uuid}$`));
      expect(await page.textContent("main"), side).toContain(uuid);
      await page.goBack({ waitUntil: "networkidle" });
    }

    // Only the flips weak-agent passed: every row says so on weak-agent's side, and the filter is in the URL.
    await page.locator("#flip-passed").selectOption(String(weak));
    await page.getByRole("button", { name: "Show", exact: true }).click();
    await page.waitForURL(new RegExp(`passed=${weak}`));
    const weakWins = page.locator("#flips tbody tr[data-flip]");
    const n = await weakWins.count();
    expect(n).toBeGreaterThan(0);
    expect(n).toBeLessThan(total);
    for (let i = 0; i < n; i++) {
      expect(await weakWins.nth(i).locator(`a[data-entry="${weak}"]`).textContent()).toContain("full marks");
      expect(await weakWins.nth(i).locator(`a[data-entry="${strong}"]`).textContent()).toContain("lost points");
    }
    await page.context().close();
  });

  it("takes a direct /compare?ids=a,b URL; on a phone both overall scores are on screen, light and dark", async () => {
    const strong = ids["strong-agent"]!;
    const weak = ids["weak-agent"]!;
    for (const dark of [false, true]) {
      const phone = await open(`/compare?ids=${strong},${weak}`, { width: 390, dark });
      expect(await phone.evaluate(() => document.documentElement.classList.contains("dark"))).toBe(dark);
      expect(await phone.evaluate(() => document.scrollingElement!.scrollWidth)).toBeLessThanOrEqual(390);
      for (const id of [strong, weak]) {
        const card = phone.locator(`[data-row="overall"][data-entry="${id}"]`);
        const box = await card.boundingBox();
        expect(box, `overall of #${id}`).not.toBeNull();
        expect(box!.x).toBeGreaterThanOrEqual(0);
        expect(box!.x + box!.width).toBeLessThanOrEqual(390);
        expect(await card.textContent()).toMatch(/\d+\.\d \[\d+\.\d–\d+\.\d\]/);
      }
      expect(await phone.locator(`[data-row="overall"][data-entry="${weak}"]`).textContent()).toMatch(/significant/);
      await screenshot(phone, `compare-390-${dark ? "dark" : "light"}`);
      await expectNoCriticalViolations(phone, `/compare at 390 px${dark ? " (dark)" : ""}`);
      await phone.context().close();
    }
    const desk = await open(`/compare?ids=${strong},${weak}`, { dark: true });
    expect(await overallRow(desk)).toMatch(/significant/);
    await screenshot(desk, "compare-1400-dark");
    await expectNoCriticalViolations(desk, "/compare at 1400 px (dark)");
    await desk.context().close();
  });

  it("gives the board's answer: strong-agent is significantly better than policy-breaker, so the board ranks it above, not tied", async () => {
    const strong = ids["strong-agent"]!;
    const breaker = ids["policy-breaker"]!;
    // Their own intervals overlap (what made the board tie them before): only the paired test separates them.
    expect(ranks["strong-agent"]).toBeLessThan(ranks["policy-breaker"]!);
    const page = await open(`/compare?ids=${strong},${breaker}`);
    expect(await overallRow(page)).toMatch(new RegExp(`−\\d+\\.\\d vs #${strong} \\[−\\d+\\.\\d, −\\d+\\.\\d\\] significant`));
    // Each figure says what it measures, and that the board ranks by the same test.
    const main = (await page.textContent("main")) ?? "";
    expect(main).toContain("the board ranks entries by this same overall test");
    expect(main).toContain("never share a rank");
    await page.context().close();
    // The board's rank column and legend say the same.
    const board = await open("/");
    const legend = (await board.textContent("main")) ?? "";
    expect(legend).toContain("paired test on the same items");
    // The rank cells as shown ("=3" for a shared rank), by agent.
    const shown = new Map(
      await board.$$eval("table", (tables) => {
        const t = tables.find((x) => x.querySelector("caption")?.textContent?.includes("Leaderboard entries"));
        return [...(t?.querySelectorAll("tbody tr") ?? [])].map((tr) => [tr.querySelector("th a")?.textContent?.trim() ?? "", /=?\d+/.exec(tr.querySelector("td")?.textContent ?? "")?.[0] ?? ""] as const);
      }),
    );
    expect(shown.get("strong-agent")).toBe(String(ranks["strong-agent"]));
    expect(shown.get("policy-breaker")).toMatch(new RegExp(`^=?${ranks["policy-breaker"]}$`));
    await board.context().close();
  });

  it("compares two entries of the VSS-style demo (demo-nvidia), picked on its own benchmark", async () => {
    const reference = ids["reference-agent"]!;
    const baseline = ids["vss-baseline"]!;
    const page = await open("/compare");
    await page.getByRole("link", { name: /VSS/ }).click();
    await page.waitForURL(/benchmark=demo-nvidia/);
    await pick(page, ["reference-agent", "vss-baseline"]);
    expect(new URL(page.url()).searchParams.get("ids")).toBe(`${reference},${baseline}`);
    expect(await page.title()).toBe("reference-agent vs vss-baseline · Compare · Agentboard");
    const main = (await page.textContent("main")) ?? "";
    expect(main).toMatch(/Agentboard VSS/);
    expect(await overallRow(page)).toMatch(new RegExp(`vs #${reference} \\[.+\\] (not )?significant`));
    // reference-agent has full marks on trajectory items where vss-baseline has fractional scores only.
    const rows = page.locator("#flips tbody tr[data-flip]");
    expect(await rows.count()).toBeGreaterThan(0);
    expect(await rows.first().locator(`a[data-entry="${reference}"]`).textContent()).toContain("full marks");
    await screenshot(page, "compare-nvidia-1400-light");
    await expectNoCriticalViolations(page, "/compare demo-nvidia");
    await page.context().close();

    const phone = await open(`/compare?ids=${reference},${baseline}`, { width: 390, dark: true });
    expect(await phone.evaluate(() => document.scrollingElement!.scrollWidth)).toBeLessThanOrEqual(390);
    for (const id of [reference, baseline]) {
      const box = await phone.locator(`[data-row="overall"][data-entry="${id}"]`).boundingBox();
      expect(box!.x + box!.width).toBeLessThanOrEqual(390);
    }
    await screenshot(phone, "compare-nvidia-390-dark");
    await phone.context().close();
  });

  it("refuses entries of different benchmarks with a message naming them", async () => {
    const page = await open(`/compare?ids=${ids["strong-agent"]},${ids["reference-agent"]}`);
    const alert = (await page.locator("main [role=alert]").textContent()) ?? "";
    expect(alert).toContain("can't be compared");
    expect(alert).toMatch(new RegExp(`#${ids["strong-agent"]} is on .+ v[\\d.]+, #${ids["reference-agent"]} is on .+ v[\\d.]+`));
    await page.context().close();
  });
});
