/**
 * Issue 26, item 3: a submission whose webhook delivery never arrived is not lost. The real
 * `worker` command (its own process, GitHub configured) reconciles: it lists the repository's
 * open submission issues updated since its last reconcile and reads each as its delivery would
 * have been read, once per period across workers (a named lease), surviving GitHub's failures
 * (tried again next period), at most GITHUB_RECONCILE_MAX_PAGES pages per label. Against the
 * local fake GitHub and file servers, on each engine.
 */
import path from "node:path";
import { like } from "drizzle-orm";
import { beforeEach, describe, expect, it } from "vitest";
import { githubDeliveries, leases, submissions } from "@/db/schema";
import { SUBMISSION_LABEL } from "@/lib/github/issue-form";
import { reconcileRepository } from "@/lib/submissions/github-reconcile";
import { acquireLease, releaseLease } from "@/lib/submissions/named-leases";
import { ENGINES, type TestDatabase } from "../helpers/engines";
import type { FakeFileServer } from "../helpers/fake-file-server";
import type { FakeGitHubServer } from "../helpers/fake-github-server";
import { GOOD_ZIP, issueForm, statusComments as statusCommentsOf, useGitHubIntake } from "../helpers/github-intake-fixture";
import { runCli } from "../helpers/run-cli";

describe.each(ENGINES)("GitHub reconcile on %s", (engine) => {
  let t: TestDatabase, gh: FakeGitHubServer, files: FakeFileServer, env: Record<string, string>;
  // The real clock, as the `worker` command's: they share the reconcile lease.
  const fx = useGitHubIntake(engine);

  beforeEach(() => {
    ({ t, gh, files } = fx);
    // The worker command's environment: this database, these servers, its own folders.
    env = { ...t.env, ...fx.env, AGENTBOARD_STORAGE_URL: path.join(fx.dir, "storage"), AGENTBOARD_CACHE_DIR: path.join(fx.dir, "cache") };
  });

  const form = () => issueForm({ zipUrl: files.url(GOOD_ZIP) });
  const statusComments = (issue: number) => statusCommentsOf(gh, issue);
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
    const ctx = fx.intake;
    const repo = fx.repo;
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
    const workers = await Promise.all([0, 1, 2].map(() => fx.createIntake()));
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
