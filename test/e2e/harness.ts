/**
 * The browser tests' world: a fresh database with the entries of both demos, the production build
 * served by `next start` on a free port, and Debian chromium driven by playwright-core.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { chromium, type Browser, type Page } from "playwright-core";
import { openDatabase, type Db } from "@/db/client";
import { loadDemoEntries } from "@/lib/submissions/demo-entries";
import type { ScoringDeps } from "@/lib/submissions/score-job";
import { createScoringDeps } from "@/lib/submissions/scoring-deps";
import { DEMO_DIR, NVIDIA_DEMO_DIR } from "@/scripts/demo/build-demo";
import { spawnServer, waitForServer } from "@/scripts/server/spawn-server";

export const repo = path.resolve(import.meta.dirname, "../..");
export const artifacts = path.join(repo, "test-artifacts/screenshots");

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
    s.on("error", reject);
  });
}

export interface App {
  url: string;
  dbFile: string;
  stop(): Promise<void>;
}

/** The entries of both demos, scored and published (the VAKRA-style one is the default benchmark). */
export async function loadDemos(db: Db, deps: ScoringDeps): Promise<void> {
  await loadDemoEntries(db, DEMO_DIR, deps);
  await loadDemoEntries(db, NVIDIA_DEMO_DIR, deps, undefined, { isDefault: false });
}

/** Opens a test database with its scoring deps, runs `fill`, and closes both whatever happens. */
export async function seedDatabase(dbFile: string, fill: (db: Db, deps: ScoringDeps) => Promise<void>): Promise<void> {
  const db = openDatabase(dbFile);
  const deps = createScoringDeps(db);
  try {
    await fill(db, deps);
  } finally {
    await deps.close();
    db.$client.close();
  }
}

/** Loads the demo entries into a new database and serves the production build on it. */
export async function startApp(seed?: (dbFile: string) => Promise<void>, env: Record<string, string> = {}): Promise<App> {
  if (!existsSync(path.join(repo, ".next/BUILD_ID"))) throw new Error("no production build: the test command runs `next build` first");
  const dir = mkdtempSync(path.join(tmpdir(), "agentboard-e2e-"));
  const dbFile = path.join(dir, "e2e.db");
  await (seed ? seed(dbFile) : seedDatabase(dbFile, loadDemos));
  const port = await freePort();
  const server = spawnServer({ port, cwd: repo, env: { ...env, AGENTBOARD_DB: dbFile }, detached: true });
  const url = `http://127.0.0.1:${port}`;
  if (!(await waitForServer(url))) throw new Error(`the app did not answer on ${url}`);
  return {
    url,
    dbFile,
    async stop() {
      try {
        process.kill(-server.pid!, "SIGTERM");
      } catch {
        // already gone
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: "/usr/bin/chromium",
    headless: true,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
}

export interface PageOptions {
  /** Viewport width; 1400 px unless told. Widths under 640 px get a phone's height (844 px), others 1000 px. */
  width?: number;
  dark?: boolean;
  /** A maintainer's session cookie value, set for the page's origin before it loads. */
  adminSession?: string;
}

/** Opens `url` in a fresh browser context (its own cookies and colour scheme) and waits until the network is idle. */
export async function openPage(browser: Browser, url: string, opts: PageOptions = {}): Promise<Page> {
  const width = opts.width ?? 1400;
  const ctx = await browser.newContext({ viewport: { width, height: width < 640 ? 844 : 1000 }, colorScheme: opts.dark ? "dark" : "light" });
  if (opts.adminSession) await ctx.addCookies([{ name: "agentboard_admin", value: opts.adminSession, url: new URL(url).origin }]);
  const page = await ctx.newPage();
  await page.goto(url, { waitUntil: "networkidle" });
  return page;
}

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(artifacts, { recursive: true });
  await page.screenshot({ path: path.join(artifacts, `${name}.png`), fullPage: true });
}

/** Runs axe-core in the page; returns the violations of `critical` impact. */
export async function criticalViolations(page: Page): Promise<{ id: string; help: string; nodes: number }[]> {
  await page.addScriptTag({ path: path.join(repo, "node_modules/axe-core/axe.min.js") });
  const result = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: (ctx: Document, opts: unknown) => Promise<{ violations: { id: string; impact: string; help: string; nodes: unknown[] }[] }> } }).axe;
    return axe.run(document, { resultTypes: ["violations"] });
  });
  return result.violations.filter((v) => v.impact === "critical").map((v) => ({ id: v.id, help: v.help, nodes: v.nodes.length }));
}
