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
import { connectGitHub, type ConnectOptions } from "../github/connect";
import { DownloadError, downloadBundle, type DownloadedBundle } from "../github/download-bundle";
import { GitHubApiError, hasWriteAccess, type GitHubComment, type GitHubIssue, type GitHubPort, type RepoRef } from "../github/github-client";
import { parseIssueForm, renderFormProblems, SUBMISSION_LABEL, type IssueSubmission } from "../github/issue-form";
import { parseSlashCommand, type SlashCommand } from "../github/slash-command";
import { readWebhookPayload } from "../github/webhook-payload";
import { defaultVersionId } from "./benchmarks";
import { githubConfigured, githubSettingsFromEnv, type GitHubSettings } from "./github-settings";
import { LABEL_PREFIX, loadIssueStatus, renderStatusComment, STATUS_MARKER, statusHash, statusLabel } from "./github-status";
import { ingestBundle, metadataFromBundle, reviseBundle, type SubmissionMetadata } from "./ingest";
import { applyReviewAction, type ReviewAction } from "./review";
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

export interface IntakeOptions {
  now?: () => Date;
  log?: (line: string) => void;
  download?: GitHubIntake["download"];
  /** Default the database's default benchmark version. */
  versionId?: number;
  /** Octokit's retry and throttling (default on, except against a local server). */
  connect?: ConnectOptions;
}

/** There is no benchmark for new submissions: the intake cannot run. */
export class NoDefaultBenchmarkError extends Error {
  override readonly name = "NoDefaultBenchmarkError";
  constructor() {
    super("no default benchmark in the database");
  }
}

/**
 * The intake for a database and settings, connected to GitHub: the one way the CLI, the
 * webhook and the admin mirror build it. Throws GitHubNotConfiguredError without credentials
 * (check `githubConfigured` first) and NoDefaultBenchmarkError without a benchmark.
 */
export async function createGitHubIntake(db: Db, settings: GitHubSettings, options: IntakeOptions = {}): Promise<GitHubIntake> {
  const versionId = options.versionId ?? defaultVersionId(db);
  if (versionId === undefined) throw new NoDefaultBenchmarkError();
  const gh = await connectGitHub(settings, options.connect);
  return {
    db,
    gh,
    settings,
    versionId,
    now: options.now ?? (() => new Date()),
    ...(options.download ? { download: options.download } : {}),
    ...(options.log ? { log: options.log } : {}),
  };
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
    await applyReviewAction(ctx.db, row.submissionId, reviewActionOf(command), { actor: `github:${login}`, at: ctx.now() });
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

/** A slash command is a review action; `/rescore` records where it was asked for. */
function reviewActionOf(command: SlashCommand): ReviewAction {
  return command.name === "rescore" ? { name: "rescore", reason: "rescore requested on GitHub" } : command;
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

/** Does what a stored delivery asks; returns false when it is not ours to handle. */
async function handleDelivery(ctx: GitHubIntake, event: string, payload: Record<string, unknown>): Promise<boolean> {
  const read = readWebhookPayload(event, payload);
  if (!read.ok) return false;
  const { repo, issue, action } = read.delivery;
  if (ctx.settings.repo && fullName(ctx.settings.repo).toLowerCase() !== fullName(repo).toLowerCase()) return false;
  if (!issue.labels.includes(SUBMISSION_LABEL)) return false;
  if (read.delivery.event === "issues" && (action === "opened" || action === "edited" || action === "reopened" || action === "labeled")) {
    await processIssue(ctx, repo, issue);
  } else if (read.delivery.event === "issue_comment" && action === "created") {
    await readComments(ctx, repo, issue, [read.delivery.comment]);
  } else {
    return false;
  }
  const row = ctx.db.select().from(githubIssues).where(and(eq(githubIssues.repo, fullName(repo)), eq(githubIssues.number, issue.number))).get();
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
  return syncIssue(await createGitHubIntake(db, settings), found.repo, found.row);
}
