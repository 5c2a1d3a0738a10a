/**
 * `npm test` beside a running main job (issue 27, point 1): the test command's build step (the
 * very command scripts/run-tests.ts runs, `tsx scripts/test-app.ts`) runs in a checkout whose
 * own build a server is serving, as the main job serves it; every page of that board keeps
 * answering 200 with every script and style sheet it links, during the build and after.
 *
 * The checkout is a copy of this one (its sources and a production build in its `.next/`) inside
 * `.agentboard/`, where node_modules resolve by walking up. One engine: what is at stake is the
 * build's files on disk, not the database (a second full build per engine would double the cost).
 */
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { cpSync, existsSync, readdirSync, rmSync, statSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { asc, eq } from "drizzle-orm";
import { submissions } from "@/db/schema";
import { spawnServer, waitForServer } from "@/scripts/server/spawn-server";
import { copySources, testAppDir } from "@/scripts/test-app";
import { freshDatabase, type TestDatabase } from "../helpers/engines";
import { appDir, freePort, loadDemos, repo, seedDatabase } from "./harness";

/** Every page route of the app (app/**\/page.tsx), as a path pattern. */
function pageRoutes(appFolder: string): string[] {
  const routes: string[] = [];
  const visit = (rel: string) => {
    for (const name of readdirSync(path.join(appFolder, rel))) {
      const child = path.posix.join(rel, name);
      if (statSync(path.join(appFolder, child)).isDirectory()) visit(child);
      else if (name === "page.tsx") routes.push(`/${rel}`.replace(/\/$/, "") || "/");
    }
  };
  visit("");
  return routes.sort();
}

interface Failure {
  url: string;
  status: number | string;
  type: string | null;
}

describe("the test command's build beside a running main job", () => {
  const checkout = path.join(repo, ".agentboard", `e2e-main-job-${randomBytes(4).toString("hex")}`);
  let database: TestDatabase;
  let server: ReturnType<typeof spawnServer> | undefined;
  let url = "";
  let pages: string[] = [];

  beforeAll(async () => {
    // A checkout whose main job serves its own build: the sources, and the production build in its .next/.
    copySources(repo, checkout);
    cpSync(path.join(appDir, ".next"), path.join(checkout, ".next"), { recursive: true, filter: (src) => !src.startsWith(path.join(appDir, ".next", "cache")) });
    database = await freshDatabase("sqlite");
    await seedDatabase(database.url, loadDemos);
    const port = await freePort();
    // As scripts/main.ts starts it: the checkout as working folder, its own .next (no AGENTBOARD_APP_DIR).
    server = spawnServer({ port, cwd: checkout, env: { ...database.env, AGENTBOARD_APP_DIR: undefined }, detached: true });
    url = `http://127.0.0.1:${port}`;
    if (!(await waitForServer(url))) throw new Error(`the main job's server did not answer on ${url}`);

    const [a, b] = await database.db.select({ id: submissions.id }).from(submissions).where(eq(submissions.state, "published")).orderBy(asc(submissions.id)).limit(2);
    const entryHtml = await (await fetch(`${url}/submissions/${a!.id}`)).text();
    const item = new RegExp(`/submissions/${a!.id}/items/[^"?#]+`).exec(entryHtml)?.[0];
    expect(item, "an item link on the entry's page").toBeTruthy();
    const urlOf: Record<string, string> = {
      "/": "/",
      "/about": "/about",
      "/admin": "/admin",
      "/admin/disputes": "/admin/disputes",
      "/admin/flags": "/admin/flags",
      "/admin/log": "/admin/log",
      "/changelog": "/changelog",
      "/compare": `/compare?ids=${a!.id}&ids=${b!.id}`,
      "/queue": "/queue",
      "/submissions": "/submissions",
      "/submissions/[id]": `/submissions/${a!.id}`,
      "/submissions/[id]/items/[capability]/[uuid]": item!,
      "/submit": "/submit",
    };
    const routes = pageRoutes(path.join(checkout, "app"));
    // A page added to the app must be added here: "every page" stays every page.
    expect(routes.filter((r) => !(r in urlOf)), "page routes with no URL in this test").toEqual([]);
    pages = routes.map((r) => urlOf[r]!);
  }, 600_000);

  afterAll(async () => {
    try {
      if (server?.pid) process.kill(-server.pid, "SIGTERM");
    } catch {
      // already gone
    }
    await database?.close();
    rmSync(checkout, { recursive: true, force: true });
  });

  /** Each page, then each script and style sheet it links from /_next/static/; what did not answer 200 with content. */
  async function sweep(): Promise<{ failures: Failure[]; assets: number }> {
    const failures: Failure[] = [];
    let assets = 0;
    for (const page of pages) {
      const res = await fetch(url + page).catch((err: unknown) => ({ status: String(err), headers: new Headers(), text: async () => "" }) as const);
      const html = await res.text();
      if (res.status !== 200) {
        failures.push({ url: page, status: res.status, type: res.headers.get("content-type") });
        continue;
      }
      const links = new Set([...html.matchAll(/(?:src|href)="(\/_next\/static\/[^"]+\.(?:js|css))"/g)].map((m) => m[1]!));
      if (links.size === 0) failures.push({ url: page, status: "links no script", type: null });
      for (const link of links) {
        assets++;
        const r = await fetch(url + link).catch((err: unknown) => ({ status: String(err), headers: new Headers(), arrayBuffer: async () => new ArrayBuffer(0) }) as const);
        const size = (await r.arrayBuffer()).byteLength;
        const type = r.headers.get("content-type");
        if (r.status !== 200 || size === 0 || !/javascript|css/.test(type ?? "")) failures.push({ url: `${link} (on ${page})`, status: r.status, type });
      }
    }
    return { failures, assets };
  }

  it("keeps every page of the running board answering 200 with its scripts while the test build runs, and after", async () => {
    const before = await sweep();
    expect(before.failures).toEqual([]);
    expect(before.assets).toBeGreaterThan(pages.length);

    // The test command's build step, as scripts/run-tests.ts runs it, in that checkout; at a lower
    // priority (nice), so this second full build slows the other test files running meanwhile less.
    const build = spawn("nice", ["-n", "10", process.execPath, "--import", "tsx", path.join(checkout, "scripts/test-app.ts")], {
      cwd: checkout,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    build.stdout.on("data", (c: Buffer) => (output += c.toString()));
    build.stderr.on("data", (c: Buffer) => (output += c.toString()));
    const exited = new Promise<number | null>((resolve) => build.on("exit", (code) => resolve(code)));
    let running = true;
    void exited.then(() => (running = false));

    const failures: Failure[] = [];
    let sweeps = 0;
    while (running) {
      failures.push(...(await sweep()).failures);
      sweeps++;
    }
    const code = await exited;
    expect(code, output.slice(-3000)).toBe(0);
    expect(existsSync(path.join(testAppDir(checkout), ".next", "BUILD_ID"))).toBe(true);
    // The board was watched throughout the build, not once at its end.
    expect(sweeps).toBeGreaterThanOrEqual(3);
    const after = await sweep();
    expect({ during: failures.slice(0, 20), after: after.failures.slice(0, 20) }).toEqual({ during: [], after: [] });
  }, 900_000);
});
