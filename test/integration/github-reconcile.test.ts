/**
 * Issue 26, item 3: a submission whose webhook delivery never arrived is not lost. The real
 * `worker` command (its own process, GitHub configured) reconciles: it lists the repository's
 * open submission issues updated since its last reconcile and reads each as its delivery would
 * have been read, once per period across workers (a named lease), surviving GitHub's failures
 * (tried again next period), at most GITHUB_RECONCILE_MAX_PAGES pages per label. Against the
 * local fake GitHub and file servers, on each engine.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { like } from "drizzle-orm";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { githubDeliveries, leases, submissions } from "@/db/schema";
import { renderIssueFormBody, SUBMISSION_LABEL } from "@/lib/github/issue-form";
import { registerBenchmark } from "@/lib/submissions/benchmarks";
import { createGitHubIntake } from "@/lib/submissions/github-intake";
import { reconcileRepository } from "@/lib/submissions/github-reconcile";
import { githubSettingsFromEnv } from "@/lib/submissions/github-settings";
import { acquireLease, releaseLease } from "@/lib/submissions/named-leases";
import { STATUS_MARKER } from "@/lib/submissions/github-status";
import { ENGINES, freshDatabase, type TestDatabase } from "../helpers/engines";
import { startFakeFileServer, type FakeFileServer } from "../helpers/fake-file-server";
import { startFakeGitHubServer, type FakeGitHubServer } from "../helpers/fake-github-server";
import { runCli } from "../helpers/run-cli";
import { zipFolder } from "../helpers/zip-writer";

const repoRoot = path.resolve(import.meta.dirname, "../..");
const mini = path.join(repoRoot, "test/fixtures/mini-benchmark");
const good = path.join(repoRoot, "test/fixtures/mini-bundles/good");
const tmp = mkdtempSync(path.join(tmpdir(), "agentboard-gh-reconcile-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
let n = 0;

describe.each(ENGINES)("GitHub reconcile on %s", (engine) => {
  let t: TestDatabase;
  let gh: FakeGitHubServer;
  let files: FakeFileServer;
  let env: Record<string, string>;

  beforeEach(async () => {
    t = await freshDatabase(engine);
    await registerBenchmark(t.db, mini, { isDefault: true, now: new Date() });
    gh = await startFakeGitHubServer();
    files = await startFakeFileServer();
    files.serve("/good.zip", zipFolder(good));
    const home = path.join(tmp, `w-${n++}`);
    env = {
      ...t.env,
      GITHUB_TOKEN: gh.token,
      GITHUB_API_URL: gh.baseUrl,
      GITHUB_REPOSITORY: `${gh.owner}/${gh.repo}`,
      BUNDLE_ALLOWED_HOSTS: "127.0.0.1",
      AGENTBOARD_TEST_ALLOW_LOOPBACK: "1",
      AGENTBOARD_PUBLIC_URL: "https://board.example",
      AGENTBOARD_BUNDLE_DIR: path.join(home, "bundles"),
      AGENTBOARD_STORAGE_URL: path.join(home, "storage"),
      AGENTBOARD_CACHE_DIR: path.join(home, "cache"),
    };
  });

  afterEach(async () => {
    await gh.close();
    await files.close();
    await t.close();
  });

  const form = () => renderIssueFormBody({ agentName: "mini-agent", maintainer: "Ada Lab", models: ["test-model"], description: "A small agent.", zipUrl: files.url("/good.zip") });
  const statusComments = (issue: number) => gh.comments(issue).filter((c) => c.body.startsWith(STATUS_MARKER));
  const subs = () => t.db.select().from(submissions);
  const writes = () => gh.requests.filter((r) => r.method !== "GET").length;
  const listings = () => gh.requests.filter((r) => r.method === "GET" && r.path === `/repos/${gh.owner}/${gh.repo}/issues`);
  /** The period passes: the lease that keeps other workers from reconciling again runs out. */
  const periodPasses = () => t.db.update(leases).set({ expiresAt: new Date(Date.now() - 1_000) }).where(like(leases.name, "reconcile:%"));
  const worker = async (extra: Record<string, string> = {}) => {
    const run = await runCli(["worker", "--until-idle"], { ...env, ...extra });
    expect(run.code, run.stderr).toBe(0);
    return run;
  };

  it("picks up an issue whose delivery never arrived, scores it, and a later reconcile does nothing new", async () => {
    const issue = gh.addIssue({ title: "[Submission]: mini-agent", body: form(), labels: [SUBMISSION_LABEL], user: "sub-mitter" });
    expect(await t.db.select().from(githubDeliveries)).toHaveLength(0); // the delivery was lost

    const first = await worker();
    expect(await subs()).toMatchObject([{ source: "github", agentName: "mini-agent", state: "scored" }]);
    expect(first.stderr).toMatch(/reconcile bench-org\/bench: 1 issue\(s\) updated since the start, 1 changed/);
    expect(statusComments(issue.number)).toHaveLength(1);
    expect(statusComments(issue.number)[0]!.body).toContain("waiting for a maintainer");

    // Within the period, another worker does not reconcile again: not a single listing.
    const listed = listings().length;
    await worker();
    expect(listings()).toHaveLength(listed);

    // A period later, the next reconcile lists only what changed since the last one, reads the
    // issue again, and changes nothing: no second submission, comment, label or edit.
    await periodPasses();
    const before = writes();
    const again = await worker();
    expect(again.stderr).toMatch(/reconcile bench-org\/bench: 1 issue\(s\) updated since \d{4}-\d\d-\d\dT[\d:.]+Z, 0 changed/);
    const next = listings().slice(listed);
    expect(next.length).toBeGreaterThan(0);
    for (const r of next) expect(r.query).toMatchObject({ state: "open", sort: "updated", direction: "asc", since: expect.stringMatching(/^\d{4}-/) });
    expect(writes()).toBe(before);
    expect(await subs()).toHaveLength(1);
    expect(statusComments(issue.number)).toHaveLength(1);
  });

  it("survives GitHub failing the listing, and tries again the next period", async () => {
    const issue = gh.addIssue({ body: form(), labels: [SUBMISSION_LABEL] });
    gh.failNext("GET", new RegExp(`^/repos/${gh.owner}/${gh.repo}/issues$`), 502);
    const failed = await worker();
    expect(failed.stderr).toMatch(/reconcile bench-org\/bench: GitHub: list updated issues failed \(HTTP 502\).*tried again next period/);
    expect(await subs()).toHaveLength(0);

    // Not again within the period (a GitHub outage is not hammered by every worker's tick)…
    await worker();
    expect(await subs()).toHaveLength(0);
    // …and the next period reads it, from the start: the failed pass did not move the mark.
    await periodPasses();
    const retried = await worker();
    expect(retried.stderr).toMatch(/updated since the start, 1 changed/);
    expect(await subs()).toHaveLength(1);
    expect(statusComments(issue.number)).toHaveLength(1);
  });

  it("refuses a wrong reconcile setting at start-up, naming it", async () => {
    for (const [name, value] of [["GITHUB_RECONCILE_MS", "ten minutes"], ["GITHUB_RECONCILE_MAX_PAGES", "0"], ["GITHUB_WEBHOOK_MIN_BYTES_PER_SEC", "-1"]] as const) {
      const run = await runCli(["worker", "--until-idle"], { ...env, [name]: value });
      expect(run.code, `${name}=${value}`).toBe(2);
      expect(run.stderr).toContain(name);
      expect(run.stderr).toContain(`"${value}"`);
    }
  });

  it("does not move past an issue it could not read yet: the next reconcile reads it", async () => {
    const issue = gh.addIssue({ body: form(), labels: [SUBMISSION_LABEL] });
    const ctx = await createGitHubIntake(t.db, githubSettingsFromEnv(env), { connect: { retry: false, throttle: false } });
    const repo = { owner: gh.owner, repo: gh.repo };
    const options = { everyMs: 600_000, maxPages: 10 };
    // Another worker has the issue (its lease) while this reconcile runs.
    const held = await acquireLease(t.db, `issue:${gh.owner}/${gh.repo}#${issue.number}`, { holder: "another worker" });
    const first = await reconcileRepository(ctx, repo, options);
    expect(first).toMatchObject({ ran: true, issues: 1, changed: 0, retry: 1 });
    // The mark stays at the issue's last update, not the pass's start.
    expect(first.ran && Date.parse(first.mark!)).toBeLessThanOrEqual(Date.parse(issue.updatedAt));
    expect(await subs()).toHaveLength(0);

    await releaseLease(t.db, held!);
    await periodPasses();
    const second = await reconcileRepository(ctx, repo, options);
    expect(second).toMatchObject({ ran: true, since: first.ran ? first.mark : null, changed: 1, retry: 0 });
    expect(await subs()).toHaveLength(1);
    expect(statusComments(issue.number)).toHaveLength(1);
  });

  it("reconciles once per period across workers, reading at most the page cap per label", async () => {
    for (let i = 0; i < 3; i++) gh.addIssue({ body: "not a form", labels: [SUBMISSION_LABEL] });
    const settings = githubSettingsFromEnv(env);
    const workers = await Promise.all([0, 1, 2].map(() => createGitHubIntake(t.db, settings, { connect: { retry: false, throttle: false } })));
    const options = { everyMs: 600_000, maxPages: 2, perPage: 1 };
    const passes = await Promise.all(workers.map((w) => reconcileRepository(w, { owner: gh.owner, repo: gh.repo }, options)));
    expect(passes.filter((p) => p.ran)).toHaveLength(1);
    const pass = passes.find((p) => p.ran)!;
    expect(pass).toMatchObject({ issues: 2, changed: 2, complete: false });
    // Two pages of one issue for our label; the other submission label has none.
    expect(listings().filter((r) => r.query.labels === SUBMISSION_LABEL)).toHaveLength(2);
    // Each issue read got its one status comment (the form's problems); the third waits for the next pass.
    expect([1, 2, 3].map((i) => statusComments(i).length).sort()).toEqual([0, 1, 1]);
  });
});
