/**
 * The board's stories in chromium on both demos: a phone reader sees every entry's rank, agent
 * and overall; the cost chart shows the demo entries and their Pareto front; the charts follow
 * the search; a hidden column leaves the CSV; two picked rows open the comparison; titles and
 * 404s; axe in light and dark at desktop and phone widths.
 */
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { artifacts, criticalViolations, launchBrowser, openPage, screenshot, startApp, type App, type PageOptions } from "./harness";

let app: App;
let browser: Browser;
beforeAll(async () => {
  app = await startApp();
  browser = await launchBrowser();
}, 180_000);
afterAll(async () => {
  await browser?.close();
  await app?.stop();
});

const PHONE = { width: 390 };
const DESKTOP = { width: 1400 };
const DEMO_AGENTS = ["oracle", "strong-agent", "policy-breaker", "steady-agent", "partial-entry", "weak-agent", "fabricator"];

const open = (url: string, opts?: PageOptions) => openPage(browser, app.url + url, opts);

/** The board table's rows: agent, and the boxes of its rank, agent and overall cells (by the header's position of "Overall"). */
const boardCells = (page: Page) =>
  page.$$eval("table", (tables) => {
    const board = tables.find((t) => t.querySelector("caption")?.textContent?.includes("Leaderboard entries"))!;
    const headers = [...board.querySelectorAll("thead th")].map((th) => th.textContent?.trim() ?? "");
    const overallAt = headers.findIndex((h) => h.startsWith("Overall"));
    const box = (el: Element) => {
      const r = el.getBoundingClientRect();
      return { left: r.left, right: r.right, text: (el.textContent ?? "").trim() };
    };
    return [...board.querySelectorAll("tbody tr")].map((tr) => {
      const cells = [...tr.children];
      return { rank: box(cells[0]!), agent: box(cells[1]!), overall: box(cells[overallAt]!) };
    });
  });

/** The rows of a chart's visually hidden data table, by the chart's title. */
const chartTable = (page: Page, title: RegExp) =>
  page.$$eval(
    "figure",
    (figures, source) => {
      const re = new RegExp(source);
      const fig = figures.find((f) => re.test(f.querySelector("h2")?.textContent ?? ""));
      if (!fig) return null;
      return {
        title: fig.querySelector("h2")!.textContent!,
        caption: fig.querySelector("figcaption p")?.textContent ?? "",
        empty: fig.querySelector("[data-chart-empty]")?.textContent ?? null,
        rows: [...fig.querySelectorAll("table tbody tr")].map((tr) => [...tr.children].map((c) => c.textContent ?? "")),
      };
    },
    title.source,
  );

const ids = async (benchmark = "") =>
  new Map(((await (await fetch(`${app.url}/api/leaderboard${benchmark}`)).json()) as { entries: { id: number; agent: string }[] }).entries.map((e) => [e.agent, e.id]));

describe("integrity flags", () => {
  it("badge the fabricator (and no other demo entry), say why on its page, and hide with a filter", async () => {
    const page = await open("/", DESKTOP);
    const flagged = page.locator("tbody tr", { has: page.locator('[data-badge="flagged"]') });
    expect(await flagged.count()).toBe(1);
    expect(await flagged.textContent()).toMatch(/fabricator.*⚑ flagged: unsupported answers/s);
    await page.getByLabel("Hide flagged").check();
    await page.waitForFunction(() => new URLSearchParams(location.search).get("flagged") === "0");
    const left = (await boardCells(page)).map((r) => r.agent.text);
    expect(left).toHaveLength(DEMO_AGENTS.length - 1);
    expect(left.some((a) => a.includes("fabricator"))).toBe(false);

    for (const dark of [false, true]) {
      const entry = await open(`/submissions/${(await ids()).get("fabricator")}#integrity`, { ...DESKTOP, dark });
      const section = entry.locator("#integrity");
      expect(await section.locator("[data-flag=unsupported_answers]").count()).toBe(4);
      expect(await section.textContent()).toContain("API chaining: 100% of scored items (75 of 75) have a correct answer that the replayed tool calls do not support, above the benchmark's threshold of 50%.");
      expect(await section.getByRole("table").locator("tbody tr").first().textContent()).toMatch(/API chaining\s*75 of 75\s*100%\s*⚑ above threshold/);
      expect(await criticalViolations(entry)).toEqual([]);
      await section.screenshot({ path: `${artifacts}/integrity-fabricator${dark ? "-dark" : ""}.png` });
      await entry.context().close();
    }
  });
});

describe("a phone reader (390 px)", () => {
  for (const dark of [false, true]) {
    it(`sees every entry's rank, agent and overall without scrolling sideways (${dark ? "dark" : "light"})`, async () => {
      for (const board of ["/", "/?benchmark=demo-nvidia"]) {
        const page = await open(board, { ...PHONE, dark });
        expect(await page.evaluate(() => document.documentElement.classList.contains("dark"))).toBe(dark);
        const rows = await boardCells(page);
        expect(rows.length).toBeGreaterThanOrEqual(4);
        for (const r of rows) {
          for (const cell of [r.rank, r.agent, r.overall]) {
            expect(cell.left, `${r.agent.text}: ${cell.text}`).toBeGreaterThanOrEqual(0);
            expect(cell.right, `${r.agent.text}: ${cell.text}`).toBeLessThanOrEqual(PHONE.width);
          }
          expect(r.rank.text).toMatch(/^=?\d+/);
          expect(r.overall.text).toMatch(/^\d+\.\d/);
        }
        if (board === "/") expect(rows.map((r) => r.agent.text)).toEqual(DEMO_AGENTS);
        // The rest of the table scrolls sideways under the sticky three.
        const scroll = await page.$eval("table", (t) => ({ scrollable: t.parentElement!.scrollWidth > t.parentElement!.clientWidth, overall: getComputedStyle(t.querySelectorAll("tbody tr")[0]!.children[2]!).position }));
        expect(scroll).toEqual({ scrollable: true, overall: "sticky" });
        await screenshot(page, `board-phone${board === "/" ? "" : "-nvidia"}${dark ? "-dark" : ""}`);
      }
    });
  }
});

describe("the cost chart", () => {
  it("plots the demo entries against what they cost, with the Pareto front listed", async () => {
    const page = await open("/", DESKTOP);
    const chart = (await chartTable(page, /^Overall score against cost$/))!;
    expect(chart.empty).toBeNull();
    expect(chart.rows.map((r) => r[0]).sort()).toEqual([...DEMO_AGENTS].sort());
    for (const r of chart.rows) expect(r[1]).toMatch(/^\$\d/);
    const front = chart.rows.filter((r) => r[3] === "yes").map((r) => r[0]);
    // Cheapest first: the weak agent's cheap model, the strong agent, the oracle's frontier model.
    expect(front).toEqual(["weak-agent", "strong-agent", "oracle"]);
    expect(chart.rows.find((r) => r[0] === "partial-entry")![3]).toBe("no (partial entry)");
    // The drawing itself (loaded after the page): one symbol per entry.
    const symbols = () => page.$$eval("figure", (figs) => figs.find((f) => f.querySelector("h2")?.textContent?.includes("against cost"))!.querySelectorAll(".recharts-scatter-symbol").length);
    await page.waitForFunction(() => document.querySelectorAll("figure .recharts-scatter-symbol").length > 0);
    expect(await symbols()).toBe(DEMO_AGENTS.length);
  });

  it("switches to latency, with the choice in the URL", async () => {
    const page = await open("/", DESKTOP);
    await page.getByRole("radio", { name: "Median latency" }).check();
    await page.waitForFunction(() => new URLSearchParams(location.search).get("vs") === "latency");
    const chart = (await chartTable(page, /^Overall score against latency$/))!;
    expect(chart.rows).toHaveLength(DEMO_AGENTS.length);
    for (const r of chart.rows) expect(r[1]).toMatch(/^\d+(\.\d+)?\u00a0s$/);
    await page.reload({ waitUntil: "networkidle" });
    expect(await chartTable(page, /^Overall score against latency$/)).not.toBeNull();
  });

  it("uses the metadata's usage on the VSS-style demo", async () => {
    const page = await open("/?benchmark=demo-nvidia", DESKTOP);
    const chart = (await chartTable(page, /^Overall score against cost$/))!;
    expect(chart.rows.map((r) => [r[0], r[1]]).sort()).toEqual([
      ["caption-only", "$5.11"],
      ["qa-only", "$0.19"],
      ["reference-agent", "$3.62"],
      ["vss-baseline", "$0.84"],
    ]);
    expect(chart.rows.filter((r) => r[3] === "yes").map((r) => r[0])).toEqual(["vss-baseline", "reference-agent"]);
  });
});

describe("the charts", () => {
  it("follow the board's search, and say so when too little data is left to draw", async () => {
    const page = await open("/", DESKTOP);
    expect((await chartTable(page, /^Capabilities of the top/))!.title).toBe("Capabilities of the top 5");
    // Every demo entry is scored within a minute: no line over time to draw.
    expect((await chartTable(page, /^Best overall score over time$/))!.empty).toMatch(/^Too little data to draw a line over time/);
    // "-agent" is in three agents' names (the maintainer, "Agentboard demo", has no hyphen before it).
    await page.getByLabel("Search agent, model or maintainer").fill("-agent");
    await page.waitForFunction(() => new URLSearchParams(location.search).get("q") === "-agent");
    const bars = (await chartTable(page, /^Capabilities of the top/))!;
    expect(bars.title).toBe("Capabilities of the top 3");
    expect(bars.caption).toContain("of the 3 entries matching the board's filters");
    expect(bars.rows[0]!.length).toBe(4);
    const cost = (await chartTable(page, /^Overall score against cost$/))!;
    expect(cost.rows.map((r) => r[0])).toEqual(["weak-agent", "strong-agent", "steady-agent"]);
    await page.getByLabel("Search agent, model or maintainer").fill("nobody-by-this-name");
    await page.waitForFunction(() => new URLSearchParams(location.search).get("q") === "nobody-by-this-name");
    for (const title of [/^Capabilities of the top/, /^Best overall/, /^Overall score against/]) expect((await chartTable(page, title))!.empty).toBe("No entries match the board's search and filters.");
    await page.getByLabel("Hide partial").check();
    await page.getByLabel("Search agent, model or maintainer").fill("");
    await page.waitForFunction(() => !new URLSearchParams(location.search).has("q"));
    expect((await chartTable(page, /^Overall score against cost$/))!.rows.map((r) => r[0])).not.toContain("partial-entry");
  });
});

describe("exports", () => {
  it("leave a hidden column out of the CSV, with ids, URLs and intervals in it", async () => {
    // Every column shown (the board's default hides the optional ones, Maintainer among them).
    const page = await open("/?hide=", DESKTOP);
    await page.getByText(/^Columns/).click();
    await page.getByRole("checkbox", { name: "Cost", exact: true }).uncheck();
    await page.getByRole("checkbox", { name: "Maintainer" }).uncheck();
    await page.waitForFunction(() => new URLSearchParams(location.search).get("hide") === "cost,maintainer");
    const href = await page.getByRole("link", { name: "CSV" }).getAttribute("href");
    expect(href).toContain("hide=cost,maintainer");
    const csv = await (await fetch(app.url + href!)).text();
    const [header, first] = csv.split("\r\n").map((l) => l.split(","));
    expect(header).not.toContain("cost_usd");
    expect(header).not.toContain("maintainer");
    expect(header!.slice(0, 7)).toEqual(["rank", "id", "agent", "url", "overall", "overall_ci_low", "overall_ci_high"]);
    for (const f of ["total_tokens", "latency_median_s", "latency_p95_s", "multiturn_ci_low", "multiturn_ci_high"]) expect(header).toContain(f);
    const oracle = (await ids()).get("oracle")!;
    expect(first!.slice(0, 4)).toEqual(["1", String(oracle), "oracle", `/submissions/${oracle}`]);
    // JSON has the same fields.
    const json = (await (await fetch(app.url + href!.replace("format=csv", "format=json"))).json()) as { fields: string[]; entries: Record<string, unknown>[] };
    expect(json.fields).toEqual(header);
    expect(Object.keys(json.entries[0]!)).toEqual(header);
  });
});

describe("picking rows to compare", () => {
  it("opens /compare with the two picked entries, and allows at most four", async () => {
    const page = await open("/", DESKTOP);
    const button = page.getByRole("button", { name: "Compare selected (0)" });
    expect(await button.isDisabled()).toBe(true);
    await page.getByRole("checkbox", { name: "Compare strong-agent" }).check();
    expect(await page.getByRole("button", { name: "Compare selected (1)" }).isDisabled()).toBe(true);
    await page.getByRole("checkbox", { name: "Compare weak-agent" }).check();
    const link = page.getByRole("link", { name: "Compare selected (2)" });
    const byAgent = await ids();
    expect(await link.getAttribute("href")).toBe(`/compare?ids=${byAgent.get("strong-agent")},${byAgent.get("weak-agent")}`);
    await page.getByRole("checkbox", { name: "Compare oracle" }).check();
    await page.getByRole("checkbox", { name: "Compare fabricator" }).check();
    expect(await page.getByRole("checkbox", { name: "Compare policy-breaker" }).isDisabled()).toBe(true);
    await page.getByRole("checkbox", { name: "Compare oracle" }).uncheck();
    await page.getByRole("checkbox", { name: "Compare fabricator" }).uncheck();
    await link.click();
    await page.waitForURL(/\/compare\?ids=/);
    expect(new URL(page.url()).search).toBe(`?ids=${byAgent.get("strong-agent")},${byAgent.get("weak-agent")}`);
    // The comparison of the two picked rows lists the items that flipped between them, each opening both item pages.
    await page.waitForSelector("#flips tbody tr[data-flip]");
    const flipped = page.locator("#flips tbody tr[data-flip]");
    expect(await flipped.count()).toBeGreaterThan(10);
    const first = flipped.first();
    const uuid = (await first.getAttribute("data-flip"))!;
    const hrefs = await first.locator("a").evaluateAll((as) => as.map((a) => a.getAttribute("href")));
    for (const id of [byAgent.get("strong-agent"), byAgent.get("weak-agent")]) expect(hrefs.some((h) => h?.startsWith(`/submissions/${id}/items/`) && h.endsWith(`/${encodeURIComponent(uuid)}`))).toBe(true);
  });
});

describe("page title, intervals and 404s", () => {
  it("names the benchmark in the title and shows asymmetric intervals as [low, high]", async () => {
    const page = await open("/", DESKTOP);
    expect(await page.title()).toMatch(/^Agentboard demo v1\.0 · leaderboard/);
    const overall = (await boardCells(page)).map((r) => r.overall.text);
    for (const t of overall) expect(t).toMatch(/^\d+\.\d(±\d+\.\d|\[\d+\.\d, \d+\.\d\])/);
    expect(overall.some((t) => t.includes("["))).toBe(true);
    const nvidia = await open("/?benchmark=demo-nvidia", DESKTOP);
    expect(await nvidia.title()).toMatch(/^Agentboard VSS-style demo v\S+ · leaderboard/);
  });

  it("answers 404 for an unknown benchmark or version", async () => {
    for (const q of ["?benchmark=nope", "?version=9", "?benchmark=demo-nvidia&version=9"]) {
      const res = await fetch(`${app.url}/${q}`);
      expect(res.status, q).toBe(404);
      expect(await res.text()).toContain("Not found");
    }
    expect((await fetch(`${app.url}/?benchmark=demo-nvidia`)).status).toBe(200);
  });
});

describe("accessibility", () => {
  for (const size of [DESKTOP, PHONE]) {
    for (const dark of [false, true]) {
      it(`has no critical axe violation at ${size.width} px (${dark ? "dark" : "light"})`, async () => {
        const page = await open("/", { ...size, dark });
        await page.getByRole("checkbox", { name: "Compare oracle" }).check();
        expect(await criticalViolations(page)).toEqual([]);
        if (size === DESKTOP) await screenshot(page, `board-desktop${dark ? "-dark" : ""}`);
      });
    }
  }
});
