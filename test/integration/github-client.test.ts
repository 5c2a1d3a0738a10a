/** The production GitHub client (connectGitHub) against the fake GitHub REST server, through octokit's real HTTP stack. */
import { generateKeyPairSync } from "node:crypto";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { connectGitHub, GitHubNotConfiguredError, hasGitHubCredentials } from "../../lib/github/connect";
import { GitHubApiError, hasWriteAccess, parseRepoRef, type GitHubPort, type RepoRef } from "../../lib/github/github-client";
import { startFakeGitHubServer, type FakeGitHubServer } from "../helpers/fake-github-server";

let gh: FakeGitHubServer;
let client: GitHubPort;
let repo: RepoRef;

beforeEach(async () => {
  gh = await startFakeGitHubServer();
  client = await connectGitHub({ token: gh.token, app: null, apiUrl: gh.baseUrl }, { retry: false, throttle: false });
  repo = { owner: gh.owner, repo: gh.repo };
});

afterEach(async () => {
  await gh.close();
});

const pages = (path: RegExp) => gh.requests.filter((r) => r.method === "GET" && path.test(r.path));

describe("issues", () => {
  it("lists every open issue with the label across pages of 100, without pull requests", async () => {
    for (let i = 0; i < 250; i++) gh.addIssue({ labels: ["leaderboard-submission"], body: `body ${i}` });
    gh.addIssue({ labels: ["leaderboard-submission"], state: "closed" });
    gh.addIssue({ labels: ["bug"] });
    gh.addIssue({ labels: ["leaderboard-submission"], pullRequest: true });

    const issues = await client.listOpenIssues(repo, "leaderboard-submission");

    expect(issues).toHaveLength(250);
    expect(new Set(issues.map((i) => i.number)).size).toBe(250);
    expect(issues.every((i) => i.state === "open" && i.labels.includes("leaderboard-submission"))).toBe(true);
    const listed = pages(/\/issues$/);
    expect(listed).toHaveLength(3);
    expect(listed.map((r) => [r.query.per_page, r.query.page ?? "1", r.query.labels, r.query.state])).toEqual([
      ["100", "1", "leaderboard-submission", "open"],
      ["100", "2", "leaderboard-submission", "open"],
      ["100", "3", "leaderboard-submission", "open"],
    ]);
  });

  it("returns an empty list when nothing matches", async () => {
    gh.addIssue({ labels: ["bug"] });
    expect(await client.listOpenIssues(repo, "leaderboard-submission")).toEqual([]);
  });

  it("gets one issue, reshaped", async () => {
    const seeded = gh.addIssue({ title: "[Submission]: <script>x</script>", body: "### Agent name\n\nx", user: "alice", labels: ["leaderboard-submission"] });
    const issue = await client.getIssue(repo, seeded.number);
    expect(issue).toEqual({
      number: seeded.number,
      title: "[Submission]: <script>x</script>",
      body: "### Agent name\n\nx",
      state: "open",
      labels: ["leaderboard-submission"],
      author: "alice",
      htmlUrl: `https://github.com/${gh.owner}/${gh.repo}/issues/${seeded.number}`,
      createdAt: seeded.createdAt,
      updatedAt: seeded.updatedAt,
    });
  });

  it("gives an empty body for an issue without one, and sees edits", async () => {
    const seeded = gh.addIssue({ body: null });
    expect((await client.getIssue(repo, seeded.number)).body).toBe("");
    gh.editIssue(seeded.number, { body: "new body" });
    expect((await client.getIssue(repo, seeded.number)).body).toBe("new body");
  });

  it("reports a missing issue as a GitHubApiError with status 404", async () => {
    const err = await client.getIssue(repo, 999).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GitHubApiError);
    expect(err).toMatchObject({ status: 404, operation: "get issue #999" });
  });
});

describe("comments", () => {
  it("lists every comment across pages, oldest first", async () => {
    const issue = gh.addIssue({});
    for (let i = 0; i < 130; i++) gh.addComment(issue.number, { body: `c${i}`, user: i % 2 ? "alice" : "bob" });
    const comments = await client.listComments(repo, issue.number);
    expect(comments.map((c) => c.body)).toEqual(Array.from({ length: 130 }, (_, i) => `c${i}`));
    expect(comments[1]).toMatchObject({ author: "alice", authorType: "User" });
    expect(pages(/\/comments$/)).toHaveLength(2);
  });

  it("keeps only comments updated since a time", async () => {
    const issue = gh.addIssue({});
    gh.addComment(issue.number, { body: "old" });
    const mid = gh.addComment(issue.number, { body: "mid" });
    gh.addComment(issue.number, { body: "new" });
    const since = await client.listComments(repo, issue.number, { since: new Date(mid.updatedAt) });
    expect(since.map((c) => c.body)).toEqual(["mid", "new"]);
    expect(pages(/\/comments$/).at(-1)?.query.since).toBe(mid.updatedAt);
    expect((await client.listComments(repo, issue.number, { since: mid.updatedAt })).map((c) => c.body)).toEqual(["mid", "new"]);
  });

  it("creates a comment as the bot and edits it in place", async () => {
    const issue = gh.addIssue({});
    const created = await client.createComment(repo, issue.number, "**Received**");
    expect(created).toMatchObject({ body: "**Received**", author: gh.botLogin, authorType: "Bot" });
    const updated = await client.updateComment(repo, created.id, "**Scored**");
    expect(updated).toMatchObject({ id: created.id, body: "**Scored**" });
    expect(gh.comments(issue.number).map((c) => c.body)).toEqual(["**Scored**"]);
  });

  it("reports editing a missing comment as a 404", async () => {
    await expect(client.updateComment(repo, 424242, "x")).rejects.toMatchObject({ name: "GitHubApiError", status: 404 });
  });

  it("adds a reaction to a comment", async () => {
    const issue = gh.addIssue({});
    const c = gh.addComment(issue.number, { body: "/approve", user: "maintainer" });
    await client.addReaction(repo, c.id, "+1");
    await client.addReaction(repo, c.id, "+1");
    await client.addReaction(repo, c.id, "eyes");
    expect(gh.reactions(c.id).map((r) => r.content)).toEqual(["+1", "eyes"]);
  });
});

describe("labels", () => {
  it("creates a missing label with its colour before adding it, once per client", async () => {
    const issue = gh.addIssue({ labels: ["leaderboard-submission"] });
    const spec = { name: "submission: scored", color: "0e8a16", description: "Scored, awaiting approval" };
    expect(await client.addLabels(repo, issue.number, [spec])).toEqual(["leaderboard-submission", "submission: scored"]);
    await client.addLabels(repo, issue.number, [spec]);
    expect(gh.repoLabels().find((l) => l.name === spec.name)).toMatchObject({ color: "0e8a16", description: "Scored, awaiting approval" });
    expect(gh.requests.filter((r) => r.method === "POST" && r.path.endsWith("/labels") && !r.path.includes("/issues/"))).toHaveLength(1);
    expect(gh.labels(issue.number)).toEqual(["leaderboard-submission", "submission: scored"]);
  });

  it("leaves an existing label as it is", async () => {
    const issue = gh.addIssue({ labels: ["submission: received"] });
    await client.ensureLabel(repo, { name: "Submission: Received", color: "ff0000" });
    expect(gh.repoLabels().filter((l) => l.name.toLowerCase() === "submission: received")).toEqual([
      expect.objectContaining({ name: "submission: received", color: "ededed" }),
    ]);
    expect(await client.addLabels(repo, issue.number, ["submission: received"])).toEqual(["submission: received"]);
  });

  it("surfaces a label the API refuses", async () => {
    await expect(client.ensureLabel(repo, { name: "bad colour", color: "red" })).rejects.toMatchObject({ name: "GitHubApiError", status: 422 });
  });

  it("removes a label, and removing one the issue lacks is not an error", async () => {
    const issue = gh.addIssue({ labels: ["leaderboard-submission", "submission: queued"] });
    await client.removeLabel(repo, issue.number, "submission: queued");
    await client.removeLabel(repo, issue.number, "submission: queued");
    expect(gh.labels(issue.number)).toEqual(["leaderboard-submission"]);
  });

  it("replaces all labels", async () => {
    const issue = gh.addIssue({ labels: ["leaderboard-submission", "submission: queued"] });
    expect(await client.setLabels(repo, issue.number, ["leaderboard-submission", { name: "submission: published", color: "5319e7" }])).toEqual([
      "leaderboard-submission",
      "submission: published",
    ]);
    expect(gh.labels(issue.number)).toEqual(["leaderboard-submission", "submission: published"]);
    expect(gh.repoLabels().find((l) => l.name === "submission: published")?.color).toBe("5319e7");
  });
});

describe("permissions", () => {
  it.each(["admin", "maintain", "write", "triage", "read", "none"] as const)("reads the %s role", async (role) => {
    gh.setPermission("someone", role);
    expect(await client.getPermission(repo, "someone")).toBe(role);
  });

  it("treats a 404 (unknown user, not a collaborator) as none", async () => {
    gh.setPermission("stranger", "missing");
    expect(await client.getPermission(repo, "stranger")).toBe("none");
    expect(gh.requests.at(-1)).toMatchObject({ path: `/repos/${gh.owner}/${gh.repo}/collaborators/stranger/permission`, status: 404 });
  });

  it("grants write access to admin, maintain and write only", () => {
    expect((["admin", "maintain", "write", "triage", "read", "none"] as const).filter(hasWriteAccess)).toEqual(["admin", "maintain", "write"]);
  });
});

describe("transport", () => {
  it("sends the token and fails with 401 without the right one", async () => {
    gh.addIssue({});
    const intruder = await connectGitHub({ token: "wrong", app: null, apiUrl: gh.baseUrl }, { retry: false, throttle: false });
    await expect(intruder.getIssue(repo, 1)).rejects.toMatchObject({ name: "GitHubApiError", status: 401 });
    await expect(client.getIssue(repo, 1)).resolves.toMatchObject({ number: 1 });
  });

  it("does not retry when retries are off", async () => {
    gh.addIssue({});
    gh.failNext("GET", /\/issues\/1$/, 502);
    await expect(client.getIssue(repo, 1)).rejects.toMatchObject({ status: 502 });
    expect(pages(/\/issues\/1$/)).toHaveLength(1);
    await expect(client.getIssue(repo, 1)).resolves.toMatchObject({ number: 1 });
  });

  it("treats a failed permission lookup other than 404 as an error, not as none", async () => {
    gh.failNext("GET", /\/permission$/, 500);
    await expect(client.getPermission(repo, "someone")).rejects.toMatchObject({ name: "GitHubApiError", status: 500 });
  });
});

describe("connectGitHub", () => {
  it("needs a token or a GitHub App", async () => {
    const none = { token: null, app: null, apiUrl: gh.baseUrl };
    expect(hasGitHubCredentials(none)).toBe(false);
    expect(hasGitHubCredentials({ ...none, token: "t" })).toBe(true);
    await expect(connectGitHub(none)).rejects.toBeInstanceOf(GitHubNotConfiguredError);
  });

  it("leaves retries off by default against a local server", async () => {
    const local = await connectGitHub({ token: gh.token, app: null, apiUrl: gh.baseUrl });
    gh.addIssue({});
    gh.failNext("GET", /\/issues\/1$/, 502);
    await expect(local.getIssue(repo, 1)).rejects.toMatchObject({ status: 502 });
    expect(pages(/\/issues\/1$/)).toHaveLength(1);
  });

  it("trades a GitHub App's signed JWT for an installation token, and uses it", async () => {
    const keys = generateKeyPairSync("rsa", { modulusLength: 2048 });
    const pem = (k: typeof keys.privateKey, type: "pkcs8" | "spki") => k.export({ type, format: "pem" }).toString();
    const appServer = await startFakeGitHubServer({ token: "ghs_installation", app: { appId: "4242", installationId: 77, publicKeyPem: pem(keys.publicKey, "spki") } });
    try {
      appServer.addIssue({ title: "via the app" });
      const creds = { token: null, app: { appId: "4242", privateKey: pem(keys.privateKey, "pkcs8"), installationId: 77 }, apiUrl: appServer.baseUrl };
      const viaApp = await connectGitHub(creds, { retry: false, throttle: false });
      await expect(viaApp.getIssue({ owner: appServer.owner, repo: appServer.repo }, 1)).resolves.toMatchObject({ title: "via the app" });
      expect(appServer.requests.map((r) => [r.method, r.path, r.status])).toEqual([
        ["POST", "/app/installations/77/access_tokens", 201],
        ["GET", `/repos/${appServer.owner}/${appServer.repo}/issues/1`, 200],
      ]);
      // A key the app does not have is refused.
      const other = generateKeyPairSync("rsa", { modulusLength: 2048 });
      await expect(connectGitHub({ ...creds, app: { ...creds.app, privateKey: pem(other.privateKey, "pkcs8") } })).rejects.toMatchObject({ status: 401 });
    } finally {
      await appServer.close();
    }
  });
});

describe("parseRepoRef", () => {
  it("reads owner/name and refuses anything else", () => {
    expect(parseRepoRef("IBM/vakra")).toEqual({ owner: "IBM", repo: "vakra" });
    expect(parseRepoRef(" octo-org/my.repo_1 ")).toEqual({ owner: "octo-org", repo: "my.repo_1" });
    for (const bad of ["vakra", "a/b/c", "/x", "x/", "a/..", "-a/b", "a b/c"]) expect(parseRepoRef(bad)).toBeUndefined();
  });
});
