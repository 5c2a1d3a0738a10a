/**
 * Trials in chromium on the demo (steady-agent: a bundle of 4 trials): the board's Trials column
 * (hideable, 1 for plain entries) and its pass^k view (in the URL, the exports alike, "—" for one
 * trial); the entry page's per-trial scores, spread and pass^4; the item table's trial column and
 * filter, and the item page's trial kept by previous/next. axe in light and dark, desktop and phone.
 */
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { criticalViolations, launchBrowser, openPage, screenshot, startApp, type App, type PageOptions } from "./harness";

let app: App;
let browser: Browser;
let steady: number;
beforeAll(async () => {
  app = await startApp();
  browser = await launchBrowser();
  const board = (await (await fetch(`${app.url}/api/leaderboard`)).json()) as { entries: { id: number; agent: string }[] };
  steady = board.entries.find((e) => e.agent === "steady-agent")!.id;
}, 180_000);
afterAll(async () => {
  await browser?.close();
  await app?.stop();
});

const DESKTOP = { width: 1400 };
const PHONE = { width: 390 };

const open = (url: string, opts?: PageOptions) => openPage(browser, app.url + url, opts);

/** The board's header labels and, per row, the agent and each cell's visible text by header. */
const board = (page: Page) =>
  page.$$eval("table", (tables) => {
    const t = tables.find((x) => x.querySelector("caption")?.textContent?.includes("Leaderboard entries"))!;
    const headers = [...t.querySelectorAll("thead th")].map((th) => th.textContent?.replace(/[▲▼↕]/g, "").trim() ?? "");
    // Visible text only: screen-reader notes are dropped.
    const visible = (el: Element) => {
      const copy = el.cloneNode(true) as Element;
      copy.querySelectorAll(".sr-only").forEach((n) => n.remove());
      return (copy.textContent ?? "").trim();
    };
    const rows = [...t.querySelectorAll("tbody tr")].map((tr) => Object.fromEntries([...tr.children].map((c, i) => [headers[i]!, visible(c)])));
    return { headers, rows };
  });

describe("the board's trials", () => {
  it("shows k in a Trials column: 4 for the steady agent, 1 for plain entries; the column hides", async () => {
    const page = await open("/");
    const { headers, rows } = await board(page);
    expect(headers).toContain("Trials");
    const trials = Object.fromEntries(rows.map((r) => [r.Agent, r.Trials]));
    expect(trials).toEqual({ oracle: "1", "strong-agent": "1", "policy-breaker": "1", "steady-agent": "4", "partial-entry": "1", "weak-agent": "1", fabricator: "1" });
    // In the mean-score view the steady agent's overall is its mean over trials.
    expect(rows.find((r) => r.Agent === "steady-agent")!.Overall).toMatch(/^75\.2/);
    const hidden = await open("/?hide=trials");
    expect((await board(hidden)).headers).not.toContain("Trials");
  });

  it("switches to pass^k with the choice in the URL: pass^4 for the steady agent, — for one trial; sorting and exports follow", async () => {
    const page = await open("/");
    // The switch's radios are drawn as its labels: click the one a reader sees.
    await page.locator("fieldset label", { hasText: "pass^k" }).click();
    await page.waitForFunction(() => new URLSearchParams(location.search).get("metric") === "passk");
    const { headers, rows } = await board(page);
    expect(headers.find((h) => h.startsWith("Overall"))).toBe("Overall pass^k");
    const r = rows.find((x) => x.Agent === "steady-agent")!;
    expect([r["Overall pass^k"], r["API chaining pass^k"], r["Tool selection pass^k"], r["Multi-hop reasoning pass^k"], r["Multi-source + policy pass^k"]]).toEqual(["58.6", "57.3", "66.7", "61.3", "49.1"]);
    for (const other of rows.filter((x) => x.Agent !== "steady-agent")) expect(other["Overall pass^k"], other.Agent).toBe("—");
    // "—" says why to a screen reader.
    expect(await page.locator("tbody tr", { hasText: "oracle" }).locator("td").nth(1).textContent()).toContain("one trial");
    // Sorting the overall puts the one entry with pass^k first; official ranks do not move.
    await page.getByRole("button", { name: /^Overall/ }).click();
    await page.waitForFunction(() => new URLSearchParams(location.search).get("sort") === "overall");
    expect((await board(page)).rows[0]!.Agent).toBe("steady-agent");
    // The downloads are the view: pass^k fields, k.
    const csvHref = await page.getByRole("link", { name: "CSV" }).getAttribute("href");
    expect(csvHref).toContain("metric=passk");
    const csv = await (await fetch(app.url + csvHref!)).text();
    const [header, first] = csv.split("\r\n").map((l) => l.split(","));
    expect(header!.slice(0, 10)).toEqual(["rank", "id", "agent", "url", "overall_pass_k", "api_chaining_pass_k", "tool_selection_pass_k", "multihop_pass_k", "multiturn_pass_k", "trials"]);
    expect(first!.slice(2, 10)).toEqual(["steady-agent", `/submissions/${steady}`, "58.6", "57.33", "66.67", "61.33", "49.07", "4"]);
    // A reload keeps the view.
    await page.reload({ waitUntil: "networkidle" });
    expect(await page.getByRole("radio", { name: "pass^k" }).isChecked()).toBe(true);
    await screenshot(page, "board-passk");
  });

  for (const dark of [false, true]) {
    for (const size of [DESKTOP, PHONE]) {
      it(`has no critical axe violation in the pass^k view and on the trial pages (${dark ? "dark" : "light"}, ${size.width} px)`, async () => {
        for (const url of ["/?metric=passk", `/submissions/${steady}`, `/submissions/${steady}?trial=3&lost=0#items`]) {
          const page = await open(url, { ...size, dark });
          expect(await criticalViolations(page), url).toEqual([]);
        }
      });
    }
  }
});

describe("the entry page of a bundle of trials", () => {
  it("shows each trial's scores, their mean, the spread and pass^4", async () => {
    const page = await open(`/submissions/${steady}`);
    const table = page.getByRole("table", { name: /Each trial's overall and capability scores/ });
    const cells = await table.locator("tbody tr").evaluateAll((trs) => trs.map((tr) => [tr.getAttribute("data-row"), ...[...tr.querySelectorAll("td")].map((td) => td.textContent?.trim())]));
    expect(cells).toEqual([
      ["t1", "75.6", "76.0", "78.7", "77.3", "70.4"],
      ["t2", "75.7", "72.0", "78.7", "80.0", "72.2"],
      ["t3", "76.9", "74.7", "84.0", "74.7", "74.1"],
      ["t4", "72.5", "74.7", "78.7", "74.7", "62.0"],
      ["mean", "75.2", "74.3", "80.0", "76.7", "69.7"],
      ["sd", "1.9", "1.7", "2.7", "2.6", "5.3"],
      ["passk", "58.6", "57.3", "66.7", "61.3", "49.1"],
    ]);
    await expect(page.getByRole("heading", { name: "Trials (4)" }).isVisible()).resolves.toBe(true);
    expect(await page.getByText("each the mean over 4 trials").count()).toBe(1);
    // A plain entry has no trials section.
    const strong = ((await (await fetch(`${app.url}/api/leaderboard`)).json()) as { entries: { id: number; agent: string }[] }).entries.find((e) => e.agent === "strong-agent")!.id;
    const plain = await open(`/submissions/${strong}`);
    expect(await plain.getByRole("heading", { name: /^Trials/ }).count()).toBe(0);
    expect(await plain.getByLabel("Trial").count()).toBe(0);
    await screenshot(page, "entry-trials");
    // The JSON API carries the same figures.
    const api = (await (await fetch(`${app.url}/api/submissions/${steady}`)).json()) as { run: { trials: number; trialStats: { overall: { passK: number; sd: number } } } };
    expect(api.run.trials).toBe(4);
    expect(Math.round(api.run.trialStats.overall.passK * 10) / 10).toBe(58.6);
  });

  it("lists items per trial, filters by trial in the URL, and opens an item in its trial with previous/next kept there", async () => {
    const page = await open(`/submissions/${steady}#items`);
    const rowTrials = () => page.locator('[aria-label="Item table"] tbody tr').evaluateAll((trs) => trs.map((tr) => tr.getAttribute("data-trial")));
    expect(new Set(await rowTrials())).toEqual(new Set(["1", "2", "3", "4"]));
    await page.getByLabel("Trial", { exact: true }).selectOption("2");
    await page.getByRole("button", { name: "Apply" }).click();
    await page.waitForURL(/trial=2/);
    expect(new Set(await rowTrials())).toEqual(new Set(["2"]));
    expect(await page.getByText(/lost-points items of trial 2/).count()).toBeGreaterThan(0);
    const first = page.locator('[aria-label="Item table"] tbody tr th a').first();
    const href = (await first.getAttribute("href"))!;
    expect(href).toContain("trial=2");
    await first.click();
    await page.waitForURL(/\/items\//);
    expect(await page.getByText("2 of 4", { exact: true }).count()).toBe(1);
    const next = page.getByRole("link", { name: "Next →" });
    expect(await next.getAttribute("href")).toContain("trial=2");
    await next.click();
    await page.waitForURL((u) => u.searchParams.get("trial") === "2" && u.pathname !== new URL(app.url + href).pathname);
    expect(await page.getByText(/^2 of \d+ lost-points items of trial 2$/).count()).toBe(1);
    await screenshot(page, "item-trial");
  });
});
