/**
 * An issue written with VAKRA's own template (`submission_template.yml`, label
 * agent-submission), end to end against a local fake GitHub: read, its loopback ZIP link
 * refused with the reason in one bot comment, nothing changed by a second pass; and, with a
 * link that works, the maintainer contact stored for maintainers and never shown publicly.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import type { Db } from "@/db/client";
import { githubIssues, submissions } from "@/db/schema";
import type { RepoRef } from "@/lib/github/github-client";
import { getReviewQueue } from "@/lib/queries/activity";
import { getLeaderboard } from "@/lib/queries/leaderboard";
import { getSubmission } from "@/lib/queries/submission";
import { pollRepository } from "@/lib/submissions/github-intake";
import type { FakeFileServer } from "../helpers/fake-file-server";
import type { FakeGitHubServer } from "../helpers/fake-github-server";
import { ENGINES } from "../helpers/engines";
import { GOOD_ZIP, scoreQueued, statusComments as statusCommentsOf, useGitHubIntake } from "../helpers/github-intake-fixture";
import { tickingClock } from "../helpers/mini-fixtures";

const repoRoot = path.resolve(import.meta.dirname, "../..");
const body = (zipUrl: string) => readFileSync(path.join(repoRoot, "test/fixtures/github/vakra-agent-submission.md"), "utf8").replace("{{ZIP_URL}}", zipUrl);
const CONTACT = "harbor-team@example.org";

const now = tickingClock(Date.UTC(2026, 10, 23));

describe.each(ENGINES)("on %s", (engine) => {
  let db: Db, gh: FakeGitHubServer, repo: RepoRef, files: FakeFileServer;
  // Loopback downloads not enabled, as in production, unless a test turns them on.
  const fx = useGitHubIntake(engine, { now, allowLoopback: false });
  beforeEach(() => void ({ db, gh, repo, files } = fx));

  const intake = (env: Record<string, string> = {}) => fx.createIntake({ env });
  const statusComments = (issue: number) => statusCommentsOf(gh, issue);

  describe("an issue written with VAKRA's template", () => {
    it("is read, its loopback link refused with the reason in one comment, and a second pass changes nothing", async () => {
      const ctx = await intake(); // loopback downloads not enabled, as in production
      const issue = gh.addIssue({ title: "[Agent Submission]: harbor-react-agent", body: body(files.url(GOOD_ZIP)), labels: ["agent-submission"], user: "harbor" });

      const first = await pollRepository(ctx, repo);
      expect(first).toMatchObject({ issues: 1, changed: 1 });
      const comments = statusComments(issue.number);
      expect(comments).toHaveLength(1);
      expect(comments[0]!.body).toContain("ZIP link");
      expect(comments[0]!.body).toMatch(/https/); // what was expected of the link
      expect(comments[0]!.body).not.toContain("Waiting for a valid submission form");
      expect(comments[0]!.body).not.toContain(CONTACT);
      expect(files.requests).toHaveLength(0); // refused before any request
      const [row] = await db.select().from(githubIssues);
      expect(row!.problem).toMatch(/^ZIP link: the bundle could not be downloaded/);
      expect(gh.labels(issue.number)).toContain("agent-submission");

      const writes = () => gh.requests.filter((r) => r.method !== "GET").length;
      const before = writes();
      const labels = gh.labels(issue.number);
      const again = await pollRepository(ctx, repo);
      expect(again).toMatchObject({ changed: 0, synced: 0 });
      expect(writes()).toBe(before);
      expect(gh.labels(issue.number)).toEqual(labels);
      expect(statusComments(issue.number).map((c) => c.body)).toEqual(comments.map((c) => c.body));
    });

    it("is ignored when GITHUB_SUBMISSION_LABELS leaves its label out", async () => {
      const ctx = await intake({ GITHUB_SUBMISSION_LABELS: "leaderboard-submission" });
      gh.addIssue({ body: body(files.url(GOOD_ZIP)), labels: ["agent-submission"] });
      expect(await pollRepository(ctx, repo)).toMatchObject({ issues: 0, changed: 0 });
      expect(gh.requests.filter((r) => r.method !== "GET")).toHaveLength(0);
    });

    it("stores contact, agent type and notes for maintainers, and never shows the contact publicly", async () => {
      const ctx = await intake({ AGENTBOARD_TEST_ALLOW_LOOPBACK: "1" });
      const issue = gh.addIssue({ body: body(files.url(GOOD_ZIP)), labels: ["agent-submission"], user: "harbor" });
      await pollRepository(ctx, repo);
      const [sub] = (await db.select().from(submissions)) as [typeof submissions.$inferSelect];
      expect(sub).toMatchObject({ agentName: "harbor-react-agent", contact: CONTACT, agentType: "Tool-using", notes: "Run with temperature 0.", models: ["gpt-4.1 / llama-405b"] });

      await scoreQueued(db, now);
      await pollRepository(ctx, repo);
      await db.update(submissions).set({ state: "published" });

      const review = (await getReviewQueue(db)).find((r) => r.id === sub.id)!;
      expect(review).toMatchObject({ contact: CONTACT, agentType: "Tool-using", notes: "Run with temperature 0." });
      const publicViews = [await getSubmission(db, sub.id), await getLeaderboard(db), gh.comments(issue.number).map((c) => c.body)];
      for (const view of publicViews) expect(JSON.stringify(view)).not.toContain(CONTACT);
      expect(JSON.stringify(await getSubmission(db, sub.id))).toContain("harbor-react-agent");
    });
  });
});
