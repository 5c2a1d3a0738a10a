/**
 * The browser tests' world: a fresh database (SQLite, or Postgres when the test command started
 * a cluster) with the entries of both demos, the test command's own production build served on
 * a free port, and Debian chromium driven by playwright-core.
 *
 * The build is the one scripts/test-app.ts makes (`npm test` does, before vitest; alone:
 * `npx tsx scripts/test-app.ts`), never the checkout's `.next`, which a main job may be serving.
 * Every server a test starts (startApp, or spawnServer with the checkout as working folder)
 * serves it: this module puts its folder in AGENTBOARD_APP_DIR, which children inherit.
 */
import { mkdirSync } from "node:fs";
import { createServer } from "node:net";
import path from "node:path";
import { chromium, type Browser, type Page } from "playwright-core";
import { closeDatabase, connectDatabase, type Db } from "@/db/client";
import { loadDemoEntries } from "@/lib/submissions/demo-entries";
import type { ScoringDeps } from "@/lib/submissions/score-job";
import { createScoringDeps } from "@/lib/submissions/scoring-deps";
import { DEMO_DIR, NVIDIA_DEMO_DIR } from "@/scripts/demo/build-demo";
import { spawnServer, waitForServer } from "@/scripts/server/spawn-server";
import { APP_DIR_ENV, hasBuild, testAppDir } from "@/scripts/test-app";
import { freshDatabase, type Engine } from "../helpers/engines";

export const repo = path.resolve(import.meta.dirname, "../..");
export const artifacts = path.join(repo, "test-artifacts/screenshots");
/** The production build the tests serve (the test command names it; else the checkout's test build). */
export const appDir = process.env[APP_DIR_ENV] || testAppDir(repo);
process.env[APP_DIR_ENV] = appDir;

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
  /** Where the server's database is: a SQLite file, or a postgres:// URL (what seedDatabase and connectDatabase take). */
  dbFile: string;
  engine: Engine;
  /** A handle on the server's database, for a test's own reads and writes (open until stop). */
  db: Db;
  stop(): Promise<void>;
}

/** The entries of both demos, scored and published (the VAKRA-style one is the default benchmark). */
export async function loadDemos(db: Db, deps: ScoringDeps): Promise<void> {
  await loadDemoEntries(db, DEMO_DIR, deps);
  await loadDemoEntries(db, NVIDIA_DEMO_DIR, deps, undefined, { isDefault: false });
}

/** Opens a test database (a SQLite file or a postgres:// URL) with its scoring deps, runs `fill`, and closes both whatever happens. */
export async function seedDatabase(dbFile: string, fill: (db: Db, deps: ScoringDeps) => Promise<void>): Promise<void> {
  const db = await connectDatabase(dbFile);
  const deps = createScoringDeps(db);
  try {
    await fill(db, deps);
  } finally {
    await deps.close();
    await closeDatabase(db);
  }
}

/** Loads the demo entries (or `seed`'s) into a new database of `engine` and serves the production build on it. */
export async function startApp(seed?: (dbFile: string) => Promise<void>, env: Record<string, string> = {}, engine: Engine = "sqlite"): Promise<App> {
  if (!hasBuild(appDir)) throw new Error(`no test build in ${appDir}: the test command makes it first (alone: npx tsx scripts/test-app.ts)`);
  const database = await freshDatabase(engine);
  let server: ReturnType<typeof spawnServer> | undefined;
  const stop = async () => {
    try {
      if (server) process.kill(-server.pid!, "SIGTERM");
    } catch {
      // already gone
    }
    await database.close();
  };
  try {
    await (seed ? seed(database.url) : seedDatabase(database.url, loadDemos));
    const port = await freePort();
    // The database's own settings win over the caller's and this process's (a SQLite run clears AGENTBOARD_DATABASE_URL).
    server = spawnServer({ port, cwd: repo, env: { ...env, ...database.env }, detached: true });
    const url = `http://127.0.0.1:${port}`;
    if (!(await waitForServer(url))) throw new Error(`the app did not answer on ${url}`);
    return { url, dbFile: database.url, engine, db: database.db, stop };
  } catch (err) {
    await stop();
    throw err;
  }
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
