/**
 * The production server's defences, over HTTP: security headers on every response, entries
 * that are not published hidden from the public (and shown to a signed-in maintainer), fixed
 * admin messages, sign-out that ends the session on the server, no server paths in public
 * text, and pages still served from a database the server cannot write.
 */
import { chmodSync, cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eq, sql } from "drizzle-orm";
import { openDatabase, rows } from "@/db/client";
import { submissions } from "@/db/schema";
import { registerBenchmark } from "@/lib/submissions/benchmarks";
import { ingestBundle } from "@/lib/submissions/ingest";
import { approve, restore, withdraw } from "@/lib/submissions/review";
import { runWorker } from "@/lib/submissions/worker";
import { spawnServer, waitForServer } from "@/scripts/server/spawn-server";
import { GOOD_BUNDLE, INVALID_BUNDLE, MINI_BENCHMARK } from "../helpers/mini-fixtures";
import { freePort, repo, startApp, seedDatabase, type App } from "./harness";

const ADMIN = "maintainer-token-for-security-tests";
const bundles = mkdtempSync(path.join(tmpdir(), "agentboard-sec-bundles-"));
const ids = { published: 0, hidden: 0, invalid: 0 };
let hiddenItem = "";
/** Where the published entry's bundle lies on the server: its withdrawal and restore quote it in their reasons. */
let publishedDir = "";

function copyBundle(from: string, name: string, agent?: string): string {
  const dir = path.join(bundles, "secret-lab-dir", name);
  cpSync(from, dir, { recursive: true });
  if (agent) writeFileSync(path.join(dir, "output/metadata.json"), JSON.stringify({ agent_name: agent, models: ["m"], maintainer: "lab" }));
  return dir;
}

/**
 * One published entry, one scored but not approved, one invalid; all sent through the CLI path.
 * The published one was withdrawn and restored with reasons naming its bundle's server path.
 */
async function seed(dbFile: string) {
  await seedDatabase(dbFile, async (db, deps) => {
    const { versionId } = await registerBenchmark(db, MINI_BENCHMARK, { isDefault: true, now: new Date() });
    const ingest = async (bundle: string) => (await ingestBundle(db, { versionId, bundlePath: bundle, source: "local", sourceRef: bundle, actor: "cli" }, () => new Date())).submissionId;
    publishedDir = copyBundle(GOOD_BUNDLE, "public", "public-agent");
    ids.published = await ingest(publishedDir);
    ids.hidden = await ingest(copyBundle(GOOD_BUNDLE, "hidden", "hidden-agent"));
    ids.invalid = await ingest(copyBundle(INVALID_BUNDLE, "broken"));
    await runWorker(db, deps, { untilIdle: true });
    await approve(db, ids.published, { actor: "e2e", at: new Date() });
    await withdraw(db, ids.published, { actor: "e2e", at: new Date() }, `checking the bundle at ${publishedDir}`);
    await restore(db, ids.published, { actor: "e2e", at: new Date() }, `${publishedDir}/output/metadata.json is fine`);
    const [item] = await rows<{ capability: string; uuid: string }>(db, sql`SELECT i.capability, i.uuid FROM item_results i JOIN submissions s ON s.current_run_id = i.run_id WHERE s.id = ${ids.hidden} LIMIT 1`);
    hiddenItem = `/submissions/${ids.hidden}/items/${encodeURIComponent(item!.capability)}/${encodeURIComponent(item!.uuid)}`;
  });
}

let app: App;
beforeAll(async () => {
  app = await startApp(seed, { AGENTBOARD_ADMIN_TOKEN: ADMIN });
}, 180_000);
afterAll(async () => {
  await app?.stop();
  rmSync(bundles, { recursive: true, force: true });
});

const get = (p: string, cookie?: string) => fetch(app.url + p, { headers: cookie ? { cookie } : {}, redirect: "manual" });
const post = (p: string, form: Record<string, string>, cookie?: string) =>
  fetch(app.url + p, { method: "POST", body: new URLSearchParams(form), headers: { origin: app.url, ...(cookie ? { cookie } : {}) }, redirect: "manual" });

/** Signs in and returns the session cookie ("name=value"). */
async function signIn(): Promise<string> {
  const res = await post("/admin/login", { token: ADMIN });
  expect(res.status).toBe(303);
  const cookie = res.headers.get("set-cookie")?.split(";")[0];
  expect(cookie).toMatch(/^agentboard_admin=.+/);
  return cookie!;
}

function expectSecurityHeaders(res: Response, what: string) {
  const csp = res.headers.get("content-security-policy") ?? "";
  expect(csp, what).toContain("default-src 'self'");
  expect(csp, what).toContain("frame-ancestors 'none'");
  expect(csp, what).toContain("object-src 'none'");
  expect(res.headers.get("x-frame-options"), what).toBe("DENY");
  expect(res.headers.get("x-content-type-options"), what).toBe("nosniff");
  expect(res.headers.get("referrer-policy"), what).toBeTruthy();
}

describe("security headers", () => {
  it("are on every response: cached pages, rendered pages, the API, a 404 and a redirect", async () => {
    const first = await fetch(app.url, { headers: { accept: "text/html" } });
    expect(first.status).toBe(200);
    expectSecurityHeaders(first, "/");
    const cached = await fetch(app.url, { headers: { accept: "text/html" } });
    expect(cached.headers.get("x-agentboard-cache")).toBe("hit");
    expectSecurityHeaders(cached, "/ (cached)");
    for (const p of ["/queue", "/api/leaderboard", "/api/leaderboard?format=csv", "/submissions/999999", "/submissions"]) expectSecurityHeaders(await get(p), p);
  });
});

describe("entries that are not published", () => {
  it("are 404 to the public: page, item page and JSON, like an entry that does not exist", async () => {
    for (const id of [ids.hidden, ids.invalid]) {
      const page = await get(`/submissions/${id}`);
      expect(page.status, `#${id}`).toBe(404);
      expect(await page.text()).not.toContain("hidden-agent");
      expect((await get(`/api/submissions/${id}`)).status).toBe(404);
    }
    expect((await get(hiddenItem)).status).toBe(404);
    expect((await get(`/submissions/${ids.published}`)).status).toBe(200);
    expect((await get(`/api/submissions/${ids.published}`)).status).toBe(200);
  });

  it("cannot be compared by the public", async () => {
    const html = await (await get(`/compare?ids=${ids.published},${ids.hidden}`)).text();
    expect(html).not.toContain("hidden-agent");
    expect(html).toContain(`o scored entry with id ${ids.hidden}`); // the first letter is capitalised in its own text node
    const cookie = await signIn();
    expect(await (await get(`/compare?ids=${ids.published},${ids.hidden}`, cookie)).text()).toContain("hidden-agent");
  });

  it("are listed on the queue by name and state only, without a link", async () => {
    const html = await (await get("/queue")).text();
    expect(html).toContain("hidden-agent");
    expect(html).toContain(`href="/submissions/${ids.published}"`);
    expect(html).not.toContain(`href="/submissions/${ids.hidden}"`);
  });

  it("are visible to a signed-in maintainer, marked as not public and kept out of shared caches", async () => {
    const cookie = await signIn();
    const page = await get(`/submissions/${ids.hidden}`, cookie);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain("hidden-agent");
    expect(html).toContain("Not public");
    expect((await get(hiddenItem, cookie)).status).toBe(200);
    const api = await get(`/api/submissions/${ids.hidden}`, cookie);
    expect(api.status).toBe(200);
    expect(api.headers.get("cache-control")).toContain("no-store");
    expect((await get(`/submissions/${ids.invalid}`, cookie)).status).toBe(200);
  });
});

describe("the admin page", () => {
  it("answers unknown error codes (even __proto__) with a fixed message, never the URL's text", async () => {
    for (const code of ["__proto__", "constructor", "Your account is locked: call +1-555-0100"]) {
      const res = await get(`/admin?error=${encodeURIComponent(code)}`);
      expect(res.status, code).toBe(200);
      const html = await res.text();
      expect(html, code).toContain("Something went wrong");
      expect(html, code).not.toContain("call +1-555-0100");
    }
    expect(await (await get("/admin?error=token")).text()).toContain("That token is not right.");
  });

  it("acts on reject and withdraw only when they were confirmed, against the state they were confirmed in", async () => {
    const cookie = await signIn();
    const stateOf = async () => (await app.db.select({ state: submissions.state }).from(submissions).where(eq(submissions.id, ids.hidden)))[0]!.state;
    const act = (form: Record<string, string>) => post("/admin/actions", { submissionId: String(ids.hidden), ...form }, cookie);
    expect(await stateOf()).toBe("scored");
    // No confirmation: nothing happens, and the post leads to the confirmation.
    for (const form of [{ action: "withdraw" }, { action: "reject", reason: "no" }, { action: "withdraw", confirm: "" }] as Record<string, string>[]) {
      const res = await act(form);
      expect(res.status).toBe(303);
      expect(res.headers.get("location")).toBe(`/admin?confirm=${form.action}&id=${ids.hidden}#confirm`);
      expect(await stateOf()).toBe("scored");
    }
    const page = await (await get(`/admin?confirm=withdraw&id=${ids.hidden}`, cookie)).text();
    expect(page).toMatch(/<section id="confirm"[^]*hidden-agent[^]*You can restore it/);
    // Confirmed against another state than the entry's (it moved on meanwhile): refused.
    expect((await act({ action: "withdraw", confirm: "published" })).headers.get("location")).toBe("/admin?error=changed");
    expect(await stateOf()).toBe("scored");
    // Confirmed: done, and restored again (restore needs no confirmation: it takes nothing away).
    expect((await act({ action: "withdraw", confirm: "scored", reason: "checking" })).headers.get("location")).toContain("done=withdraw");
    expect(await stateOf()).toBe("withdrawn");
    expect((await act({ action: "restore" })).headers.get("location")).toContain("done=restore");
    expect(await stateOf()).toBe("scored");
  });

  it("ends the session on sign-out: the old cookie signs no one in afterwards", async () => {
    const cookie = await signIn();
    expect(await (await get("/admin", cookie)).text()).toContain("Sign out");
    const out = await post("/admin/logout", {}, cookie);
    expect(out.status).toBe(303);
    // A copy of the cookie (the browser's is cleared) no longer works anywhere.
    const after = await (await get("/admin", cookie)).text();
    expect(after).not.toContain("Sign out");
    expect(after).toContain("Maintainer token");
    const action = await post("/admin/actions", { submissionId: String(ids.hidden), action: "withdraw" }, cookie);
    expect(action.headers.get("location")).toContain("error=session");
    expect((await get(`/submissions/${ids.hidden}`, cookie)).status).toBe(404);
  });
});

describe("/submit without GITHUB_REPOSITORY", () => {
  it("links to no issue form; only a signed-in maintainer reads what to set", async () => {
    const html = await (await get("/submit")).text();
    expect(html).toContain("takes no submissions by GitHub issue yet");
    expect(html).not.toContain("GITHUB_REPOSITORY");
    expect(html).not.toContain("/issues/new");
    const maintainer = await (await get("/submit", await signIn())).text();
    expect(maintainer).toContain("No issue form is linked on this server");
    expect(maintainer).toContain("GITHUB_REPOSITORY=owner/name");
  });
});

describe("server paths", () => {
  it("are not shown in the public changelog, nor in the maintainers' audit log", async () => {
    // The public changelog lists the published entry's withdrawal and restore with their reasons, the path shortened.
    const changelog = await (await get("/changelog")).text();
    expect(changelog).toContain("checking the bundle at secret-lab-dir/public");
    expect(changelog).toContain("secret-lab-dir/public/output/metadata.json is fine");
    expect(changelog).not.toContain(bundles);
    // The audit log (maintainers only) keeps the "received" reason of a CLI bundle, its path shortened.
    expect(await (await get("/admin/log")).text()).not.toContain("secret-lab-dir");
    const log = await (await get("/admin/log", await signIn())).text();
    expect(log).toContain("secret-lab-dir/public"); // the short form
    expect(log).not.toContain(bundles);
  });
});

describe("a database the server cannot write", () => {
  it("still serves the leaderboard, the queue and a published entry", async () => {
    // A fresh copy in a directory with no write permission; root ignores permissions, so the server then runs as nobody.
    const dir = mkdtempSync(path.join(tmpdir(), "agentboard-sec-ro-"));
    const dataDir = path.join(dir, "data");
    mkdirSync(dataDir);
    const file = path.join(dataDir, "board.db");
    const src = openDatabase(app.dbFile);
    await src.$client.backup(file);
    src.$client.close();
    // Leave it in WAL mode with no -wal or -shm file, as a cleanly closed database is.
    openDatabase(file).$client.close();
    chmodSync(file, 0o444);
    chmodSync(dataDir, 0o555);
    chmodSync(dir, 0o755);
    const asRoot = process.getuid?.() === 0;
    const port = await freePort();
    const server = spawnServer({ port, cwd: repo, env: { AGENTBOARD_DB: file, HOME: dir }, detached: true, ...(asRoot ? { uid: 65534, gid: 65534 } : {}) });
    try {
      const url = `http://127.0.0.1:${port}`;
      expect(await waitForServer(url)).toBe(true);
      const home = await fetch(url, { headers: { accept: "text/html" } });
      expect(home.status).toBe(200);
      expect(await home.text()).toContain("public-agent");
      expect((await fetch(`${url}/queue`)).status).toBe(200);
      expect((await fetch(`${url}/submissions/${ids.published}`)).status).toBe(200);
    } finally {
      try {
        process.kill(-server.pid!, "SIGTERM");
      } catch {
        // already gone
      }
      chmodSync(dataDir, 0o755);
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
