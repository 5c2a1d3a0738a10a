/**
 * Reproducibility against the production server: an entry's manifest in its JSON and on its
 * page (the Reproducibility section, light and dark, desktop and phone, no critical axe
 * violation), its verdicts at /api/submissions/:id/verdicts with the entry's visibility, and
 * `agentboard verify <entry URL>` re-deriving the demo's strong agent over HTTP.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { eq } from "drizzle-orm";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { submissions } from "@/db/schema";
import type { RunManifest } from "@/lib/scoring/manifest";
import type { VerdictExport } from "@/lib/judges/verdict-file";
import { registerBenchmark } from "@/lib/submissions/benchmarks";
import { loadDemoEntries } from "@/lib/submissions/demo-entries";
import { ingestBundle } from "@/lib/submissions/ingest";
import { runWorker } from "@/lib/submissions/worker";
import { DEMO_DIR } from "@/scripts/demo/build-demo";
import { GOOD_BUNDLE, MINI_BENCHMARK, renamedGoodBundle } from "../helpers/mini-fixtures";
import { runCli } from "../helpers/run-cli";
import { criticalViolations, launchBrowser, screenshot, startApp, seedDatabase, type App } from "./harness";

const ADMIN = "maintainer-token-for-verify-tests";
const work = mkdtempSync(path.join(tmpdir(), "agentboard-e2e-verify-"));
const ids = { strong: 0, hidden: 0 };

/** The demo's entries, published; and a mini entry scored but not approved. */
async function seed(dbFile: string) {
  await seedDatabase(dbFile, async (db, deps) => {
    await loadDemoEntries(db, DEMO_DIR, deps);
    const [strong] = await db.select({ id: submissions.id }).from(submissions).where(eq(submissions.agentName, "strong-agent"));
    ids.strong = strong!.id;
    const { versionId } = await registerBenchmark(db, MINI_BENCHMARK, { now: new Date() });
    const bundle = renamedGoodBundle(path.join(work, "hidden"), "hidden-agent");
    ids.hidden = (await ingestBundle(db, { versionId, bundlePath: bundle, source: "local", sourceRef: bundle, actor: "cli" }, () => new Date())).submissionId;
    await runWorker(db, deps, { untilIdle: true });
  });
}

let app: App;
let browser: Browser;
beforeAll(async () => {
  app = await startApp(seed, { AGENTBOARD_ADMIN_TOKEN: ADMIN });
  browser = await launchBrowser();
}, 180_000);
afterAll(async () => {
  await browser?.close();
  await app?.stop();
  rmSync(work, { recursive: true, force: true });
});

const getJson = async (p: string, cookie?: string) => {
  const res = await fetch(app.url + p, { headers: cookie ? { cookie } : {} });
  return { status: res.status, body: (await res.json()) as unknown };
};

describe("an entry's manifest and verdicts over HTTP", () => {
  it("serves the manifest with the entry and its verdicts, paged", async () => {
    const entry = await getJson(`/api/submissions/${ids.strong}`);
    expect(entry.status).toBe(200);
    const manifest = (entry.body as { manifest: RunManifest }).manifest;
    expect(manifest).toMatchObject({ schema: "agentboard.manifest/1", judge: { kind: "panel", endpoint: "none" }, replay: { mode: "mcp" }, verdicts: { items: 300 } });
    const verdicts = await getJson(`/api/submissions/${ids.strong}/verdicts`);
    expect(verdicts.status).toBe(200);
    const v = verdicts.body as VerdictExport;
    expect(v).toMatchObject({ schema: "agentboard.verdicts/1", bundle: { sha256: manifest.bundle.sha256 }, judge: { id: "panel:primary(rules,literal)" }, private: false, page: { number: 1, pages: 1, items: 300 } });
    expect(v.items).toHaveLength(300);
    expect((await getJson(`/api/submissions/${ids.strong}/verdicts?page=2`)).status).toBe(404);
    expect((await getJson(`/api/submissions/${ids.strong}/verdicts?page=0`)).status).toBe(400);
  });

  it("hides an unpublished entry's verdicts from the public, and shows them to a signed-in maintainer", async () => {
    expect((await getJson(`/api/submissions/${ids.hidden}/verdicts`)).status).toBe(404);
    expect((await getJson(`/api/submissions/999999/verdicts`)).status).toBe(404);
    const login = await fetch(`${app.url}/admin/login`, { method: "POST", body: new URLSearchParams({ token: ADMIN }), headers: { origin: app.url }, redirect: "manual" });
    const cookie = login.headers.get("set-cookie")!.split(";")[0]!;
    const seen = await getJson(`/api/submissions/${ids.hidden}/verdicts`, cookie);
    expect(seen.status).toBe(200);
    expect((seen.body as VerdictExport).items).toHaveLength(4);
  });
});

describe("agentboard verify <entry URL>", () => {
  it("re-derives the demo's strong agent from the server's manifest and verdicts: identical", async () => {
    const r = await runCli(["verify", `${app.url}/submissions/${ids.strong}`, "--bundle", path.join(DEMO_DIR, "submissions/strong-agent"), "--benchmark", DEMO_DIR, "--quiet"]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^IDENTICAL: every number of ${app.url.replace(/[.]/g, "\\.")}/submissions/${ids.strong} was re-derived \\(300 items\\)`));
    expect(r.stdout).toContain("identical  API chaining (api_chaining): 90.7, 75 items");
  }, 120_000);

  it("says so when the entry is not public (exit 2)", async () => {
    const r = await runCli(["verify", `${app.url}/submissions/${ids.hidden}`, "--bundle", GOOD_BUNDLE, "--benchmark", MINI_BENCHMARK, "--quiet"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("answered 404 (no such entry, or it is not published)");
  });
});

describe("the entry page's Reproducibility section", () => {
  it.each([
    ["light, desktop", { dark: false, width: 1400 }],
    ["dark, phone", { dark: true, width: 390 }],
  ])("shows every manifest field with short hashes and how to verify (%s)", async (name, o) => {
    const ctx = await browser.newContext({ viewport: { width: o.width, height: 900 }, colorScheme: o.dark ? "dark" : "light" });
    const page = await ctx.newPage();
    try {
      await page.goto(`${app.url}/submissions/${ids.strong}`);
      const section = page.locator("section#reproducibility");
      await section.scrollIntoViewIfNeeded();
      expect(await section.locator("h2").textContent()).toBe("Reproducibility");
      const manifest = (await getJson(`/api/submissions/${ids.strong}`)).body as { manifest: RunManifest };
      const sha = manifest.manifest.bundle.sha256;
      expect(await section.locator(`code[title="${sha}"]`).textContent()).toBe(sha.slice(0, 12));
      for (const term of ["Bundle", "Benchmark", "Ground-truth replay", "Replay mode", "Agentboard", "Judge", "Bootstrap seed", "Trials", "Verdicts"]) await expect(section.locator("dt", { hasText: term }).first().isVisible()).resolves.toBe(true);
      expect(await section.textContent()).toContain("./agentboard verify");
      expect(await section.locator(`a[href="/api/submissions/${ids.strong}/verdicts"]`).count()).toBe(1);
      expect(await criticalViolations(page)).toEqual([]);
      await screenshot(page, `reproducibility-${name.replace(/[^a-z]+/g, "-")}`);
    } finally {
      await ctx.close();
    }
  });
});
