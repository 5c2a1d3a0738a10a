/**
 * Issue 28, part 1. The submission labels come from the repository itself: the worker reads its
 * issue forms (`.github/ISSUE_TEMPLATE/*.yml`, served by the fake GitHub's contents API), so an
 * issue written with VAKRA's current form (benchmark-output-submission), its older one
 * (agent-submission) or a fork's (its own label, the link field mapped by VAKRA's id) is read
 * with no GITHUB_SUBMISSION_LABELS; a form that cannot be used is named in the worker's log and on
 * /admin (its query). And nothing (comment, label, reaction, edit) is ever written to an issue
 * that is not a submission: not when the listing ignores its label filter, not for a slash
 * command on it (polled, reconciled or delivered by webhook), not once its label is removed.
 * Against local fakes, on each engine; the real `worker` and `ingest` commands where they run.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { eq } from "drizzle-orm";
import { beforeEach, describe, expect, it } from "vitest";
import { githubIssues, submissions } from "@/db/schema";
import { SUBMISSION_LABEL } from "@/lib/github/issue-form";
import { getGitHubFormNotice } from "@/lib/queries/github-forms";
import { mirrorSubmission, pollRepository, processPendingDeliveries, recordDelivery, syncAll } from "@/lib/submissions/github-intake";
import { ENGINES, type TestDatabase } from "../helpers/engines";
import type { FakeFileServer } from "../helpers/fake-file-server";
import type { FakeGitHubServer } from "../helpers/fake-github-server";
import { GOOD_ZIP, issueForm, serveIssueForms, statusComments, useGitHubIntake } from "../helpers/github-intake-fixture";
import { GOOD_BUNDLE } from "../helpers/mini-fixtures";
import { runCli } from "../helpers/run-cli";
import { zipFolder } from "../helpers/zip-writer";

const fixture = (name: string) => readFileSync(path.resolve(import.meta.dirname, "../fixtures/github", name), "utf8");
/** Issue bodies as GitHub renders each form. */
const BODIES = {
  current: (agent: string, zip: string) => fixture("vakra-benchmark-output-submission.md").replace("harbor-react-agent", agent).replace("https://github.com/example/harbor/releases/download/v1/outputs.zip", zip),
  older: (agent: string, zip: string) => fixture("vakra-agent-submission.md").replace("harbor-react-agent", agent).replace("{{ZIP_URL}}", zip),
  fork: (agent: string, zip: string) => fixture("fork-results-submission.md").replace("fork-agent", agent).replace("{{ZIP_URL}}", zip),
};
/** The good bundle under another agent's name: a bundle of its own (another sha256). */
const bundleOf = (agent: string) => zipFolder(GOOD_BUNDLE, (name, text) => (name.endsWith("metadata.json") ? JSON.stringify({ agent_name: agent, models: ["m"] }) : text));

/** The forms of a repository that took VAKRA's current form, a fork's, and two it cannot use. */
const REPO_FORMS = {
  "leaderboard_submission.yml": "vakra-leaderboard_submission.yml",
  "results.yml": "fork-results.yml",
  "upload.yml": "results-upload.yml",
  "broken.yml": "broken.yml",
  "config.yml": "config.yml",
  "bug_report.md": "bug_report.md",
};

describe.each(ENGINES)("GitHub issue forms on %s", (engine) => {
  let t: TestDatabase, gh: FakeGitHubServer, files: FakeFileServer, env: Record<string, string>;
  const fx = useGitHubIntake(engine);

  beforeEach(() => {
    ({ t, gh, files } = fx);
    // The worker's environment, with no GITHUB_SUBMISSION_LABELS.
    env = { ...t.env, ...fx.env, AGENTBOARD_STORAGE_URL: path.join(fx.dir, "storage"), AGENTBOARD_CACHE_DIR: path.join(fx.dir, "cache") };
    expect(env.GITHUB_SUBMISSION_LABELS).toBeUndefined();
  });

  const worker = async () => {
    const run = await runCli(["worker", "--until-idle"], env);
    expect(run.code, run.stderr).toBe(0);
    return run;
  };
  const subs = () => t.db.select().from(submissions).orderBy(submissions.id);
  const rowsOf = (n: number) => t.db.select().from(githubIssues).where(eq(githubIssues.number, n));
  /** Every write the fake GitHub received that touched issue `n` (its labels, comments, reactions, the issue itself). */
  const writesTo = (n: number) => {
    const commentIds = new Set(gh.comments(n).map((c) => String(c.id)));
    return gh.requests.filter((r) => {
      if (r.method === "GET") return false;
      const onIssue = new RegExp(`^/repos/${gh.owner}/${gh.repo}/issues/${n}(/|$)`).test(r.path);
      const onComment = /\/issues\/comments\/(\d+)(\/|$)/.exec(r.path);
      return onIssue || (onComment !== null && commentIds.has(onComment[1]!));
    });
  };
  /** Requests to the contents API, paths decoded (octokit sends a file path's slashes as %2F). */
  const contentsRequests = () => gh.requests.map((r) => ({ ...r, path: decodeURIComponent(r.path) })).filter((r) => r.path.startsWith(`/repos/${gh.owner}/${gh.repo}/contents/`));

  it("reads issues written with VAKRA's current and older forms and a fork's with no setting, and names the forms it cannot use", async () => {
    serveIssueForms(gh, REPO_FORMS);
    for (const agent of ["current-agent", "older-agent", "fork-agent"]) files.serve(`/${agent}.zip`, bundleOf(agent));
    const current = gh.addIssue({ title: "[Benchmark Output Submission]: current-agent", body: BODIES.current("current-agent", files.url("/current-agent.zip")), labels: ["benchmark-output-submission"], user: "vakra-user" });
    // Opened before the repository moved to the current form: its label is the older form's.
    const older = gh.addIssue({ title: "[Agent Submission]: older-agent", body: BODIES.older("older-agent", files.url("/older-agent.zip")), labels: ["agent-submission"], user: "early-user" });
    const fork = gh.addIssue({ title: "fork-agent", body: BODIES.fork("fork-agent", files.url("/fork-agent.zip")), labels: ["agent-results", "needs-triage"], user: "fork-user" });
    // Written with the form that has no ZIP-link field: not a submission, though it shares a label with the fork's form.
    const upload = gh.addIssue({ body: "### Agent Name\n\nx\n\n### Where to download\n\nhttps://example.org/x.zip\n", labels: ["results-upload", "needs-triage"] });

    const run = await worker();
    expect((await subs()).map((s) => [s.agentName, s.source, s.state])).toEqual([
      ["current-agent", "github", "scored"],
      ["older-agent", "github", "scored"],
      ["fork-agent", "github", "scored"],
    ]);
    for (const issue of [current, older, fork]) {
      expect(statusComments(gh, issue.number)).toHaveLength(1);
      expect(statusComments(gh, issue.number)[0]!.body).toContain("waiting for a maintainer");
    }
    // The forms were read through the contents API: the folder, then each YAML form but config.yml.
    const read = contentsRequests().map((r) => r.path.replace(`/repos/${gh.owner}/${gh.repo}/contents/`, ""));
    expect(new Set(read)).toEqual(new Set([".github/ISSUE_TEMPLATE", ...["broken.yml", "leaderboard_submission.yml", "results.yml", "upload.yml"].map((f) => `.github/ISSUE_TEMPLATE/${f}`)]));

    // The forms it cannot use are named in the worker's log, with the reason…
    expect(run.stderr).toMatch(/bench-org\/bench: submission forms \.github\/ISSUE_TEMPLATE\/leaderboard_submission\.yml \(labels benchmark-output-submission\); \.github\/ISSUE_TEMPLATE\/results\.yml \(labels agent-results\)/);
    expect(run.stderr).toMatch(/issue form \.github\/ISSUE_TEMPLATE\/upload\.yml: labels "results-upload", "needs-triage", but no ZIP-link field .*its issues are not read as submissions/);
    expect(run.stderr).toMatch(/issue form \.github\/ISSUE_TEMPLATE\/broken\.yml: not valid YAML: /);
    expect(run.stderr).not.toMatch(/config\.yml|bug_report/);
    // …and on /admin: the page's query reads what the worker stored.
    const notice = await getGitHubFormNotice(t.db);
    expect(notice).toMatchObject({ repo: "bench-org/bench" });
    expect(notice!.forms.map((f) => f.path)).toEqual([".github/ISSUE_TEMPLATE/broken.yml", ".github/ISSUE_TEMPLATE/upload.yml"]);
    expect(notice!.forms[1]!.problem).toMatch(/^labels "results-upload", "needs-triage", but no ZIP-link field/);

    // The issue of the unusable form was left alone entirely.
    expect(writesTo(upload.number)).toEqual([]);
    expect(await rowsOf(upload.number)).toEqual([]);

    // A second worker finds the same forms: nothing logged or stored again, nothing written.
    const writes = gh.requests.filter((r) => r.method !== "GET").length;
    const again = await worker();
    expect(again.stderr).not.toMatch(/issue form/);
    expect(gh.requests.filter((r) => r.method !== "GET").length).toBe(writes);
  });

  it("reads the forms once per pass with the folder's ETag: unchanged costs one 304, a changed form is read again; deliveries do not ask", async () => {
    serveIssueForms(gh, REPO_FORMS);
    const ctx = await fx.createIntake();
    const repo = fx.repo;
    const listing = () => contentsRequests().filter((r) => r.path.endsWith("/contents/.github/ISSUE_TEMPLATE"));
    const formReads = () => contentsRequests().filter((r) => r.path.endsWith(".yml"));

    await pollRepository(ctx, repo);
    expect(listing().map((r) => r.status)).toEqual([200]);
    expect(formReads()).toHaveLength(4);
    await pollRepository(ctx, repo);
    expect(listing().map((r) => r.status)).toEqual([200, 304]);
    expect(formReads()).toHaveLength(4);

    // A delivery between passes uses what was read: the fork's label marks a submission, no form is asked for.
    const delivered = gh.addIssue({ body: "x", labels: ["agent-results"] });
    const payload = { action: "opened", repository: { full_name: `${gh.owner}/${gh.repo}` }, issue: { number: delivered.number, title: delivered.title, body: "x", state: "open", labels: [{ name: "agent-results" }], user: { login: "submitter" } } };
    await recordDelivery(t.db, { id: "d-fork", event: "issues", payload }, new Date());
    expect(await processPendingDeliveries(ctx)).toBe(1);
    expect(statusComments(gh, delivered.number)).toHaveLength(1);
    expect(listing()).toHaveLength(2);

    // The fork renames its label: the next pass reads that one form again and lists the new label.
    gh.setFile(".github/ISSUE_TEMPLATE/results.yml", readFileSync(path.resolve(import.meta.dirname, "../fixtures/github/forms/fork-results.yml"), "utf8").replace("labels: agent-results, needs-triage", "labels: [agent-output]"));
    const from = gh.requests.length;
    await pollRepository(ctx, repo);
    expect(listing().map((r) => r.status)).toEqual([200, 304, 200]);
    expect(formReads().slice(4).map((r) => r.path)).toEqual([`/repos/${gh.owner}/${gh.repo}/contents/.github/ISSUE_TEMPLATE/results.yml`]);
    const listed = gh.requests.slice(from).filter((r) => r.path === `/repos/${gh.owner}/${gh.repo}/issues`).map((r) => r.query.labels);
    expect(listed).toContain("agent-output");
    expect(listed).not.toContain("agent-results");

    // GitHub failing the folder: the labels read before hold, and the pass goes on.
    const lines: string[] = [];
    const logged = await fx.createIntake({ log: (l) => lines.push(l) });
    gh.failNext("GET", /\/contents\/\.github(\/|%2F)ISSUE_TEMPLATE$/, 500);
    const issue = gh.addIssue({ body: issueForm({ zipUrl: files.url(GOOD_ZIP) }), labels: [SUBMISSION_LABEL] });
    expect(await pollRepository(logged, repo)).toMatchObject({ failed: 0 });
    expect(lines.join("\n")).toMatch(/the issue forms could not be read \(GitHub: list \.github\/ISSUE_TEMPLATE failed \(HTTP 500\).*only the configured submission labels are used/);
    expect(statusComments(gh, issue.number)).toHaveLength(1);
  });

  describe("writes nothing to an issue that is not a submission", () => {
    /** Issues a listing that ignores its label filter brings in, each asking for something. */
    const seedUnlabelled = () => {
      gh.setPermission("maintainer", "write");
      const withForm = gh.addIssue({ title: "looks like a submission", body: issueForm({ zipUrl: files.url(GOOD_ZIP) }), user: "someone" });
      const command = gh.addIssue({ title: "a question", body: "How do I submit?", user: "asker" });
      gh.addComment(command.number, { body: "/approve", user: "maintainer" });
      gh.addComment(command.number, { body: "/withdraw", user: "asker" });
      const bug = gh.addIssue({ title: "a bug", body: "### Agent name\n\n\n", labels: ["bug"], user: "reporter" });
      gh.addComment(bug.number, { body: "/rescore", user: "stranger" });
      return [withForm.number, command.number, bug.number];
    };

    it("through polling, the worker's reconcile and a webhook delivery of a slash command, with a listing that ignores the label filter", async () => {
      gh.setIgnoreLabelFilter(true);
      serveIssueForms(gh, { "leaderboard_submission.yml": "vakra-leaderboard_submission.yml" });
      const others = seedUnlabelled();
      const submission = gh.addIssue({ body: issueForm({ zipUrl: files.url(GOOD_ZIP) }), labels: [SUBMISSION_LABEL], user: "sub-mitter" });

      // The polling command…
      const ingest = await runCli(["ingest", "--repo", `${gh.owner}/${gh.repo}`], env);
      expect(ingest.code, ingest.stderr).toBe(0);
      // …a webhook delivery of a maintainer's /approve on an unlabelled issue, and the worker's reconcile.
      const [, commandIssue] = others;
      const approve = gh.comments(commandIssue!).find((c) => c.body === "/approve")!;
      await recordDelivery(
        t.db,
        {
          id: "d-unlabelled",
          event: "issue_comment",
          payload: {
            action: "created",
            repository: { full_name: `${gh.owner}/${gh.repo}` },
            issue: { number: commandIssue, title: "a question", body: "How do I submit?", state: "open", labels: [], user: { login: "asker" } },
            comment: { id: approve.id, body: approve.body, user: { login: "maintainer", type: "User" }, html_url: "https://github.com/x", created_at: approve.createdAt, updated_at: approve.updatedAt },
          },
        },
        new Date(),
      );
      const run = await worker();

      const writes = Object.fromEntries(others.map((n) => [`#${n}`, writesTo(n).map((r) => `${r.method} ${decodeURIComponent(r.path)}`)]));
      expect(writes).toEqual(Object.fromEntries(others.map((n) => [`#${n}`, []])));
      for (const n of others) {
        expect(gh.labels(n).filter((l) => l.startsWith("agentboard"))).toEqual([]);
        for (const c of gh.comments(n)) expect(gh.reactions(c.id)).toEqual([]);
        expect(await rowsOf(n)).toEqual([]);
      }
      expect(run.stderr).toMatch(/not a submission issue \(no submission label\); left alone/);
      // The submission beside them was read as usual.
      expect(statusComments(gh, submission.number)).toHaveLength(1);
      expect(await subs()).toHaveLength(1);
    });

    it("once a submission's label is removed, and again once it is back", async () => {
      const ctx = await fx.createIntake();
      const repo = fx.repo;
      const issue = gh.addIssue({ body: issueForm({ zipUrl: files.url(GOOD_ZIP) }), labels: [SUBMISSION_LABEL] });
      await pollRepository(ctx, repo);
      const [sub] = await subs();
      expect(statusComments(gh, issue.number)).toHaveLength(1);

      // A maintainer takes the label off; then its status changes (an action on the admin pages).
      gh.editIssue(issue.number, { labels: gh.labels(issue.number).filter((l) => l !== SUBMISSION_LABEL) });
      const before = writesTo(issue.number).length;
      expect(await mirrorSubmission(t.db, sub!.id, ctx.settings)).toBe(true);
      expect(await syncAll(ctx, repo)).toBe(0);
      gh.setIgnoreLabelFilter(true);
      await pollRepository(ctx, repo);
      expect(writesTo(issue.number)).toHaveLength(before);
      // Not asked about again on every sync.
      const reads = gh.requests.filter((r) => r.method === "GET" && r.path === `/repos/${gh.owner}/${gh.repo}/issues/${issue.number}`).length;
      await syncAll(ctx, repo);
      expect(gh.requests.filter((r) => r.method === "GET" && r.path === `/repos/${gh.owner}/${gh.repo}/issues/${issue.number}`)).toHaveLength(reads);

      // Labelled again: the status held back is sent.
      gh.setIgnoreLabelFilter(false);
      gh.editIssue(issue.number, { labels: [...gh.labels(issue.number), SUBMISSION_LABEL] });
      await pollRepository(ctx, repo);
      expect(writesTo(issue.number).length).toBeGreaterThan(before);
      expect(statusComments(gh, issue.number)).toHaveLength(1);
    });
  });
});
