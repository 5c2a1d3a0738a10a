/**
 * Copy flags of entries submitted through GitHub issues, end to end on each engine: octokit
 * talks to a local fake GitHub, bundles come from a local file server, the worker scores with
 * the mini benchmark.
 * - Framing (issue 26, item 1): entry A is submitted, B is published, then A's issue is edited
 *   to a copy of B's bundle with other metadata. A is the copy; B, the original, is never
 *   flagged by content that arrived after it. A maintainer clears A's flag with a reason: it
 *   leaves the public pages and the bot comment, the audit log keeps why.
 * - Many copies of one entry: each copy carries one duplicate flag naming the first received
 *   and counting the others, not one flag per copy.
 */
import { and, eq } from "drizzle-orm";
import { beforeEach, describe, expect, it } from "vitest";
import type { Db } from "@/db/client";
import { auditLog, githubIssues, submissions } from "@/db/schema";
import type { RepoRef } from "@/lib/github/github-client";
import { SUBMISSION_LABEL, type IssueFormValues } from "@/lib/github/issue-form";
import { getFlagReview, isFlagged } from "@/lib/queries/integrity";
import { getLeaderboard } from "@/lib/queries/leaderboard";
import { getSubmission } from "@/lib/queries/submission";
import { pollRepository, type GitHubIntake } from "@/lib/submissions/github-intake";
import { clearFlag } from "@/lib/submissions/review";
import type { FakeFileServer } from "../helpers/fake-file-server";
import type { FakeGitHubServer } from "../helpers/fake-github-server";
import { ENGINES } from "../helpers/engines";
import { issueForm, scoreQueued, statusComment as statusCommentOf, useGitHubIntake } from "../helpers/github-intake-fixture";
import { GOOD_BUNDLE, tickingClock } from "../helpers/mini-fixtures";
import { zipFolder } from "../helpers/zip-writer";

const now = tickingClock(Date.UTC(2026, 10, 22));

/** The good bundle under another agent name: the same outputs, new metadata (a new sha256). */
const copyOfGood = (agent: string) => zipFolder(GOOD_BUNDLE, (name, text) => (name.endsWith("metadata.json") ? JSON.stringify({ agent_name: agent, models: ["m"] }) : text));

/** A bundle of its own: every answer different from the good bundle's. */
const ownBundle = () =>
  zipFolder(GOOD_BUNDLE, (name, text) => {
    if (name.endsWith("metadata.json")) return JSON.stringify({ agent_name: "framer", models: ["m"] });
    const records = JSON.parse(text) as { output: { answer: unknown }[] }[];
    for (const r of records) for (const t of r.output) t.answer = `I could not find it (${name}).`;
    return JSON.stringify(records);
  });

describe.each(ENGINES)("copy flags through GitHub on %s", (engine) => {
  let db: Db, gh: FakeGitHubServer, repo: RepoRef, files: FakeFileServer, ctx: GitHubIntake;
  const fx = useGitHubIntake(engine, { now });

  beforeEach(() => {
    ({ db, gh, repo, files, intake: ctx } = fx);
    gh.setPermission("maintainer-1", "write");
  });

  const form = (over: Partial<IssueFormValues>): string => issueForm({ agentName: "agent", maintainer: "Lab", models: ["m"], description: "An agent.", zipUrl: files.url("/none.zip"), ...over });

  /** Scores what is queued, then lets the intake pass bring the issues up to date. */
  async function scoreAndSync(): Promise<void> {
    await scoreQueued(db, now);
    await pollRepository(ctx, repo);
  }

  const submissionOf = async (issue: number) => (await db.select({ id: githubIssues.submissionId }).from(githubIssues).where(eq(githubIssues.number, issue)))[0]!.id!;
  const statusComment = (issue: number) => statusCommentOf(gh, issue);
  const flagsOf = async (id: number) => (await getSubmission(db, id))!.integrity!.flags;

  it("flag the entry edited into a copy of a published one, never the original; a maintainer clears the flag with a reason", async () => {
    files.serve("/framer.zip", ownBundle());
    files.serve("/victim.zip", copyOfGood("victim-agent"));
    files.serve("/copy-of-victim.zip", copyOfGood("framer v2"));

    // A: any bundle of its own, submitted first.
    const a = gh.addIssue({ body: form({ agentName: "framer", zipUrl: files.url("/framer.zip") }), labels: [SUBMISSION_LABEL], user: "framer" });
    await pollRepository(ctx, repo);
    await scoreAndSync();
    // B: the victim's entry, published.
    const b = gh.addIssue({ body: form({ agentName: "victim-agent", zipUrl: files.url("/victim.zip") }), labels: [SUBMISSION_LABEL], user: "victim" });
    await pollRepository(ctx, repo);
    await scoreAndSync();
    gh.addComment(b.number, { body: "/approve", user: "maintainer-1" });
    await pollRepository(ctx, repo);
    const [aId, bId] = [await submissionOf(a.number), await submissionOf(b.number)];
    expect(aId).toBeLessThan(bId);
    expect((await getSubmission(db, bId))!.state).toBe("published");
    expect(await flagsOf(aId)).toEqual([]);

    // A's issue edited: its ZIP link now points at a copy of B's bundle, with other metadata.
    gh.editIssue(a.number, { body: form({ agentName: "framer v2", zipUrl: files.url("/copy-of-victim.zip") }) });
    await pollRepository(ctx, repo);
    expect((await db.select().from(submissions).where(eq(submissions.id, aId)))[0]).toMatchObject({ revision: 2, state: "queued" });
    await scoreAndSync();

    // A is the copy: flagged, naming B. B is not flagged, stays on the board unflagged ("Hide flagged" keeps it).
    const aFlags = await flagsOf(aId);
    expect(aFlags).toEqual([expect.objectContaining({ kind: "duplicate", share: 1, other: { id: bId, agent: "victim-agent", published: true } })]);
    expect(aFlags[0]!.message).toBe(`100% of this entry's answered items (4 of 4) carry the same answers and tool calls as entry #${bId} (victim-agent), submitted before it.`);
    expect(await flagsOf(bId)).toEqual([]);
    const victimRow = (await getLeaderboard(db))!.entries.find((e) => e.id === bId)!;
    expect(victimRow).toMatchObject({ flags: [], badges: { flagged: false } });
    expect(statusComment(b.number)).not.toContain("Integrity flags");
    expect(statusComment(a.number)).toContain("#### ⚑ Integrity flags (1)");
    expect((await db.select().from(auditLog).where(and(eq(auditLog.submissionId, bId), eq(auditLog.action, "flag:duplicate"))))).toEqual([]);

    // A maintainer clears A's flag with a reason: audited, gone from the public page, the board and the bot comment.
    const review = (await getFlagReview(db, aId))!;
    expect(review.flags.map((f) => f.kind)).toEqual(["duplicate"]);
    const reason = "Checked with both labs: framer v2 is the victim lab's own resubmission.";
    await clearFlag(db, aId, { runId: review.runId!, key: review.flags[0]!.key, reason }, { actor: "maintainer (admin page)", at: now() });
    expect(await flagsOf(aId)).toEqual([]);
    expect(await isFlagged(db, aId)).toBe(false);
    const log = await db.select({ actor: auditLog.actor, reason: auditLog.reason, details: auditLog.details }).from(auditLog).where(and(eq(auditLog.submissionId, aId), eq(auditLog.action, "flag:cleared")));
    expect(log).toEqual([{ actor: "maintainer (admin page)", reason: "duplicate flag cleared by a maintainer", details: expect.objectContaining({ kind: "duplicate", reason }) }]);
    expect((await getFlagReview(db, aId))!.cleared).toEqual([expect.objectContaining({ kind: "duplicate", message: aFlags[0]!.message, reason, by: "maintainer (admin page)" })]);
    gh.addComment(a.number, { body: "/approve", user: "maintainer-1" });
    await pollRepository(ctx, repo);
    expect((await getLeaderboard(db))!.entries.find((e) => e.id === aId)).toMatchObject({ flags: [], badges: { flagged: false } });
    expect(statusComment(a.number)).not.toContain("Integrity flags");
    // The entry's public data says a flag was cleared, never why (that is for maintainers).
    const page = JSON.stringify(await getSubmission(db, aId));
    expect(page).toContain("duplicate flag cleared by a maintainer");
    expect(page).not.toContain(reason);
    expect(page).not.toContain(aFlags[0]!.message);
  }, 60_000);

  it("give the fifth copy of an entry one duplicate flag naming the first received and counting the other four", async () => {
    files.serve("/original.zip", copyOfGood("original-agent"));
    const original = gh.addIssue({ body: form({ agentName: "original-agent", zipUrl: files.url("/original.zip") }), labels: [SUBMISSION_LABEL], user: "original" });
    await pollRepository(ctx, repo);
    await scoreAndSync();
    const copies: number[] = [];
    for (let i = 1; i <= 5; i++) {
      files.serve(`/copy-${i}.zip`, copyOfGood(`copy-${i}`));
      copies.push(gh.addIssue({ body: form({ agentName: `copy-${i}`, zipUrl: files.url(`/copy-${i}.zip`) }), labels: [SUBMISSION_LABEL], user: `copier-${i}` }).number);
      await pollRepository(ctx, repo);
      await scoreAndSync();
    }
    const originalId = await submissionOf(original.number);
    expect(await flagsOf(originalId)).toEqual([]);
    const fifth = await flagsOf(await submissionOf(copies[4]!));
    expect(fifth).toHaveLength(1);
    expect(fifth[0]).toMatchObject({ kind: "duplicate", share: 1, other: { id: originalId, agent: "original-agent" } });
    expect(fifth[0]!.message).toBe(`100% of this entry's answered items (4 of 4) carry the same answers and tool calls as entry #${originalId} (original-agent), submitted before it, and as 4 more entries submitted before it.`);
    expect(statusComment(copies[4]!)).toContain("#### ⚑ Integrity flags (1)");
    for (const [i, issue] of copies.entries()) expect((await flagsOf(await submissionOf(issue))).map((f) => f.kind), `copy ${i + 1}`).toEqual(["duplicate"]);
  }, 60_000);
});
