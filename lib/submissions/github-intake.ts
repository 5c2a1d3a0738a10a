/**
 * Submissions from GitHub issues: an issue form becomes a submission (an edited ZIP link a
 * new revision of it), maintainer slash commands move it, and one bot comment and a label
 * say where it stands. Polling and the webhook both end here; the work is idempotent, so an
 * issue or comment seen twice changes nothing the second time.
 */
import { createHash } from "node:crypto";
import { mkdir, rename, writeFile } from "node:fs/promises";
import path from "node:path";
import { and, eq, lt, or } from "drizzle-orm";
import type { Db } from "../../db/client";
import { githubDeliveries, githubIssues, submissions } from "../../db/schema";
import { DownloadError, downloadBundle, type DownloadedBundle } from "../github/download-bundle";
import { GitHubApiError, hasWriteAccess, type GitHubComment, type GitHubIssue, type GitHubPort, type RepoRef } from "../github/github-client";
import { parseIssueForm, renderFormProblems, SUBMISSION_LABEL, type IssueSubmission } from "../github/issue-form";
import { parseSlashCommand, type SlashCommand } from "../github/slash-command";
import { ingestBundle, metadataFromBundle, reviseBundle, type SubmissionMetadata } from "./ingest";
import { approve, reject, rescore, withdraw } from "./review";
import { defaultVersionId } from "./benchmarks";
import { connectGitHub, githubConfigured, githubSettingsFromEnv, type GitHubSettings } from "./github-settings";
import { LABEL_PREFIX, loadIssueStatus, renderStatusComment, STATUS_MARKER, statusHash, statusLabel } from "./github-status";
import { TransitionError } from "./transitions";

export interface GitHubIntake {
  db: Db;
  gh: GitHubPort;
  settings: GitHubSettings;
  /** The benchmark version new submissions are scored against. */
  versionId: number;
  now: () => Date;
  /** Bundle download; default the SSRF-safe downloader with the settings' limits. */
  download?: (url: string) => Promise<DownloadedBundle>;
  log?: (line: string) => void;
}

export type IssueOutcome = "ignored" | "unchanged" | "needs_changes" | "deferred" | "ingested" | "revised";
export type CommandOutcome = "none" | "done" | "refused" | "failed";

const REPLY_MARKER = "<!-- agentboard:reply -->";
const MAX_ATTEMPTS = 3;
const fullName = (r: RepoRef) => `${r.owner}/${r.repo}`;
const sha256 = (s: string) => createHash("sha256").update(s).digest("hex");

type IssueRow = typeof githubIssues.$inferSelect;

/** One issue at a time per process: a webhook and a poll racing on it would revise it twice. */
const issueLocks = new Map<string, Promise<unknown>>();
function serialised<T>(key: string, work: () => Promise<T>): Promise<T> {
  const before = issueLocks.get(key) ?? Promise.resolve();
  const next = before.catch(() => {}).then(work);
  issueLocks.set(key, next);
  void next.finally(() => {
    if (issueLocks.get(key) === next) issueLocks.delete(key);
  }).catch(() => {});
  return next;
}

function issueRow(ctx: GitHubIntake, repo: RepoRef, issue: GitHubIssue): IssueRow {
  const at = ctx.now();
  ctx.db
    .insert(githubIssues)
    .values({ repo: fullName(repo), number: issue.number, author: issue.author ?? "ghost", createdAt: at, updatedAt: at })
    .onConflictDoNothing()
    .run();
  return ctx.db.select().from(githubIssues).where(and(eq(githubIssues.repo, fullName(repo)), eq(githubIssues.number, issue.number))).get()!;
}

function updateRow(ctx: GitHubIntake, id: number, values: Partial<IssueRow>): void {
  ctx.db.update(githubIssues).set({ ...values, updatedAt: ctx.now() }).where(eq(githubIssues.id, id)).run();
}

function formMetadata(form: IssueSubmission): SubmissionMetadata {
  return {
    agentName: form.agentName,
    maintainer: form.maintainer,
    models: form.models,
    description: form.description,
    links: metadataFromBundle(form.metadata).links ?? {},
  };
}

async function saveBundle(dir: string, bundle: DownloadedBundle): Promise<string> {
  await mkdir(dir, { recursive: true });
  const file = path.join(dir, `${bundle.sha256}.zip`);
  // Written aside and renamed, so a crash never leaves half a bundle under its final name.
  const tmp = `${file}.${process.pid}.part`;
  await writeFile(tmp, bundle.bytes);
  await rename(tmp, file);
  return file;
}

function describeDownloadError(err: unknown): string {
  if (err instanceof DownloadError) return `ZIP link: the bundle could not be downloaded (${err.code}): ${err.message}`;
  return `ZIP link: the bundle could not be downloaded: ${err instanceof Error ? err.message : String(err)}`;
}

/** Reads an issue's form; ingests or revises its submission when the body changed. */
export function processIssue(ctx: GitHubIntake, repo: RepoRef, issue: GitHubIssue): Promise<IssueOutcome> {
  return serialised(`${fullName(repo)}#${issue.number}`, async () => {
    if (!issue.labels.includes(SUBMISSION_LABEL)) return "ignored";
    const row = issueRow(ctx, repo, issue);
    const bodySha = sha256(issue.body);
    if (row.bodySha256 === bodySha) return "unchanged";
    const sub = row.submissionId === null ? undefined : ctx.db.select().from(submissions).where(eq(submissions.id, row.submissionId)).get();
    // A run in progress is left to finish; the edit is read again on a later pass.
    if (sub && (sub.state === "scoring" || sub.state === "received" || sub.state === "validating")) return "deferred";

    const form = parseIssueForm(issue.body);
    if (!form.ok) {
      updateRow(ctx, row.id, { bodySha256: bodySha, problem: renderFormProblems(form.problems) });
      return "needs_changes";
    }
    if (sub?.state === "withdrawn") {
      updateRow(ctx, row.id, { bodySha256: bodySha, problem: "the submission was withdrawn; open a new issue to submit again." });
      return "needs_changes";
    }
    const metadata = formMetadata(form.submission);
    const actor = `github:${issue.author ?? "ghost"}`;
    let bundlePath: string;
    if (sub && row.zipUrl === form.submission.zipUrl) {
      bundlePath = sub.bundlePath; // only the form's details changed
    } else {
      try {
        const bundle = await (ctx.download ?? ((u) => downloadBundle(u, downloadOptions(ctx.settings))))(form.submission.zipUrl);
        bundlePath = await saveBundle(ctx.settings.bundleDir, bundle);
        ctx.log?.(`#${issue.number}: downloaded ${bundle.size} bytes, sha256 ${bundle.sha256.slice(0, 12)}`);
      } catch (err) {
        // A transient failure leaves the body unread, so the next pass tries again.
        const transient = err instanceof DownloadError && (err.code === "timeout" || err.code === "network" || (err.status ?? 0) >= 500);
        updateRow(ctx, row.id, { ...(transient ? {} : { bodySha256: bodySha }), problem: describeDownloadError(err) });
        return "needs_changes";
      }
    }

    if (!sub) {
      const out = await ingestBundle(ctx.db, { versionId: ctx.versionId, bundlePath, source: "github", sourceRef: issue.htmlUrl, actor, metadata }, ctx.now);
      const owner = ctx.db.select().from(githubIssues).where(eq(githubIssues.submissionId, out.submissionId)).get();
      if (!out.created && owner?.id !== row.id) {
        const where = owner ? `in issue #${owner.number}` : `as submission ${out.submissionId}`;
        updateRow(ctx, row.id, { bodySha256: bodySha, problem: `ZIP link: this bundle was already submitted ${where}.` });
        return "needs_changes";
      }
      updateRow(ctx, row.id, { submissionId: out.submissionId, bodySha256: bodySha, zipUrl: form.submission.zipUrl, problem: null });
      return "ingested";
    }
    const out = await reviseBundle(ctx.db, sub.id, { bundlePath, actor, metadata }, ctx.now);
    if (!out.ok) {
      if (out.reason === "busy") return "deferred";
      updateRow(ctx, row.id, { bodySha256: bodySha, problem: `ZIP link: ${out.reason}.` });
      return "needs_changes";
    }
    updateRow(ctx, row.id, { bodySha256: bodySha, zipUrl: form.submission.zipUrl, problem: null });
    return "revised";
  });
}

function downloadOptions(s: GitHubSettings) {
  return { allowedHosts: s.allowedHosts, maxBytes: s.maxBundleBytes, timeoutMs: s.downloadTimeoutMs, allowLoopbackHttp: s.allowLoopbackHttp, userAgent: "agentboard" };
}

async function reply(ctx: GitHubIntake, repo: RepoRef, issueNumber: number, text: string): Promise<void> {
  await ctx.gh.createComment(repo, issueNumber, `${REPLY_MARKER}\n${text}`);
}

function isOwnComment(c: GitHubComment): boolean {
  return c.authorType === "Bot" || c.body.startsWith(STATUS_MARKER) || c.body.startsWith(REPLY_MARKER);
}

/** Runs a slash command from a comment, when its author may. */
export async function processComment(ctx: GitHubIntake, repo: RepoRef, issue: GitHubIssue, comment: GitHubComment): Promise<CommandOutcome> {
  if (isOwnComment(comment)) return "none";
  const command = parseSlashCommand(comment.body);
  if (!command) return "none";
  const row = issueRow(ctx, repo, issue);
  const login = comment.author ?? "ghost";
  const who = `\`${login.replace(/`/g, "")}\``;
  // Checked through the API every time: a role can be taken away between two commands.
  const permission = await ctx.gh.getPermission(repo, login);
  const mayAct = hasWriteAccess(permission) || (command.name === "withdraw" && login === row.author);
  if (!mayAct) {
    const needs = command.name === "withdraw" ? "the issue's author or a maintainer with write access" : "maintainers with write access to this repository";
    await reply(ctx, repo, issue.number, `Thanks, ${who}. \`/${command.name}\` can only be used by ${needs}, so nothing was changed.`);
    await ctx.gh.addReaction(repo, comment.id, "confused").catch(() => {});
    return "refused";
  }
  if (row.submissionId === null) {
    await reply(ctx, repo, issue.number, `\`/${command.name}\`: there is no submission on this issue yet, so nothing was changed.`);
    return "failed";
  }
  try {
    await runCommand(ctx, row.submissionId, command, { actor: `github:${login}`, at: ctx.now() });
  } catch (err) {
    if (!(err instanceof TransitionError)) throw err;
    const state = ctx.db.select({ state: submissions.state }).from(submissions).where(eq(submissions.id, row.submissionId)).get()?.state;
    await reply(ctx, repo, issue.number, `\`/${command.name}\` was not applied: ${err.message.replace(/^submission \d+ /, "the submission ")}${state ? ` (it is ${state})` : ""}.`);
    await ctx.gh.addReaction(repo, comment.id, "confused").catch(() => {});
    return "failed";
  }
  await ctx.gh.addReaction(repo, comment.id, "+1").catch(() => {});
  return "done";
}

export async function runCommand(ctx: Pick<GitHubIntake, "db">, submissionId: number, command: SlashCommand, who: { actor: string; at: Date }): Promise<void> {
  switch (command.name) {
    case "approve":
      return approve(ctx.db, submissionId, who);
    case "reject":
      return reject(ctx.db, submissionId, who, command.reason);
    case "withdraw":
      return withdraw(ctx.db, submissionId, who, command.reason);
    case "rescore":
      await rescore(ctx.db, submissionId, who, {}, "rescore requested on GitHub");
  }
}

/** Edits the status comment and the state label when what they say has changed. */
export async function syncIssue(ctx: GitHubIntake, repo: RepoRef, row: IssueRow): Promise<boolean> {
  const status = loadIssueStatus(ctx.db, row, ctx.settings.publicUrl);
  const body = renderStatusComment(status);
  const label = statusLabel(status);
  const hash = statusHash(body, label.name);
  if (hash === row.postedHash) return false;
  let commentId = row.commentId;
  if (commentId !== null) {
    try {
      await ctx.gh.updateComment(repo, commentId, body);
    } catch (err) {
      if (!(err instanceof GitHubApiError && err.status === 404)) throw err;
      commentId = null; // somebody deleted it: post a new one
    }
  }
  if (commentId === null) commentId = (await ctx.gh.createComment(repo, row.number, body)).id;
  const current = (await ctx.gh.getIssue(repo, row.number)).labels;
  for (const old of current.filter((l) => l.startsWith(LABEL_PREFIX) && l !== label.name)) await ctx.gh.removeLabel(repo, row.number, old);
  if (!current.includes(label.name)) await ctx.gh.addLabels(repo, row.number, [label]);
  updateRow(ctx, row.id, { commentId, postedHash: hash });
  return true;
}

/** Brings every issue of the repository up to date; returns how many were edited. */
export async function syncAll(ctx: GitHubIntake, repo: RepoRef): Promise<number> {
  let n = 0;
  for (const row of ctx.db.select().from(githubIssues).where(eq(githubIssues.repo, fullName(repo))).all()) {
    if (await syncIssue(ctx, repo, row)) n++;
  }
  return n;
}

async function readComments(ctx: GitHubIntake, repo: RepoRef, issue: GitHubIssue, comments: GitHubComment[]): Promise<number> {
  const row = issueRow(ctx, repo, issue);
  let n = 0;
  for (const c of comments.filter((x) => x.id > row.lastCommentId).sort((a, b) => a.id - b.id)) {
    if ((await processComment(ctx, repo, issue, c)) !== "none") n++;
    // Recorded per comment, so a failure later in the list does not run earlier commands twice.
    updateRow(ctx, row.id, { lastCommentId: c.id });
  }
  return n;
}

export interface PollSummary {
  issues: number;
  changed: number;
  commands: number;
  deliveries: number;
  synced: number;
}

/** One polling pass (safe under cron): every open submission issue, its new comments, pending webhook work, status. */
export async function pollRepository(ctx: GitHubIntake, repo: RepoRef): Promise<PollSummary> {
  const deliveries = await processPendingDeliveries(ctx);
  const issues = await ctx.gh.listOpenIssues(repo, SUBMISSION_LABEL);
  let changed = 0;
  let commands = 0;
  for (const issue of issues) {
    const outcome = await processIssue(ctx, repo, issue);
    if (outcome !== "unchanged" && outcome !== "ignored") changed++;
    ctx.log?.(`#${issue.number}: ${outcome}`);
    commands += await readComments(ctx, repo, issue, await ctx.gh.listComments(repo, issue.number));
  }
  const synced = await syncAll(ctx, repo);
  return { issues: issues.length, changed, commands, deliveries, synced };
}

/** Stores a webhook delivery for processing; a delivery id seen before is a duplicate. */
export function recordDelivery(db: Db, delivery: { id: string; event: string; payload: Record<string, unknown> }, now: Date): "queued" | "duplicate" {
  const res = db.insert(githubDeliveries).values({ deliveryId: delivery.id, event: delivery.event, payload: delivery.payload, status: "pending", receivedAt: now }).onConflictDoNothing().run();
  return res.changes === 1 ? "queued" : "duplicate";
}

interface PayloadIssue {
  number: number;
  title?: string;
  body?: string | null;
  state?: string;
  html_url?: string;
  labels?: ({ name?: string } | string)[];
  user?: { login?: string } | null;
  created_at?: string;
  updated_at?: string;
  pull_request?: unknown;
}

function issueFromPayload(p: PayloadIssue): GitHubIssue {
  return {
    number: p.number,
    title: p.title ?? "",
    body: p.body ?? "",
    state: p.state === "closed" ? "closed" : "open",
    labels: (p.labels ?? []).map((l) => (typeof l === "string" ? l : (l.name ?? ""))),
    author: p.user?.login ?? null,
    htmlUrl: p.html_url ?? "",
    createdAt: p.created_at ?? "",
    updatedAt: p.updated_at ?? "",
  };
}

/** Does what a stored delivery asks; returns false when it is not ours to handle. */
async function handleDelivery(ctx: GitHubIntake, event: string, payload: Record<string, unknown>): Promise<boolean> {
  const repoName = (payload.repository as { full_name?: string } | undefined)?.full_name ?? "";
  const [owner, name] = repoName.split("/");
  if (!owner || !name) return false;
  const repo = { owner, repo: name };
  if (ctx.settings.repo && fullName(ctx.settings.repo).toLowerCase() !== repoName.toLowerCase()) return false;
  const raw = payload.issue as PayloadIssue | undefined;
  if (!raw || raw.pull_request) return false;
  const issue = issueFromPayload(raw);
  if (!issue.labels.includes(SUBMISSION_LABEL)) return false;
  const action = payload.action;
  if (event === "issues" && (action === "opened" || action === "edited" || action === "reopened" || action === "labeled")) {
    await processIssue(ctx, repo, issue);
  } else if (event === "issue_comment" && action === "created") {
    const c = payload.comment as { id: number; body?: string; user?: { login?: string; type?: string } | null; html_url?: string; created_at?: string; updated_at?: string };
    const comment: GitHubComment = { id: c.id, body: c.body ?? "", author: c.user?.login ?? null, authorType: c.user?.type ?? null, htmlUrl: c.html_url ?? "", createdAt: c.created_at ?? "", updatedAt: c.updated_at ?? "" };
    await readComments(ctx, repo, issue, [comment]);
  } else {
    return false;
  }
  const row = ctx.db.select().from(githubIssues).where(and(eq(githubIssues.repo, repoName), eq(githubIssues.number, issue.number))).get();
  if (row) await syncIssue(ctx, repo, row);
  return true;
}

/** Works through stored deliveries, oldest first; a failure is retried on later passes, a few times. */
export async function processPendingDeliveries(ctx: GitHubIntake): Promise<number> {
  const rows = ctx.db
    .select()
    .from(githubDeliveries)
    .where(or(eq(githubDeliveries.status, "pending"), and(eq(githubDeliveries.status, "failed"), lt(githubDeliveries.attempts, MAX_ATTEMPTS))))
    .orderBy(githubDeliveries.receivedAt)
    .all();
  let n = 0;
  for (const d of rows) {
    let status: "done" | "ignored" | "failed";
    let error: string | null = null;
    try {
      status = (await handleDelivery(ctx, d.event, d.payload)) ? "done" : "ignored";
    } catch (err) {
      status = "failed";
      error = err instanceof Error ? err.message : String(err);
      ctx.log?.(`delivery ${d.deliveryId}: ${error}`);
    }
    ctx.db.update(githubDeliveries).set({ status, error, attempts: d.attempts + 1, processedAt: ctx.now() }).where(eq(githubDeliveries.deliveryId, d.deliveryId)).run();
    n++;
  }
  return n;
}

/** The issue a submission came from, to mirror an action taken elsewhere (the admin pages). */
export function issueOfSubmission(db: Db, submissionId: number): { repo: RepoRef; row: IssueRow } | null {
  const row = db.select().from(githubIssues).where(eq(githubIssues.submissionId, submissionId)).get();
  if (!row) return null;
  const [owner, name] = row.repo.split("/");
  return owner && name ? { repo: { owner, repo: name }, row } : null;
}

/** Mirrors a submission's state on its issue, when it came from GitHub and GitHub is configured. */
export async function mirrorSubmission(db: Db, submissionId: number, settings: GitHubSettings = githubSettingsFromEnv()): Promise<boolean> {
  const found = issueOfSubmission(db, submissionId);
  if (!found || !githubConfigured(settings)) return false;
  const ctx: GitHubIntake = { db, gh: await connectGitHub(settings), settings, versionId: defaultVersionId(db) ?? 0, now: () => new Date() };
  return syncIssue(ctx, found.repo, found.row);
}
