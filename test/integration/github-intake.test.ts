/**
 * Submissions from GitHub issues, end to end on each engine (a SQLite file, a Postgres
 * database): octokit talks to a local fake GitHub, bundles come from a local file server (the
 * test-only loopback switch), the worker scores with the mini benchmark.
 */
import { eq } from "drizzle-orm";
import { beforeEach, describe, expect, it } from "vitest";
import type { Db } from "@/db/client";
import { auditLog, githubDeliveries, githubIssues, submissions } from "@/db/schema";
import type { RepoRef } from "@/lib/github/github-client";
import { SUBMISSION_LABEL, type IssueFormValues } from "@/lib/github/issue-form";
import { pollRepository, processPendingDeliveries, recordDelivery, type GitHubIntake } from "@/lib/submissions/github-intake";
import { applyReviewAction, reviewAction } from "@/lib/submissions/review";
import { TransitionError } from "@/lib/submissions/transitions";
import type { FakeFileServer } from "../helpers/fake-file-server";
import type { FakeGitHubServer } from "../helpers/fake-github-server";
import { ENGINES } from "../helpers/engines";
import { GOOD_ZIP, issueForm, scoreQueued, statusComments, useGitHubIntake } from "../helpers/github-intake-fixture";
import { GOOD_BUNDLE, tickingClock } from "../helpers/mini-fixtures";
import { buildZip, zipFolder } from "../helpers/zip-writer";

const now = tickingClock(Date.UTC(2026, 10, 22));

describe.each(ENGINES)("GitHub intake on %s", (engine) => {
  let db: Db, gh: FakeGitHubServer, repo: RepoRef, files: FakeFileServer, ctx: GitHubIntake;
  const fx = useGitHubIntake(engine, { now });

  beforeEach(() => {
    ({ db, gh, repo, files, intake: ctx } = fx);
    files.serve("/better.zip", zipFolder(GOOD_BUNDLE, (n, t) => (n.endsWith("metadata.json") ? t.replace("mini-agent", "mini-agent v2") : t.replace("Ocean Queen.", "Ocean Queen!"))));
    expect(ctx.versionId).toBe(fx.versionId); // the default benchmark
  });

  const form = (over: Partial<IssueFormValues> = {}): string => issueForm({ zipUrl: files.url(GOOD_ZIP), ...over });

  function statusComment(issue: number) {
    const mine = statusComments(gh, issue);
    expect(mine).toHaveLength(1); // one status comment, edited in place
    return mine[0]!.body;
  }

  const subs = () => db.select().from(submissions).orderBy(submissions.id);

  const score = () => scoreQueued(db, now);

  describe("GitHub intake", () => {
    it("takes an issue to a published entry, reporting every step on the issue", async () => {
      const issue = gh.addIssue({ title: "[Submission]: mini-agent", body: form(), labels: [SUBMISSION_LABEL], user: "sub-mitter" });
      gh.setPermission("maintainer-1", "write");

      const first = await pollRepository(ctx, repo);
      expect(first).toMatchObject({ issues: 1, changed: 1 });
      expect(await subs()).toHaveLength(1);
      expect((await subs())[0]).toMatchObject({ state: "queued", source: "github", agentName: "mini-agent", maintainer: "Ada Lab", revision: 1 });
      expect(statusComment(issue.number)).toContain("queued for scoring");
      expect(gh.labels(issue.number)).toEqual(expect.arrayContaining([SUBMISSION_LABEL, "agentboard: queued"]));

      await score();
      await pollRepository(ctx, repo);
      const scored = statusComment(issue.number);
      expect(scored).toContain("waiting for a maintainer");
      expect(scored).toMatch(/\| \*\*Overall\*\* \| \*\*\d+\.\d\*\* \| \d+\.\d–\d+\.\d \|/);
      expect(scored).toContain(`https://board.example/submissions/${(await subs())[0]!.id}`);
      expect(gh.labels(issue.number)).toContain("agentboard: scored");
      expect(gh.labels(issue.number)).not.toContain("agentboard: queued");

      const cmd = gh.addComment(issue.number, { body: "/approve", user: "maintainer-1" });
      await pollRepository(ctx, repo);
      expect((await subs())[0]!.state).toBe("published");
      expect(gh.reactions(cmd.id).map((r) => r.content)).toEqual(["+1"]);
      expect(statusComment(issue.number)).toContain("Published");
      expect((await db.select().from(auditLog)).some((a) => a.actor === "github:maintainer-1" && a.toState === "published")).toBe(true);

      // A second pass over the same issue and comments changes nothing.
      const before = gh.requests.filter((r) => r.method !== "GET").length;
      const again = await pollRepository(ctx, repo);
      expect(again).toMatchObject({ changed: 0, commands: 0, synced: 0 });
      expect(gh.requests.filter((r) => r.method !== "GET").length).toBe(before);
      expect(await subs()).toHaveLength(1);
    });

    it("refuses /approve from someone without write access, politely, and changes nothing", async () => {
      const issue = gh.addIssue({ body: form(), labels: [SUBMISSION_LABEL] });
      await pollRepository(ctx, repo);
      await score();
      gh.setPermission("passer-by", "read");
      const cmd = gh.addComment(issue.number, { body: "/approve", user: "passer-by" });
      gh.addComment(issue.number, { body: "/approve", user: "stranger" }); // 404 on the permission endpoint
      await pollRepository(ctx, repo);
      expect((await subs())[0]!.state).toBe("scored");
      const replies = gh.comments(issue.number).filter((c) => c.body.includes("can only be used by"));
      expect(replies).toHaveLength(2);
      expect(replies[0]!.body).toContain("`passer-by`");
      expect(gh.reactions(cmd.id).map((r) => r.content)).toEqual(["confused"]);
    });

    it("lets the author withdraw and a maintainer reject with a reason", async () => {
      const a = gh.addIssue({ body: form(), labels: [SUBMISSION_LABEL], user: "author-a" });
      const b = gh.addIssue({ body: form({ zipUrl: files.url("/better.zip") }), labels: [SUBMISSION_LABEL], user: "author-b" });
      gh.setPermission("author-a", "read");
      gh.setPermission("lead", "admin");
      await pollRepository(ctx, repo);
      await score();
      gh.addComment(a.number, { body: "/withdraw changed my mind", user: "author-a" });
      gh.addComment(b.number, { body: "/reject The outputs use the ground truth.\nSee the logs.", user: "lead" });
      await pollRepository(ctx, repo);
      const byIssue = async (n: number) => {
        const [row] = await db.select().from(githubIssues).where(eq(githubIssues.number, n));
        const [sub] = await db.select().from(submissions).where(eq(submissions.id, row!.submissionId!));
        return sub!;
      };
      expect((await byIssue(a.number)).state).toBe("withdrawn");
      expect((await byIssue(b.number)).state).toBe("rejected");
      expect(statusComment(b.number)).toContain("Reason: The outputs use the ground truth. See the logs.");
      expect(gh.labels(b.number)).toContain("agentboard: rejected");
    });

    it("lets a maintainer /restore a withdrawn entry, and not its author", async () => {
      const issue = gh.addIssue({ body: form(), labels: [SUBMISSION_LABEL], user: "author-a" });
      gh.setPermission("author-a", "read");
      gh.setPermission("lead", "write");
      await pollRepository(ctx, repo);
      await score();
      gh.addComment(issue.number, { body: "/withdraw wrong bundle", user: "author-a" });
      await pollRepository(ctx, repo);
      expect((await subs())[0]!.state).toBe("withdrawn");
      expect(statusComment(issue.number)).toContain("`/restore`");
      gh.addComment(issue.number, { body: "/restore", user: "author-a" });
      await pollRepository(ctx, repo);
      expect((await subs())[0]!.state).toBe("withdrawn");
      expect(gh.comments(issue.number).some((c) => c.body.includes("`/restore` can only be used by maintainers"))).toBe(true);
      gh.addComment(issue.number, { body: "/restore the bundle was right after all", user: "lead" });
      await pollRepository(ctx, repo);
      expect((await subs())[0]!.state).toBe("scored");
      const audit = (await db.select().from(auditLog).where(eq(auditLog.submissionId, (await subs())[0]!.id)).orderBy(auditLog.id)).at(-1)!;
      expect(audit).toMatchObject({ actor: "github:lead", fromState: "withdrawn", toState: "scored", reason: "the bundle was right after all" });
      expect(gh.labels(issue.number)).toContain("agentboard: scored");
    });

    it("takes /rescore as the same review action the admin page applies", async () => {
      const issue = gh.addIssue({ body: form(), labels: [SUBMISSION_LABEL] });
      gh.setPermission("lead", "maintain");
      await pollRepository(ctx, repo);
      await score();
      gh.addComment(issue.number, { body: "/rescore", user: "lead" });
      await pollRepository(ctx, repo);
      const id = (await subs())[0]!.id;
      expect((await subs())[0]!.state).toBe("queued");
      const audit = (await db.select().from(auditLog).where(eq(auditLog.submissionId, id)).orderBy(auditLog.id)).at(-1)!;
      expect(audit).toMatchObject({ actor: "github:lead", toState: "queued", reason: "rescore requested on GitHub" });

      // The admin page's form names the same actions; an empty rejection is refused by the action itself.
      expect(reviewAction("publish")).toBeNull();
      await expect(applyReviewAction(db, id, reviewAction("reject", "")!, { actor: "maintainer (admin page)", at: now() })).rejects.toThrow(TransitionError);
      await applyReviewAction(db, id, reviewAction("withdraw", "duplicate entry")!, { actor: "maintainer (admin page)", at: now() });
      expect((await subs())[0]!.state).toBe("withdrawn");
      await pollRepository(ctx, repo);
      expect(statusComment(issue.number)).toContain("Reason: duplicate entry");
    });

    it("makes an edited ZIP link a new revision of the same submission", async () => {
      const issue = gh.addIssue({ body: form(), labels: [SUBMISSION_LABEL] });
      await pollRepository(ctx, repo);
      await score();
      await pollRepository(ctx, repo);
      const firstSha = (await subs())[0]!.bundleSha256;
      gh.editIssue(issue.number, { body: form({ zipUrl: files.url("/better.zip"), agentName: "mini-agent v2" }) });
      await pollRepository(ctx, repo);
      expect(await subs()).toHaveLength(1);
      expect((await subs())[0]).toMatchObject({ revision: 2, state: "queued", agentName: "mini-agent v2" });
      expect((await subs())[0]!.bundleSha256).not.toBe(firstSha);
      expect(statusComment(issue.number)).toContain("revision 2");
      // Processing the same body again is a no-op.
      expect((await pollRepository(ctx, repo)).changed).toBe(0);
    });

    it("names the field of a malformed form, then accepts the fixed one", async () => {
      const issue = gh.addIssue({ body: form({ zipUrl: "ftp://example.org/x.zip", metadata: '{"a": 1,,}' }), labels: [SUBMISSION_LABEL] });
      await pollRepository(ctx, repo);
      expect(await subs()).toHaveLength(0);
      const c = statusComment(issue.number);
      expect(c).toContain("needs changes");
      expect(c).toContain("ZIP link");
      expect(c).toContain("Metadata JSON");
      expect(gh.labels(issue.number)).toContain("agentboard: needs changes");
      gh.editIssue(issue.number, { body: form() });
      await pollRepository(ctx, repo);
      expect(await subs()).toHaveLength(1);
      expect(gh.labels(issue.number)).not.toContain("agentboard: needs changes");
    });

    it("escapes hostile text in comments and survives a 1 MB body", async () => {
      const issue = gh.addIssue({ body: form({ agentName: '<script>alert("x")</script> @everyone' }), labels: [SUBMISSION_LABEL] });
      const big = gh.addIssue({ body: "### Agent name\n\n" + "A".repeat(1024 * 1024), labels: [SUBMISSION_LABEL] });
      await pollRepository(ctx, repo);
      const c = statusComment(issue.number);
      expect(c).not.toContain("<script>");
      expect(c).toContain("&lt;script&gt;");
      expect(c).not.toMatch(/@everyone/);
      expect((await subs())[0]!.agentName).toBe('<script>alert("x")</script> @everyone'); // stored as data, escaped where shown
      expect(statusComment(big.number)).toContain("Issue body");
    });

    it("refuses disallowed hosts, private addresses and redirects to them", async () => {
      files.redirectToPrivate("/to-metadata.zip", "169.254.169.254");
      const cases = [
        { url: "https://evil.example/x.zip", expect: "host_not_allowed" },
        { url: files.url("/to-metadata.zip"), expect: "private_address" },
      ];
      const strict = { ...ctx, settings: { ...ctx.settings, allowedHosts: ["127.0.0.1", "169.254.169.254"] } };
      for (const c of cases) gh.addIssue({ body: form({ zipUrl: c.url }), labels: [SUBMISSION_LABEL] });
      await pollRepository(strict, repo);
      expect(await subs()).toHaveLength(0);
      expect(statusComment(1)).toContain("host_not_allowed");
      expect(statusComment(2)).toContain("private_address");
      // Without the test-only switch even 127.0.0.1 over http is refused.
      const noSwitch = { ...ctx, settings: { ...ctx.settings, allowLoopbackHttp: false } };
      const third = gh.addIssue({ body: form(), labels: [SUBMISSION_LABEL] });
      await pollRepository(noSwitch, repo);
      expect(statusComment(third.number)).toMatch(/scheme|private_address/);
    });

    it("reports a ZIP bomb and a path-traversal entry as validation errors", async () => {
      files.serve("/bomb.zip", buildZip([{ name: "output/capability_2_dashboard_apis/harbor.json", data: Buffer.alloc(5 * 1024 * 1024, 32) }]));
      files.serve("/traversal.zip", buildZip([{ name: "../../etc/passwd.json", data: "[]" }]));
      const bomb = gh.addIssue({ body: form({ zipUrl: files.url("/bomb.zip") }), labels: [SUBMISSION_LABEL] });
      const trav = gh.addIssue({ body: form({ zipUrl: files.url("/traversal.zip") }), labels: [SUBMISSION_LABEL] });
      await pollRepository(ctx, repo);
      expect((await subs()).map((s) => s.state)).toEqual(["invalid", "invalid"]);
      expect(statusComment(bomb.number)).toMatch(/ratio|compression/i);
      expect(statusComment(trav.number)).toMatch(/\.\./);
      expect(gh.labels(trav.number)).toContain("agentboard: invalid");
    });

    it("processes webhook deliveries once, however often they arrive", async () => {
      const issue = gh.addIssue({ body: form(), labels: [SUBMISSION_LABEL] });
      const payload = {
        action: "opened",
        repository: { full_name: "bench-org/bench" },
        issue: { number: issue.number, title: issue.title, body: issue.body, state: "open", html_url: "https://github.com/bench-org/bench/issues/1", labels: [{ name: SUBMISSION_LABEL }], user: { login: "submitter" } },
      };
      expect(await recordDelivery(db, { id: "d-1", event: "issues", payload }, now())).toBe("queued");
      expect(await recordDelivery(db, { id: "d-1", event: "issues", payload }, now())).toBe("duplicate");
      expect(await recordDelivery(db, { id: "d-2", event: "ping", payload: { zen: "hi" } }, now())).toBe("queued");
      expect(await processPendingDeliveries(ctx)).toBe(2);
      expect(await processPendingDeliveries(ctx)).toBe(0);
      expect(await subs()).toHaveLength(1);
      expect(statusComment(issue.number)).toContain("queued for scoring");
      expect((await db.select().from(githubDeliveries)).map((d) => d.status).sort()).toEqual(["done", "ignored"]);
    });

    it("retries a delivery when GitHub fails, and keeps it failed after three attempts", async () => {
      const issue = gh.addIssue({ body: form(), labels: [SUBMISSION_LABEL] });
      const payload = { action: "opened", repository: { full_name: "bench-org/bench" }, issue: { number: issue.number, body: issue.body, labels: [SUBMISSION_LABEL], user: { login: "submitter" } } };
      await recordDelivery(db, { id: "d-9", event: "issues", payload }, now());
      gh.failNext("POST", /comments$/, 500, 10);
      for (let i = 0; i < 4; i++) await processPendingDeliveries(ctx);
      const [d] = await db.select().from(githubDeliveries).where(eq(githubDeliveries.deliveryId, "d-9"));
      expect(d).toMatchObject({ status: "failed", attempts: 3 });
      expect(d!.error).toMatch(/500|Internal/i);
    });
  });
});
