/**
 * A maintainer clears an integrity flag in a real browser (Debian chromium) against the
 * production build: from the review list to the entry's flags page, a reason given, the flag
 * gone from the list, the entry's public page and the board's data, and listed as cleared with
 * its reason for maintainers only; approved, the entry is on the board unflagged. The flags
 * page light and dark through axe.
 */
import { cpSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { and, eq } from "drizzle-orm";
import { auditLog, submissions } from "@/db/schema";
import { registerBenchmark } from "@/lib/submissions/benchmarks";
import { ingestBundle } from "@/lib/submissions/ingest";
import { runWorker } from "@/lib/submissions/worker";
import { DEMO_DIR } from "@/scripts/demo/build-demo";
import { ENGINES } from "../helpers/engines";
import { criticalViolations, launchBrowser, loadDemos, openPage, screenshot, seedDatabase, startApp, type App } from "./harness";

const ADMIN = "maintainer-token-for-flags";
const COPY = "resubmitted-agent";
const REASON = "The weak-agent lab resubmitted its own outputs under a new name; checked with them.";
const bundles = mkdtempSync(path.join(tmpdir(), "agentboard-clear-flag-"));
afterAll(() => rmSync(bundles, { recursive: true, force: true }));

/** The demos published, and weak-agent's outputs under another name scored: flagged as its duplicate. */
async function seed(dbFile: string) {
  await seedDatabase(dbFile, async (db, deps) => {
    await loadDemos(db, deps);
    const { versionId } = await registerBenchmark(db, DEMO_DIR, { isDefault: true, now: new Date() });
    const dir = path.join(bundles, `${COPY}-${Date.now()}`);
    cpSync(path.join(DEMO_DIR, "submissions/weak-agent"), dir, { recursive: true });
    writeFileSync(path.join(dir, "metadata.json"), JSON.stringify({ agent_name: COPY, models: ["m"], maintainer: "lab" }));
    await ingestBundle(db, { versionId, bundlePath: dir, source: "local", sourceRef: COPY, actor: "e2e" }, () => new Date());
    await runWorker(db, deps, { untilIdle: true });
  });
}

describe.each(ENGINES)("clearing an integrity flag on %s", (engine) => {
  let app: App;
  let browser: Browser;
  beforeAll(async () => {
    app = await startApp(seed, { AGENTBOARD_ADMIN_TOKEN: ADMIN }, engine);
    browser = await launchBrowser();
  }, 240_000);
  afterAll(async () => {
    await browser?.close();
    await app?.stop();
  });

  const idOf = async (agent: string) => (await app.db.select({ id: submissions.id }).from(submissions).where(eq(submissions.agentName, agent)))[0]!.id;

  it("clears the flag with a reason: gone from the list and the public page, kept for maintainers", async () => {
    const copy = await idOf(COPY);
    const page = await openPage(browser, `${app.url}/admin`);
    await page.getByLabel("Maintainer token").fill(ADMIN);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("link", { name: `Clear flags of ${COPY}` }).click();
    await page.waitForURL(new RegExp(`/admin/flags\\?id=${copy}$`));
    const raised = page.getByRole("list", { name: "Raised integrity flags" }).getByRole("listitem");
    expect(await raised.count()).toBe(1);
    expect(await raised.first().textContent()).toContain(`carry the same answers and tool calls as entry #${await idOf("weak-agent")} (weak-agent)`);
    expect(await criticalViolations(page)).toEqual([]);
    await screenshot(page, "admin-flags-raised");

    // No reason: the browser asks for one (required), nothing is posted.
    await page.getByRole("button", { name: `Clear the duplicate flag of ${COPY}` }).click();
    expect(page.url()).toMatch(new RegExp(`/admin/flags\\?id=${copy}$`));
    await page.getByLabel("Why it does not hold (required; kept in the audit log)").fill(REASON);
    await page.getByRole("button", { name: `Clear the duplicate flag of ${COPY}` }).click();
    await page.waitForURL(/done=cleared/);
    expect(await page.getByRole("list", { name: "Raised integrity flags" }).count()).toBe(0);
    const cleared = page.getByRole("list", { name: "Cleared integrity flags" }).getByRole("listitem");
    expect(await cleared.first().textContent()).toContain(`Reason: ${REASON}`);
    const [row] = await app.db.select({ details: auditLog.details }).from(auditLog).where(and(eq(auditLog.submissionId, copy), eq(auditLog.action, "flag:cleared")));
    expect(row?.details).toMatchObject({ kind: "duplicate", reason: REASON });
    for (const dark of [false, true]) {
      const view = await openPage(browser, page.url(), { dark, adminSession: (await page.context().cookies()).find((c) => c.name === "agentboard_admin")!.value });
      expect(await criticalViolations(view), `dark ${dark}`).toEqual([]);
      await screenshot(view, `admin-flags-cleared${dark ? "-dark" : ""}`);
    }

    // The review list no longer shows it, so approving asks nothing more; published, its public page has no flag and never the reason.
    await page.goto(`${app.url}/admin`, { waitUntil: "networkidle" });
    expect(await page.getByTestId(`flags-${copy}`).textContent()).toBe("—");
    await page.getByRole("button", { name: `Approve ${COPY}` }).click();
    await page.waitForURL(/done=approve/);
    const pub = await openPage(browser, `${app.url}/submissions/${copy}`);
    expect(await pub.locator("[data-flag]").count()).toBe(0);
    expect(await pub.content()).not.toContain(REASON);
    const json = await (await fetch(`${app.url}/api/submissions/${copy}`)).text();
    expect(json).not.toContain(REASON);
    expect(JSON.parse(json).integrity.flags).toEqual([]);
    // On the board, published and without the flagged badge.
    const board = (await (await fetch(`${app.url}/api/leaderboard`)).json()) as { entries: { id: number; badges?: string[] }[] };
    const entry = board.entries.find((e) => e.id === copy);
    expect(entry).toBeDefined();
    expect(entry!.badges ?? []).not.toContain("flagged");
  }, 120_000);
});
