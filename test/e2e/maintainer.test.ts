/**
 * The maintainer's story in a real browser (Debian chromium) against the production build: sign
 * in, reject an entry through its confirmation (cancel first, which changes nothing), withdraw a
 * published entry (it leaves the board), restore it (it comes back with its rank), and read both
 * on the public changelog, filtered by entry. Then the queue with positions and /submit's link to
 * the issue form; every page light and dark, at 1400 and 390 px, through axe.
 */
import { cpSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { submissions } from "@/db/schema";
import { registerBenchmark } from "@/lib/submissions/benchmarks";
import { ingestBundle } from "@/lib/submissions/ingest";
import { runWorker } from "@/lib/submissions/worker";
import { DEMO_DIR } from "@/scripts/demo/build-demo";
import { ENGINES } from "../helpers/engines";
import { criticalViolations, launchBrowser, loadDemos, openPage, screenshot, startApp, seedDatabase, type App, type PageOptions } from "./harness";

const ADMIN = "maintainer-token-for-the-story";
const REPOSITORY = "bench-org/bench";
const CANDIDATE = "candidate-agent";
const WAITING = ["waiting-agent-one", "waiting-agent-two"];
const bundles = mkdtempSync(path.join(tmpdir(), "agentboard-maintainer-"));

/** The weak agent's demo bundle under another name (a new bundle, so a new submission). */
function renamed(agent: string): string {
  const dir = path.join(bundles, agent);
  cpSync(path.join(DEMO_DIR, "submissions/weak-agent"), dir, { recursive: true });
  writeFileSync(path.join(dir, "metadata.json"), JSON.stringify({ agent_name: agent, models: ["m"], maintainer: "lab" }));
  return dir;
}

/** Both demos published, one more entry scored and awaiting approval, two waiting for the worker. */
async function seed(dbFile: string) {
  await seedDatabase(dbFile, async (db, deps) => {
    await loadDemos(db, deps);
    const { versionId } = await registerBenchmark(db, DEMO_DIR, { isDefault: true, now: new Date() });
    const ingest = (agent: string) => ingestBundle(db, { versionId, bundlePath: renamed(agent), source: "local", sourceRef: agent, actor: "e2e" }, () => new Date());
    await ingest(CANDIDATE);
    await runWorker(db, deps, { untilIdle: true });
    for (const agent of WAITING) await ingest(agent);
  });
}

afterAll(() => rmSync(bundles, { recursive: true, force: true }));

describe.each(ENGINES)("the maintainer on %s", (engine) => {
  let app: App;
  let browser: Browser;
  beforeAll(async () => {
    app = await startApp(seed, { AGENTBOARD_ADMIN_TOKEN: ADMIN, GITHUB_REPOSITORY: REPOSITORY }, engine);
    browser = await launchBrowser();
  }, 240_000);
  afterAll(async () => {
    await browser?.close();
    await app?.stop();
  });

  const open = (url: string, opts?: PageOptions) => openPage(browser, app.url + url, opts);

  /** Values of the database the server runs on. */
  const stateOf = async (id: number) => (await app.db.select({ state: submissions.state }).from(submissions).where(eq(submissions.id, id)))[0]!.state;
  const idOf = async (agent: string) => (await app.db.select({ id: submissions.id }).from(submissions).where(eq(submissions.agentName, agent)))[0]!.id;

  const board = async () => (await (await fetch(`${app.url}/api/leaderboard`)).json()) as { entries: { id: number; agent: string; rank: number }[] };

  /** A maintainer session cookie's value, signed in over HTTP. */
  async function signIn(): Promise<string> {
    const res = await fetch(`${app.url}/admin/login`, { method: "POST", body: new URLSearchParams({ token: ADMIN }), headers: { origin: app.url }, redirect: "manual" });
    const value = /^agentboard_admin=([^;]+)/.exec(res.headers.get("set-cookie") ?? "")?.[1];
    expect(value).toBeTruthy();
    return value!;
  }

  describe("a maintainer", () => {
    it("rejects with confirmation, withdraws and restores, and the changelog tells readers", async () => {
      const candidate = await idOf(CANDIDATE);
      const strong = await idOf("strong-agent");
      const rankBefore = (await board()).entries.find((e) => e.id === strong)!.rank;

      const page = await open("/admin");
      await page.getByLabel("Maintainer token").fill(ADMIN);
      await page.getByRole("button", { name: "Sign in" }).click();
      // The candidate is weak-agent's outputs renamed: flagged as its duplicate, so approving it asks first.
      await page.getByRole("link", { name: `Approve ${CANDIDATE}` }).waitFor();
      expect(await page.getByTestId(`flags-${candidate}`).textContent()).toBe(
        `⚑ duplicate 100% of this entry's answered items (259 of 259) carry the same answers and tool calls as entry #${await idOf("weak-agent")} (weak-agent), submitted before it.`,
      );
      // The benchmark is a column of the list.
      expect(await page.getByTestId(`review-${candidate}`).textContent()).toContain("Agentboard demo v1.0");

      // Reject asks first: the confirmation names the entry, its state and what follows. Cancel changes nothing.
      await page.getByRole("link", { name: `Reject ${CANDIDATE}` }).click();
      await page.waitForURL(/confirm=reject/);
      const confirm = page.locator("#confirm");
      await expect(confirm.getByRole("heading", { name: `Reject ${CANDIDATE} (#${candidate})?` }).isVisible()).resolves.toBe(true);
      expect(await confirm.textContent()).toMatch(/scored.*The reason is public/s);
      expect(await criticalViolations(page)).toEqual([]);
      await screenshot(page, "maintainer-confirm-reject");
      await confirm.getByRole("link", { name: "Cancel" }).click();
      await page.waitForURL((u) => !u.search.includes("confirm"));
      expect(await stateOf(candidate)).toBe("scored");

      await page.getByRole("link", { name: `Reject ${CANDIDATE}` }).click();
      await page.getByLabel("Reason (required, public)").fill("The outputs quote the ground truth.");
      await page.getByRole("button", { name: `Reject ${CANDIDATE}` }).click();
      await page.waitForURL(/done=reject/);
      expect(await stateOf(candidate)).toBe("rejected");

      // Withdraw a published entry, with confirmation: it leaves the board.
      await page.getByRole("link", { name: "Withdraw strong-agent" }).click();
      await page.waitForURL(/confirm=withdraw/);
      expect(await page.locator("#confirm").textContent()).toContain("Withdrawn entries leave the board at once.");
      expect(await page.locator("#confirm").textContent()).toMatch(/You can restore it/);
      await page.getByLabel("Reason (optional, public)").fill("A harness bug is under review.");
      await page.getByRole("button", { name: "Withdraw strong-agent" }).click();
      await page.waitForURL(/done=withdraw/);
      expect(await stateOf(strong)).toBe("withdrawn");
      const home = await open("/");
      expect(await home.getByRole("link", { name: "strong-agent", exact: true }).count()).toBe(0);
      expect((await board()).entries.some((e) => e.id === strong)).toBe(false);

      // Withdrawn entries are listed (a filter away) with where they were; Restore puts it back with its rank.
      await page.goto(`${app.url}/admin?state=withdrawn`, { waitUntil: "networkidle" });
      expect(await page.getByTestId(`review-${strong}`).textContent()).toMatch(/withdrawn\s*from published/);
      await screenshot(page, "maintainer-withdrawn");
      await page.getByRole("button", { name: "Restore strong-agent" }).click();
      await page.waitForURL(/done=restore/);
      expect(await stateOf(strong)).toBe("published");
      await home.reload({ waitUntil: "networkidle" });
      expect(await home.getByRole("link", { name: "strong-agent", exact: true }).count()).toBeGreaterThan(0);
      expect((await board()).entries.find((e) => e.id === strong)!.rank).toBe(rankBefore);

      // The public changelog: the withdrawal with its reason, the restore, the rejection; one entry's alone.
      const log = await open("/changelog");
      const events = log.getByRole("list", { name: "Changes, newest first" }).getByRole("listitem");
      const texts = await events.allTextContents();
      expect(texts[0]).toMatch(/Restored\s*strong-agent.*Back on the board with overall \d+\.\d/s);
      expect(texts[1]).toMatch(/Withdrawn\s*strong-agent.*Removed from the board\..*Reason: A harness bug is under review\./s);
      expect(texts[2]).toMatch(new RegExp(`Rejected\\s*${CANDIDATE}.*Reason: The outputs quote the ground truth\\.`, "s"));
      expect(texts.join("\n")).not.toMatch(/run:completed|validating|scoring/);
      // The rejected entry is named, not linked; the restored one links to its page.
      expect(await log.getByRole("link", { name: CANDIDATE, exact: true }).count()).toBe(0);
      await log.getByRole("link", { name: `Changes of strong-agent (#${strong}) only` }).first().click();
      await log.waitForURL(new RegExp(`/changelog\\?entry=${strong}$`));
      await log.getByRole("heading", { name: `Changelog of strong-agent (#${strong})` }).waitFor();
      const only = await log.getByRole("list", { name: "Changes, newest first" }).getByRole("listitem").allTextContents();
      expect(only.map((t) => /^[^A-Z]*(Restored|Withdrawn|Published)/.exec(t.replace(/^\d{4}-\d\d-\d\d \d\d:\d\d UTC/, ""))?.[1])).toEqual(["Restored", "Withdrawn", "Published"]);
      expect(only.every((t) => t.includes("strong-agent"))).toBe(true);
      await screenshot(log, "maintainer-changelog-entry");
    }, 120_000);
  });

  describe("the queue", () => {
    it("lists what is waiting in the worker's order, with positions, and the finished ones behind a filter", async () => {
      const page = await open("/queue");
      const waiting = page.getByRole("list", { name: /Waiting and running/ }).getByRole("listitem");
      expect(await waiting.count()).toBe(2);
      expect(await waiting.nth(0).textContent()).toMatch(new RegExp(`Position 1\\s*${WAITING[0]}`));
      expect(await waiting.nth(1).textContent()).toMatch(new RegExp(`Position 2\\s*${WAITING[1]}`));
      // Not published, so not linked for the public.
      expect(await page.getByRole("link", { name: WAITING[0] }).count()).toBe(0);
      await page.getByRole("link", { name: /^rejected/ }).click();
      await page.waitForURL(/state=rejected/);
      expect(await page.locator("#finished tbody tr").count()).toBe(1);
      expect(await page.locator("#finished tbody").textContent()).toContain(CANDIDATE);
    });
  });

  describe("/submit", () => {
    it("links to the repository's issue form, prefilled from the fields given", async () => {
      const page = await open("/submit");
      const link = page.getByRole("link", { name: `Open a submission issue on ${REPOSITORY}` });
      expect(await link.getAttribute("href")).toBe(`https://github.com/${REPOSITORY}/issues/new?template=leaderboard_submission.yml&title=%5BSubmission%5D%3A+&labels=leaderboard-submission`);
      await page.getByText("Fill in some of the form here first").click();
      await page.getByLabel("Agent name").fill("my <agent>");
      await page.getByLabel("ZIP link").fill("https://example.org/out.zip");
      await page.getByRole("button", { name: "Put these in the link" }).click();
      await page.waitForURL(/agent_name=/);
      const url = new URL((await page.getByRole("link", { name: `Open a submission issue on ${REPOSITORY}` }).getAttribute("href"))!);
      expect(url.origin + url.pathname).toBe(`https://github.com/${REPOSITORY}/issues/new`);
      expect(Object.fromEntries(url.searchParams)).toMatchObject({ template: "leaderboard_submission.yml", title: "[Submission]: my <agent>", agent_name: "my <agent>", zip_url: "https://example.org/out.zip" });
    });
  });

  describe("every page of this story", () => {
    it("has no critical accessibility violation, light and dark, at 1400 and 390 px, with its key columns in view on a phone", async () => {
      const strong = await idOf("strong-agent");
      const pages = [
        { url: "/admin", name: "admin", admin: true, key: "strong-agent" },
        { url: `/admin?confirm=withdraw&id=${strong}`, name: "admin-confirm", admin: true, key: "Withdraw strong-agent" },
        { url: "/changelog", name: "changelog", admin: false, key: "strong-agent" },
        { url: "/queue", name: "queue", admin: false, key: WAITING[0]! },
        { url: "/submit", name: "submit", admin: false, key: `Open a submission issue on ${REPOSITORY}` },
      ];
      const session = await signIn();
      // Widths and themes do not depend on the engine: on Postgres each page is checked once.
      const variants = engine === "sqlite" ? { widths: [1400, 390], themes: [false, true] } : { widths: [1400], themes: [false] };
      for (const p of pages) {
        for (const width of variants.widths) {
          for (const dark of variants.themes) {
            const page = await open(p.url, { width, dark, ...(p.admin ? { adminSession: session } : {}) });
            const what = `${p.url} at ${width}${dark ? " (dark)" : ""}`;
            expect(await page.evaluate(() => document.documentElement.classList.contains("dark")), what).toBe(dark);
            expect(await criticalViolations(page), what).toEqual([]);
            // The entry (or the page's action) is on screen without scrolling sideways.
            const box = await page.getByText(p.key, { exact: true }).first().boundingBox();
            expect(box, what).not.toBeNull();
            expect(box!.x + box!.width, what).toBeLessThanOrEqual(width);
            await screenshot(page, `maintainer-${p.name}-${width}${dark ? "-dark" : ""}`);
            await page.context().close();
          }
        }
      }
    }, 240_000);
  });
});
