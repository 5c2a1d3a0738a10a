/**
 * The main job alone (issue 27, points 3 and 4): `npm run start:demo -- --port <p>`, as the README
 * starts it, against a fresh database of each engine, in a checkout of its own (a copy of this
 * one inside `.agentboard/`, so its demo build touches no file the other tests read; it serves
 * the test command's build through AGENTBOARD_APP_DIR).
 * - With no AGENTBOARD_ADMIN_TOKEN it makes one for the run and prints a sign-in link; an HTTP
 *   request following the link gets a session, and the link opens /admin signed in, in chromium.
 * - Its worker scores what arrives with no other command: a CLI `submit`, a rescore posted to
 *   /admin, a rescore clicked on /admin in the browser.
 * - Ctrl-C (SIGINT to its process group, as a terminal sends it) stops everything it started;
 *   a child that does not stop (a frozen worker) is killed 10 s later, and named.
 * - Started again on a non-loopback address, it makes no token and prints no link, only how to
 *   set one; the demo is not rebuilt and nothing is loaded twice.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { cpSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { asc, eq, isNull } from "drizzle-orm";
import { gradeDisputes, scoringRuns, submissions } from "@/db/schema";
import { DISPUTES_PAGE } from "@/lib/queries/disputes";
import { copySources } from "@/scripts/test-app";
import { ENGINES, freshDatabase, type TestDatabase } from "../helpers/engines";
import { appDir, freePort, launchBrowser, openPage, repo, screenshot } from "./harness";

const checkout = path.join(repo, ".agentboard", `e2e-start-demo-${randomBytes(4).toString("hex")}`);

beforeAll(() => {
  copySources(repo, checkout);
  // The built CLI too (its sources are the copy's, timestamps kept), so ./agentboard runs it as after `npm install`.
  cpSync(path.join(repo, "dist"), path.join(checkout, "dist"), { recursive: true, preserveTimestamps: true });
});
afterAll(() => rmSync(checkout, { recursive: true, force: true }));

interface MainJob {
  process: ChildProcess;
  output(): string;
  /** Waits until the output matches (or the job ends, or the time runs out); returns the match. */
  waitFor(pattern: RegExp, ms?: number): Promise<RegExpMatchArray>;
  /** The exit code, or the signal that ended npm (a terminal's Ctrl-C ends it so, after the job). */
  exited: Promise<number | string | null>;
}

/** `npm run start:demo -- <args>` in the copy, in its own process group (a terminal's job). */
function startMainJob(args: string[], env: Record<string, string>): MainJob {
  const { AGENTBOARD_ADMIN_TOKEN: _unset, AGENTBOARD_DB: _db, AGENTBOARD_DATABASE_URL: _url, ...inherited } = process.env;
  const child = spawn("npm", ["run", "--silent", "start:demo", "--", ...args], { cwd: checkout, env: { ...inherited, AGENTBOARD_APP_DIR: appDir, ...env }, detached: true, stdio: ["ignore", "pipe", "pipe"] });
  let text = "";
  child.stdout!.on("data", (c: Buffer) => (text += c.toString()));
  child.stderr!.on("data", (c: Buffer) => (text += c.toString()));
  const exited = new Promise<number | string | null>((resolve) => child.on("exit", (code, signal) => resolve(code ?? signal)));
  let done = false;
  void exited.then(() => (done = true));
  return {
    process: child,
    output: () => text,
    exited,
    async waitFor(pattern, ms = 600_000) {
      const until = Date.now() + ms;
      for (;;) {
        const m = text.match(pattern);
        if (m) return m;
        if (done || Date.now() > until) throw new Error(`the main job ${done ? "ended" : "did not print it in time"}: ${pattern}\n${text.slice(-4000)}`);
        await new Promise((r) => setTimeout(r, 200));
      }
    },
  };
}

/** SIGINT to the job's process group, as Ctrl-C in a terminal; resolves when no process of the group is left (60 s at most). */
async function ctrlC(job: MainJob): Promise<number | string | null> {
  process.kill(-job.process.pid!, "SIGINT");
  let code: number | string | null | undefined;
  void job.exited.then((c) => (code = c));
  const groupLeft = () => {
    try {
      process.kill(-job.process.pid!, 0);
      return true;
    } catch {
      return false;
    }
  };
  for (const until = Date.now() + 60_000; Date.now() < until; ) {
    if (code !== undefined && !groupLeft()) return code;
    await new Promise((r) => setTimeout(r, 100));
  }
  const left = spawnSync("ps", ["-o", "pid,stat,args", "-g", String(job.process.pid)], { encoding: "utf8" }).stdout;
  throw new Error(`${code === undefined ? "the main job is still running" : `the main job ended (${code}) but some of its processes are still running`} 60 s after Ctrl-C:\n${left}\n${job.output().slice(-3000)}`);
}

describe.each(ENGINES)("the main job on %s", (engine) => {
  let database: TestDatabase;
  let job: MainJob;
  let base = "";
  let link = "";
  let browser: Browser | undefined;
  const agent = `cli-agent-${engine}`;

  beforeAll(async () => {
    database = await freshDatabase(engine);
    const port = await freePort();
    job = startMainJob(["--port", String(port)], database.env);
    base = (await job.waitFor(/Serving the leaderboard on (http:\/\/127\.0\.0\.1:\d+)/))[1]!;
    link = (await job.waitFor(/Maintainer sign-in \(a token made for this run[^)]*\): (\S+)/))[1]!;
    await job.waitFor(/A worker scores what arrives/);
  }, 900_000);
  afterAll(async () => {
    await browser?.close();
    try {
      if (job?.process.pid) process.kill(-job.process.pid, "SIGTERM");
    } catch {
      // already stopped
    }
    await database?.close();
  });

  const submissionId = async () => (await database.db.select({ id: submissions.id }).from(submissions).where(eq(submissions.agentName, agent)))[0]?.id;
  /** The submission's state and its runs' statuses, oldest first (a rescore supersedes the run before it). */
  const progress = async (id: number) => ({
    state: (await database.db.select({ state: submissions.state }).from(submissions).where(eq(submissions.id, id)))[0]!.state,
    runs: (await database.db.select({ status: scoringRuns.status }).from(scoringRuns).where(eq(scoringRuns.submissionId, id)).orderBy(asc(scoringRuns.id))).map((r) => r.status),
  });
  /** Waits for the worker beside the server to have scored the submission's `n`th run to completion. */
  async function scored(id: number, n: number): Promise<void> {
    const until = Date.now() + 300_000;
    for (;;) {
      const p = await progress(id);
      if (p.runs.length >= n && p.runs.at(-1) === "completed" && p.state === "scored") return;
      if (Date.now() > until) throw new Error(`submission ${id} not scored ${n} time(s) after 300 s: ${JSON.stringify(p)}\n${job.output().slice(-3000)}`);
      await new Promise((r) => setTimeout(r, 500));
    }
  }
  /** Follows the printed link as a plain HTTP client would; the session cookie it sets. */
  async function follow(url: string): Promise<{ status: number; location: string | null; cookie: string | null }> {
    const res = await fetch(url, { redirect: "manual" });
    return { status: res.status, location: res.headers.get("location"), cookie: /^agentboard_admin=([^;]+)/.exec(res.headers.get("set-cookie") ?? "")?.[1] ?? null };
  }

  it("prints a sign-in link on 127.0.0.1 that gives a session (the token is made for this run)", async () => {
    expect(link.startsWith(`${base}/admin/login?token=`)).toBe(true);
    const signedIn = await follow(link);
    expect(signedIn).toMatchObject({ status: 303, location: "/admin" });
    expect(signedIn.cookie).toBeTruthy();
    const admin = await (await fetch(`${base}/admin`, { headers: { cookie: `agentboard_admin=${signedIn.cookie}` } })).text();
    expect(admin).toContain("Sign out");
    // The demo's judge panel was calibrated on the demo's labelled cases before scoring (/about), and
    // its judges' disagreements wait on /admin/disputes: one per distinct request, as the generator counted.
    const text = (html: string) => html.replace(/<!-- -->/g, "").replace(/<[^>]+>/g, "").replace(/\s+/g, " ");
    expect(text(await (await fetch(`${base}/about`)).text())).toMatch(/panel:primary\(rules,literal\) — agrees with 600 labelled cases \d+% \[\d+, 100\], κ 0\.99 \[0\.98, 1\.00\]/);
    const truth = JSON.parse(readFileSync(path.join(checkout, "benchmarks/demo/judge-truth.json"), "utf8")) as { panel: { distinctDisputedRequests: number } };
    expect(truth.panel.distinctDisputedRequests).toBeGreaterThan(0);
    const open = await database.db.select({ key: gradeDisputes.key }).from(gradeDisputes).where(isNull(gradeDisputes.decisionOutcome));
    expect(open).toHaveLength(truth.panel.distinctDisputedRequests);
    // The page lists them a page at a time, each with both judges' grades.
    const disputes = text(await (await fetch(`${base}/admin/disputes`, { headers: { cookie: `agentboard_admin=${signedIn.cookie}` } })).text());
    // The heading counts every open dispute, and says when only the oldest page of them is shown.
    const all = truth.panel.distinctDisputedRequests;
    expect(disputes).toContain(`Open (${all})`);
    if (all > DISPUTES_PAGE) expect(disputes).toContain(`The oldest ${DISPUTES_PAGE} of ${all} are shown`);
    expect(disputes).toMatch(/rules: pass .*literal: fail the answer is not the reference value alone/);
    // A wrong token gets no session.
    expect(await follow(link.replace(/token=[^&]+/, "token=not-the-token"))).toMatchObject({ status: 303, location: "/admin?error=token", cookie: null });
    // Loaded by another site's page (an image, a redirect), the link is refused and counts no failure.
    const crossSite = await fetch(link, { redirect: "manual", headers: { "sec-fetch-site": "cross-site" } });
    expect(crossSite.status).toBe(403);
    expect(crossSite.headers.get("set-cookie")).toBeNull();
  });

  it("scores a submission sent with ./agentboard submit, and a rescore posted to /admin, with no other command", async () => {
    const bundle = path.join(checkout, `bundle-${engine}`);
    cpSync(path.join(checkout, "benchmarks/demo/submissions/weak-agent"), bundle, { recursive: true });
    writeFileSync(path.join(bundle, "metadata.json"), JSON.stringify({ agent_name: agent, models: ["m"], maintainer: "lab" }));
    const submit = spawnSync(path.join(checkout, "agentboard"), ["submit", bundle, "--benchmark", "benchmarks/demo"], { cwd: checkout, env: { ...process.env, ...database.env }, encoding: "utf8" });
    expect(submit.status, submit.stderr).toBe(0);
    const id = (await submissionId())!;
    expect(JSON.parse(submit.stdout)).toMatchObject({ submissionId: id, state: "queued" });
    await scored(id, 1);

    const cookie = (await follow(link)).cookie!;
    const rescore = await fetch(`${base}/admin/actions`, {
      method: "POST",
      // Confirmed as the admin page's confirmation step sends it (the state the maintainer saw).
      body: new URLSearchParams({ submissionId: String(id), action: "rescore", confirm: "scored" }),
      headers: { origin: base, cookie: `agentboard_admin=${cookie}` },
      redirect: "manual",
    });
    expect(rescore.headers.get("location")).toBe(`/admin?done=${encodeURIComponent(`rescore #${id}`)}`);
    await scored(id, 2);
    expect(job.output()).toMatch(new RegExp(`worker: job \\d+: `));
  }, 660_000);

  it("in chromium, the printed link opens /admin signed in, and a rescore clicked there is scored", async () => {
    browser = await launchBrowser();
    const id = (await submissionId())!;
    const page = await openPage(browser, link);
    await page.waitForURL(`${base}/admin`);
    await page.getByRole("button", { name: "Sign out" }).waitFor();
    await screenshot(page, `main-job-admin-${engine}`);
    await page.getByLabel(`Rescore ${agent}`, { exact: true }).first().click();
    // A rescore may ask for confirmation first (as reject and withdraw do): confirm it.
    await page.waitForURL(/done=rescore|confirm=rescore/);
    if (page.url().includes("confirm=rescore")) {
      await page.locator("#confirm").getByRole("button", { name: new RegExp(`Rescore ${agent}`) }).click();
      await page.waitForURL(/done=rescore/);
    }
    await scored(id, 3);
    await page.reload({ waitUntil: "networkidle" });
    expect(await page.getByTestId(`review-${id}`).textContent()).toMatch(/scored/);
  }, 660_000);

  it("stops the server and the worker on Ctrl-C; started again on a non-loopback address it makes no token and prints no link", async () => {
    expect([0, "SIGINT"]).toContain(await ctrlC(job));
    expect(job.output()).not.toMatch(/stopped at start-up|the server stopped|the worker stopped \(/);
    expect(await fetch(base).then(() => "answered", () => "closed")).toBe("closed");

    const port = await freePort();
    job = startMainJob(["--host", "0.0.0.0", "--port", String(port)], database.env);
    await job.waitFor(/A worker scores what arrives/);
    const out = job.output();
    expect(out).toMatch(/Maintainer sign-in is off: on 0\.0\.0\.0 no token is made for you\. Set one, e\.g\. AGENTBOARD_ADMIN_TOKEN=/);
    expect(out).not.toMatch(/token=|\/admin\/login/);
    // A restart: the demo is not rebuilt, nothing is loaded twice.
    expect(out).toMatch(/unchanged since its last build .*: not rebuilt/);
    expect(out.match(/already loaded: nothing changed/g)).toHaveLength(2);
    const local = `http://127.0.0.1:${port}`;
    expect(await (await fetch(`${local}/admin`)).text()).toContain("Sign-in is disabled on this server");
    // The link's path is not answered off loopback: no session, whatever the token.
    const guess = await fetch(`${local}/admin/login?token=anything`, { redirect: "manual" });
    expect(guess.headers.get("set-cookie")).toBeNull();
    expect(guess.status).not.toBe(303);
    // A worker that cannot stop (frozen here: it takes no signal) is killed 10 s after Ctrl-C, and named.
    const worker = spawnSync("pgrep", ["-g", String(job.process.pid), "-f", "scripts/cli.ts worker"], { encoding: "utf8" }).stdout.trim().split("\n")[0];
    expect(worker).toMatch(/^\d+$/);
    process.kill(Number(worker), "SIGSTOP");
    expect([0, "SIGINT"]).toContain(await ctrlC(job));
    expect(job.output()).toContain("the worker did not stop within 10 s: killed");
  }, 900_000);
});
