/**
 * GitHub submissions against the production server: a signed webhook delivery is stored by
 * the server (which downloads nothing), the worker's GitHub pass makes it a queued submission
 * (and a status comment on the fake GitHub), the worker scores it, and a maintainer approves
 * it on /admin in a real browser, which puts the row on the leaderboard; the worker's next
 * pass mirrors "published" on the issue. The bundle is weak-agent's outputs under another name,
 * so it is flagged as a duplicate of weak-agent: the comment says so, and approving asks first.
 */
import http from "node:http";
import path from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { renderIssueFormBody, SUBMISSION_LABEL } from "@/lib/github/issue-form";
import { signWebhookBody } from "@/lib/github/webhook-signature";
import { createGitHubIntake, processPendingDeliveries, syncAll } from "@/lib/submissions/github-intake";
import { githubSettingsFromEnv } from "@/lib/submissions/github-settings";
import { STATUS_MARKER } from "@/lib/submissions/github-status";
import { createScoringDeps } from "@/lib/submissions/scoring-deps";
import { runWorker } from "@/lib/submissions/worker";
import { DEMO_DIR } from "@/scripts/demo/build-demo";
import { ENGINES } from "../helpers/engines";
import { startFakeFileServer, type FakeFileServer } from "../helpers/fake-file-server";
import { startFakeGitHubServer, type FakeGitHubServer } from "../helpers/fake-github-server";
import { zipFolder } from "../helpers/zip-writer";
import { criticalViolations, launchBrowser, screenshot, startApp, type App } from "./harness";

const SECRET = "webhook-secret-for-tests";
const ADMIN = "maintainer-token-for-tests";
const AGENT = "gh <b>agent</b>";

describe.each(ENGINES)("GitHub submissions on %s", (engine) => {
  let gh: FakeGitHubServer;
  let files: FakeFileServer;
  let app: App;
  let browser: Browser;
  let env: Record<string, string>;

  beforeAll(async () => {
    gh = await startFakeGitHubServer();
    files = await startFakeFileServer();
    files.serve("/entry.zip", zipFolder(path.join(DEMO_DIR, "submissions/weak-agent"), (n, t) => (n === "metadata.json" ? JSON.stringify({ agent_name: "from the zip" }) : t)));
    env = {
      GITHUB_TOKEN: gh.token,
      GITHUB_API_URL: gh.baseUrl,
      GITHUB_REPOSITORY: `${gh.owner}/${gh.repo}`,
      GITHUB_WEBHOOK_SECRET: SECRET,
      BUNDLE_ALLOWED_HOSTS: "127.0.0.1",
      AGENTBOARD_TEST_ALLOW_LOOPBACK: "1",
      AGENTBOARD_ADMIN_TOKEN: ADMIN,
    };
    // A form the worker cannot read as a submission form (no ZIP-link field): named on /admin.
    gh.setFile(".github/ISSUE_TEMPLATE/feedback.yml", ["name: Feedback", "description: Tell us what you think", "labels: [feedback]", "body:", "  - type: textarea", "    id: thoughts", "    attributes:", "      label: Your thoughts"].join("\n"));
    app = await startApp(undefined, env, engine);
    browser = await launchBrowser();
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    await app?.stop();
    await gh?.close();
    await files?.close();
  });

  function deliver(body: string, headers: Record<string, string>) {
    return fetch(`${app.url}/api/github/webhook`, { method: "POST", body, headers: { "content-type": "application/json", ...headers } });
  }

  async function until<T>(probe: () => T | undefined | Promise<T | undefined>, what: string, ms = 30_000): Promise<T> {
    const end = Date.now() + ms;
    for (;;) {
      const v = await probe();
      if (v !== undefined) return v;
      if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  const status = (n: number) => gh.comments(n).find((c) => c.body.startsWith(STATUS_MARKER))?.body;

  /** What the `worker` command's GitHub pass does between jobs: stored deliveries, then status. */
  async function workerGitHubPass(): Promise<void> {
    const intake = await createGitHubIntake(app.db, githubSettingsFromEnv(env), { connect: { retry: false, throttle: false } });
    await processPendingDeliveries(intake);
    await syncAll(intake, { owner: gh.owner, repo: gh.repo });
  }

  describe("GitHub submissions on the running app", () => {
    let issueNumber = 0;

    it("checks webhook signatures and drops replayed deliveries", async () => {
      const issue = gh.addIssue({ title: "[Submission]: gh agent", labels: [SUBMISSION_LABEL], user: "sub", body: renderIssueFormBody({ agentName: AGENT, maintainer: "Lab", models: ["m"], description: "d", zipUrl: files.url("/entry.zip") }) });
      issueNumber = issue.number;
      const body = JSON.stringify({
        action: "opened",
        repository: { full_name: `${gh.owner}/${gh.repo}` },
        issue: { number: issue.number, title: issue.title, body: issue.body, state: "open", html_url: `https://github.com/${gh.owner}/${gh.repo}/issues/${issue.number}`, labels: [{ name: SUBMISSION_LABEL }], user: { login: "sub" } },
      });
      const headers = { "x-github-event": "issues", "x-github-delivery": "delivery-1", "x-hub-signature-256": signWebhookBody(SECRET, body) };

      expect((await deliver(body, { ...headers, "x-hub-signature-256": signWebhookBody("wrong", body) })).status).toBe(401);
      const { "x-hub-signature-256": _, ...unsigned } = headers;
      expect((await deliver(body, unsigned)).status).toBe(401);
      expect((await deliver(body + " ", headers)).status).toBe(401); // body changed after signing
      const ok = await deliver(body, headers);
      expect(ok.status).toBe(202);
      const replay = await deliver(body, headers);
      expect(replay.status).toBe(200);
      expect(await replay.json()).toMatchObject({ status: "duplicate" });
      // The server only stored it: no download, no comment until the worker's pass.
      expect(files.requests).toHaveLength(0);
      expect(status(issue.number)).toBeUndefined();

      await workerGitHubPass();
      const comment = await until(() => status(issue.number), "the status comment");
      expect(comment).toContain("queued for scoring");
      expect(comment).toContain("&lt;b&gt;");
      // The label follows the comment: wait for it rather than race it.
      await until(() => (gh.labels(issue.number).includes("agentboard: queued") ? true : undefined), "the queued label");
    });

    it("lets a maintainer approve on /admin, which publishes the row and mirrors it on the issue", async () => {
      // The worker scores it, and mirrors the result on the issue.
      const db = app.db;
      const deps = createScoringDeps(db);
      try {
        await runWorker(db, deps, { untilIdle: true });
        const settings = githubSettingsFromEnv(env);
        await syncAll(await createGitHubIntake(db, settings, { connect: { retry: false, throttle: false } }), { owner: gh.owner, repo: gh.repo });
      } finally {
        await deps.close();
      }
      expect(status(issueNumber)).toContain("waiting for a maintainer");
      expect(status(issueNumber)).toMatch(/Integrity flags \(1\)[\s\S]*\*\*duplicate\*\*: 100% of this entry's answered items .* \\\(weak-agent\\\)/);

      const page = await browser.newPage();
      await page.goto(`${app.url}/`);
      expect(await page.getByText(AGENT).count()).toBe(0);

      await page.goto(`${app.url}/admin`);
      expect(await criticalViolations(page)).toEqual([]);
      await page.getByLabel("Maintainer token").fill("not-the-token");
      await page.getByRole("button", { name: "Sign in" }).click();
      await page.waitForURL(/error=token/);
      await page.getByText("That token is not right.").waitFor();

      await page.getByLabel("Maintainer token").fill(ADMIN);
      await page.getByRole("button", { name: "Sign in" }).click();
      await page.getByRole("link", { name: `Approve ${AGENT}` }).waitFor();
      const cookie = (await page.context().cookies()).find((c) => c.name === "agentboard_admin");
      expect(cookie).toMatchObject({ httpOnly: true, sameSite: "Strict" });
      expect(await criticalViolations(page)).toEqual([]);
      await screenshot(page, "admin-queue");
      // The worker's pass read the repository's forms: the one it cannot use is named, with why.
      await page.getByText(`Issue forms of ${gh.owner}/${gh.repo}`).waitFor();
      expect(await page.locator("li", { hasText: ".github/ISSUE_TEMPLATE/feedback.yml" }).textContent()).toMatch(/no ZIP-link field/);

      // Flagged: approving asks first, with the flags in view.
      await page.getByRole("link", { name: `Approve ${AGENT}` }).click();
      await page.waitForURL(/confirm=approve/);
      expect(await page.getByTestId("confirm-flags").textContent()).toMatch(/duplicate.*\(weak-agent\), submitted before it/s);
      expect(await criticalViolations(page)).toEqual([]);
      await page.locator("#confirm").getByRole("button", { name: `Approve ${AGENT}` }).click();
      await page.waitForURL(/done=approve/);
      await workerGitHubPass(); // the server sends nothing to GitHub; the worker mirrors the approval
      await page.goto(`${app.url}/`);
      expect(await page.getByText(AGENT).count()).toBeGreaterThan(0);
      // The name stayed text: no <b> element holds its inner word (the board's own score cells use <b> for the score).
      expect(await page.evaluate(() => [...document.querySelectorAll("b")].some((b) => b.textContent === "agent"))).toBe(false);

      const published = await until(() => (status(issueNumber)?.includes("Published") ? status(issueNumber) : undefined), "the published status on the issue");
      expect(published).toMatch(/\*\*Overall\*\*/);
      expect(gh.labels(issueNumber)).toContain("agentboard: published");

      await page.goto(`${app.url}/admin`);
      await page.getByRole("button", { name: "Sign out" }).click();
      await page.getByLabel("Maintainer token").waitFor();
      await page.close();
    });

    it("refuses actions without a session or from another site, and locks out a token guesser", async () => {
      const post = (p: string, form: Record<string, string>, headers: Record<string, string> = { origin: app.url }) =>
        fetch(`${app.url}${p}`, { method: "POST", body: new URLSearchParams(form), headers, redirect: "manual" });
      const noSession = await post("/admin/actions", { submissionId: "1", action: "withdraw" });
      expect(noSession.headers.get("location")).toContain("error=session");
      expect((await post("/admin/login", { token: ADMIN }, { origin: "https://evil.example" })).status).toBe(403);
      let last = "";
      for (let i = 0; i < 6; i++) last = (await post("/admin/login", { token: `guess-${i}` })).headers.get("location") ?? "";
      expect(last).toContain("error=locked");
      // Locked out: even the right token is refused for now.
      expect((await post("/admin/login", { token: ADMIN })).headers.get("location")).toContain("error=locked");
    });

    it("locks out the guessing address only: a maintainer at another address still signs in (no proxy in front)", async () => {
      // Loopback has a whole /8: each source address is a client of its own to the server.
      const postFrom = (localAddress: string, form: Record<string, string>, extra: Record<string, string> = {}) =>
        new Promise<{ status: number; location: string; cookie: string }>((resolve, reject) => {
          const body = new URLSearchParams(form).toString();
          const req = http.request(`${app.url}/admin/login`, { method: "POST", localAddress, headers: { ...extra, origin: app.url, "content-type": "application/x-www-form-urlencoded", "content-length": Buffer.byteLength(body) } }, (res) => {
            res.resume();
            res.on("end", () => resolve({ status: res.statusCode ?? 0, location: String(res.headers.location ?? ""), cookie: String(res.headers["set-cookie"] ?? "") }));
          });
          req.on("error", reject);
          req.end(body);
        });
      let last = "";
      // A forged client header, new each time, changes nothing: the server replaces it.
      for (let i = 0; i < 6; i++) last = (await postFrom("127.0.0.2", { token: `guess-${i}` }, { "x-agentboard-client": `forged:10.0.0.${i}` })).location;
      expect(last).toContain("error=locked");
      expect((await postFrom("127.0.0.2", { token: ADMIN })).location).toContain("error=locked");
      const maintainer = await postFrom("127.0.0.3", { token: ADMIN });
      expect(maintainer.location).not.toContain("error=");
      expect(maintainer.cookie).toMatch(/agentboard_admin=/);
    });
  });
});
