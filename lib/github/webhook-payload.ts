/**
 * GitHub's `issues` and `issue_comment` webhook payloads, checked and reshaped into the
 * same plain types the REST client returns (GitHubIssue, GitHubComment, RepoRef). Only the
 * fields we read are checked; the rest of GitHub's JSON is ignored. Pure: what to do with a
 * delivery is the intake's business (lib/submissions/github-intake.ts).
 */
import { z } from "zod";
import { commentFromJson, issueFromJson, parseRepoRef, type GitHubComment, type GitHubIssue, type RepoRef } from "./github-client";

export type WebhookDelivery =
  | { event: "issues"; action: string; repo: RepoRef; issue: GitHubIssue }
  | { event: "issue_comment"; action: string; repo: RepoRef; issue: GitHubIssue; comment: GitHubComment };

export type WebhookReading = { ok: true; delivery: WebhookDelivery } | { ok: false; reason: string };

const User = z.object({ login: z.string(), type: z.string().optional() }).nullish();

// Webhook payloads carry the full objects, but stored test deliveries and older GitHub
// Enterprise versions may leave out what we only display, so those fields default to "".
const Issue = z.object({
  number: z.number().int().positive(),
  title: z.string().default(""),
  body: z.string().nullish(),
  state: z.string().default("open"),
  labels: z.array(z.union([z.string(), z.object({ name: z.string().optional() })])).default([]),
  user: User,
  html_url: z.string().default(""),
  created_at: z.string().default(""),
  updated_at: z.string().default(""),
  pull_request: z.unknown().optional(),
});

const Comment = z.object({
  id: z.number().int().positive(),
  body: z.string().nullish(),
  user: User,
  html_url: z.string().default(""),
  created_at: z.string().default(""),
  updated_at: z.string().default(""),
});

const Envelope = z.object({
  action: z.string(),
  repository: z.object({ full_name: z.string() }),
  issue: Issue,
});

function problem(error: z.ZodError, at: string): string {
  const first = error.issues[0];
  return `${[at, ...(first?.path ?? [])].join(".")}: ${first?.message ?? "malformed"}`;
}

/** The delivery as typed objects, or why it is not an issue or issue-comment event we can read. */
export function readWebhookPayload(event: string, payload: unknown): WebhookReading {
  if (event !== "issues" && event !== "issue_comment") return { ok: false, reason: `the "${event}" event is not handled` };
  const envelope = Envelope.safeParse(payload);
  if (!envelope.success) return { ok: false, reason: problem(envelope.error, "payload") };
  const { action, repository, issue: rawIssue } = envelope.data;
  const repo = parseRepoRef(repository.full_name);
  if (!repo) return { ok: false, reason: `repository.full_name: not owner/name: "${repository.full_name.slice(0, 200)}"` };
  // Comments on pull requests arrive as issue_comment events too; submissions are issues only.
  if (rawIssue.pull_request) return { ok: false, reason: "a pull request, not an issue" };
  const issue = issueFromJson({ ...rawIssue, user: rawIssue.user ?? null });
  if (event === "issues") return { ok: true, delivery: { event, action, repo, issue } };
  const comment = Comment.safeParse((payload as { comment?: unknown }).comment);
  if (!comment.success) return { ok: false, reason: problem(comment.error, "comment") };
  return { ok: true, delivery: { event, action, repo, issue, comment: commentFromJson({ ...comment.data, body: comment.data.body ?? "", user: comment.data.user ?? null }) } };
}
