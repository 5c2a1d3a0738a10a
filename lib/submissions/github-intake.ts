/**
 * Submissions from GitHub issues: an issue form becomes a submission (an edited ZIP link a
 * new revision of it), maintainer slash commands move it, and one bot comment and a label
 * say where it stands. Polling and the webhook both end here; the work is idempotent, so an
 * issue or comment seen twice changes nothing the second time.
 *
 * Everything here downloads, validates or calls GitHub, so it runs in the worker or the CLI,
 * never in the web process (the webhook route only stores deliveries). Each issue, comment
 * and delivery is handled on its own: a failure marks that one and the pass goes on.
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
import { commentText, fitComment } from "../github/comment-text";
import { describeProblem, parseIssueForm, type FormProblem, type IssueSubmission } from "../github/issue-form";
import { parseSlashCommand, type SlashCommand } from "../github/slash-command";
import { readWebhookPayload } from "../github/webhook-payload";
import { defaultVersionId } from "./benchmarks";
import { isBusy } from "./db-busy";
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
  /** Validation and ingestion of a downloaded bundle; default `ingestBundle` (a seam for tests). */
  ingest?: typeof ingestBundle;
  /** Validation of a new revision; default `reviseBundle` (a seam for tests). */
  revise?: typeof reviseBundle;
  /** Stops downloads and delivery passes (the worker's SIGTERM); what is cut short is left for later. */
  signal?: AbortSignal;
  log?: (line: string) => void;
}

export interface IntakeOptions {
  now?: () => Date;
  log?: (line: string) => void;
  download?: GitHubIntake["download"];
  ingest?: GitHubIntake["ingest"];
  revise?: GitHubIntake["revise"];
  signal?: AbortSignal;
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
    ...(options.ingest ? { ingest: options.ingest } : {}),
    ...(options.revise ? { revise: options.revise } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.log ? { log: options.log } : {}),
  };
}

/** `failed`: processing the issue threw; the issue is marked and the pass goes on. */
export type IssueOutcome = "ignored" | "unchanged" | "needs_changes" | "deferred" | "ingested" | "revised" | "failed";
export type CommandOutcome = "none" | "done" | "refused" | "failed";

const REPLY_MARKER = "<!-- agentboard:reply -->";
const MAX_ATTEMPTS = 3;
/**
 * A download that fails for a passing reason (timeout, network, HTTP 5xx) is tried on this
 * many passes for the same issue body, then left until the issue is edited: a URL that always
 * times out cannot hold every pass for the download timeout forever.
 */
export const MAX_DOWNLOAD_ATTEMPTS = 3;
/** What a reply or problem quotes of an error message. */
const ERROR_TEXT_CHARS = 300;
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

/** Whether the issue carries one of the submission labels (ours, VAKRA's, or GITHUB_SUBMISSION_LABELS). */
function isSubmission(ctx: GitHubIntake, issue: { labels: readonly string[] }): boolean {
  return issue.labels.some((l) => ctx.settings.submissionLabels.includes(l));
}

function formMetadata(form: IssueSubmission): SubmissionMetadata {
  return {
    agentName: form.agentName,
    maintainer: form.maintainer,
    models: form.models,
    description: form.description,
    links: metadataFromBundle(form.metadata).links ?? {},
    contact: form.contact,
    agentType: form.agentType,
    notes: form.notes,
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

/** Problems are stored as plain text, one item a line; the status comment neutralises them. */
function formProblemText(problems: readonly FormProblem[]): string {
  const intro = problems.length === 1 ? "The submission form has a problem. Please edit the issue to fix it:" : "The submission form has problems. Please edit the issue to fix them:";
  return [intro, ...problems.slice(0, 20).map(describeProblem), ...(problems.length > 20 ? [`…and ${problems.length - 20} more`] : [])].join("\n");
}

/** An error's message without our own paths (the server's layout is nobody's business), capped. */
function errorText(ctx: GitHubIntake, err: unknown): string {
  let text = err instanceof Error ? err.message : String(err);
  for (const dir of [ctx.settings.bundleDir, process.cwd()]) if (dir.length > 1) text = text.split(dir).join("…");
  text = text.replace(/\s+/g, " ").trim();
  return text.length > ERROR_TEXT_CHARS ? `${text.slice(0, ERROR_TEXT_CHARS)}…` : text;
}

function describeDownloadError(ctx: GitHubIntake, err: unknown): string {
  if (err instanceof DownloadError) return `ZIP link: the bundle could not be downloaded (${err.code}): ${errorText(ctx, err)}`;
  return `ZIP link: the bundle could not be downloaded: ${errorText(ctx, err)}`;
}

/** A failure worth trying again on a later pass (the database or GitHub was busy), not the issue's fault. */
function isPassing(err: unknown): boolean {
  if (isBusy(err)) return true;
  return err instanceof GitHubApiError && (err.status === 0 || err.status === 429 || err.status >= 500);
}

/** Passing download failures per issue body, to stop retrying after MAX_DOWNLOAD_ATTEMPTS (per process). */
const downloadFailures = new Map<string, number>();

/**
 * Reads an issue's form; ingests or revises its submission when the body changed. Never
 * throws: whatever fails (a bundle that crashes validation, a database error) marks this
 * issue with a readable problem and records its body, so the same bundle is not downloaded
 * again until the issue is edited; only a passing failure (database busy) is left for the
 * next pass.
 */
export function processIssue(ctx: GitHubIntake, repo: RepoRef, issue: GitHubIssue): Promise<IssueOutcome> {
  return serialised(`${fullName(repo)}#${issue.number}`, async () => {
    if (!isSubmission(ctx, issue)) return "ignored";
    try {
      return await readIssue(ctx, repo, issue);
    } catch (err) {
      ctx.log?.(`#${issue.number}: processing failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
      try {
        const row = issueRow(ctx, repo, issue);
        const problem = `ZIP link: Agentboard could not process this bundle (${errorText(ctx, err)}). Check it with the validator, fix it and edit the issue: the same bundle is not read again until the issue changes.`;
        updateRow(ctx, row.id, { ...(isPassing(err) ? {} : { bodySha256: sha256(issue.body) }), problem });
      } catch (inner) {
        ctx.log?.(`#${issue.number}: could not record the failure: ${inner instanceof Error ? inner.message : String(inner)}`);
      }
      return "failed";
    }
  });
}

async function readIssue(ctx: GitHubIntake, repo: RepoRef, issue: GitHubIssue): Promise<IssueOutcome> {
  const row = issueRow(ctx, repo, issue);
  const bodySha = sha256(issue.body);
  if (row.bodySha256 === bodySha) return "unchanged";
  const sub = row.submissionId === null ? undefined : ctx.db.select().from(submissions).where(eq(submissions.id, row.submissionId)).get();
  // A run in progress is left to finish; the edit is read again on a later pass.
  if (sub && (sub.state === "scoring" || sub.state === "received" || sub.state === "validating")) return "deferred";

  const form = parseIssueForm(issue.body);
  if (!form.ok) {
    updateRow(ctx, row.id, { bodySha256: bodySha, problem: formProblemText(form.problems) });
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
    const attemptKey = `${fullName(repo)}#${issue.number}:${bodySha}`;
    try {
      const bundle = await (ctx.download ?? ((u) => downloadBundle(u, downloadOptions(ctx.settings, ctx.signal))))(form.submission.zipUrl);
      bundlePath = await saveBundle(ctx.settings.bundleDir, bundle);
      downloadFailures.delete(attemptKey);
      ctx.log?.(`#${issue.number}: downloaded ${bundle.size} bytes, sha256 ${bundle.sha256.slice(0, 12)}`);
    } catch (err) {
      // Stopped (the worker is shutting down): nothing is recorded, a later pass reads it again.
      if (ctx.signal?.aborted) return "deferred";
      // A passing failure leaves the body unread, so a later pass tries again, a few times.
      const passing = err instanceof DownloadError && (err.code === "timeout" || err.code === "network" || (err.status ?? 0) >= 500);
      const attempts = (downloadFailures.get(attemptKey) ?? 0) + 1;
      const retry = passing && attempts < MAX_DOWNLOAD_ATTEMPTS;
      if (retry) downloadFailures.set(attemptKey, attempts);
      else downloadFailures.delete(attemptKey);
      const problem = describeDownloadError(ctx, err) + (passing && !retry ? ` (tried ${attempts} times; edit the issue to try again)` : "");
      updateRow(ctx, row.id, { ...(retry ? {} : { bodySha256: bodySha }), problem });
      return "needs_changes";
    }
  }

  if (!sub) {
    const out = await (ctx.ingest ?? ingestBundle)(ctx.db, { versionId: ctx.versionId, bundlePath, source: "github", sourceRef: issue.htmlUrl, actor, metadata }, ctx.now);
    const owner = ctx.db.select().from(githubIssues).where(eq(githubIssues.submissionId, out.submissionId)).get();
    if (!out.created && owner?.id !== row.id) {
      const where = owner ? `in issue #${owner.number}` : `as submission ${out.submissionId}`;
      updateRow(ctx, row.id, { bodySha256: bodySha, problem: `ZIP link: this bundle was already submitted ${where}.` });
      return "needs_changes";
    }
    updateRow(ctx, row.id, { submissionId: out.submissionId, bodySha256: bodySha, zipUrl: form.submission.zipUrl, problem: null });
    return "ingested";
  }
  const out = await (ctx.revise ?? reviseBundle)(ctx.db, sub.id, { bundlePath, actor, metadata }, ctx.now);
  if (!out.ok) {
    if (out.reason === "busy") return "deferred";
    updateRow(ctx, row.id, { bodySha256: bodySha, problem: `ZIP link: ${out.reason}.` });
    return "needs_changes";
  }
  updateRow(ctx, row.id, { bodySha256: bodySha, zipUrl: form.submission.zipUrl, problem: null });
  return "revised";
}

function downloadOptions(s: GitHubSettings, signal?: AbortSignal) {
  return { allowedHosts: s.allowedHosts, maxBytes: s.maxBundleBytes, timeoutMs: s.downloadTimeoutMs, allowLoopbackHttp: s.allowLoopbackHttp, userAgent: "agentboard", ...(signal ? { signal } : {}) };
}

/** A reply to a command; any submitted text in `text` is already neutralised (commentText). */
async function reply(ctx: GitHubIntake, repo: RepoRef, issueNumber: number, text: string): Promise<void> {
  await ctx.gh.createComment(repo, issueNumber, fitComment(`${REPLY_MARKER}\n${text}`));
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
    await reply(ctx, repo, issue.number, `\`/${command.name}\` was not applied: ${commentText(err.message.replace(/^submission \d+ /, "the submission "))}${state ? ` (it is ${state})` : ""}.`);
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
  let commentId: number;
  try {
    commentId = await postStatus(ctx, repo, row, body);
  } catch (err) {
    // GitHub refused the body (422: too long, or something in it): a short status instead,
    // so the issue still says where it stands. The comment is built to fit, so this is rare.
    if (!(err instanceof GitHubApiError && err.status === 422)) throw err;
    ctx.log?.(`#${row.number}: GitHub refused the status comment (${err.message}); posting a short one`);
    commentId = await postStatus(ctx, repo, row, shortStatus(status));
  }
  const current = (await ctx.gh.getIssue(repo, row.number)).labels;
  for (const old of current.filter((l) => l.startsWith(LABEL_PREFIX) && l !== label.name)) await ctx.gh.removeLabel(repo, row.number, old);
  if (!current.includes(label.name)) await ctx.gh.addLabels(repo, row.number, [label]);
  updateRow(ctx, row.id, { commentId, postedHash: hash });
  return true;
}

/** Edits the issue's status comment, or posts it when there is none (or it was deleted); returns its id. */
async function postStatus(ctx: GitHubIntake, repo: RepoRef, row: IssueRow, body: string): Promise<number> {
  const id = ctx.db.select({ commentId: githubIssues.commentId }).from(githubIssues).where(eq(githubIssues.id, row.id)).get()?.commentId ?? row.commentId;
  if (id !== null) {
    try {
      await ctx.gh.updateComment(repo, id, body);
      return id;
    } catch (err) {
      if (!(err instanceof GitHubApiError && err.status === 404)) throw err; // deleted: post a new one
    }
  }
  const created = (await ctx.gh.createComment(repo, row.number, body)).id;
  // Kept at once, so a failure after this does not post a second status comment next time.
  updateRow(ctx, row.id, { commentId: created });
  return created;
}

/** The status with no submitted text at all, for when GitHub refuses the full comment. */
function shortStatus(status: ReturnType<typeof loadIssueStatus>): string {
  const s = status.submission;
  const where = s ? `The full status is on the submission's page: ${s.detailUrl}` : "Edit the issue to fix the submission form; Agentboard reads the new version by itself.";
  return `${STATUS_MARKER}\n### Agentboard: ${s ? s.state : "needs changes"}\n\nThe full status could not be shown here. ${where}\n`;
}

/**
 * Brings every issue of the repository up to date; returns how many were edited. One issue's
 * failure (GitHub refusing its comment, say) is logged and the others are still brought up to date.
 */
export async function syncAll(ctx: GitHubIntake, repo: RepoRef): Promise<number> {
  let n = 0;
  for (const row of ctx.db.select().from(githubIssues).where(eq(githubIssues.repo, fullName(repo))).all()) {
    try {
      if (await syncIssue(ctx, repo, row)) n++;
    } catch (err) {
      ctx.log?.(`#${row.number}: status not updated: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  return n;
}

/**
 * Runs the slash commands of new comments, oldest first. A comment whose command fails for
 * a reason of its own is answered and passed over; a passing failure (GitHub or the database
 * busy) stops here and the comment is read again next time.
 */
async function readComments(ctx: GitHubIntake, repo: RepoRef, issue: GitHubIssue, comments: GitHubComment[]): Promise<number> {
  const row = issueRow(ctx, repo, issue);
  let n = 0;
  for (const c of comments.filter((x) => x.id > row.lastCommentId).sort((a, b) => a.id - b.id)) {
    try {
      if ((await processComment(ctx, repo, issue, c)) !== "none") n++;
    } catch (err) {
      if (isPassing(err)) throw err;
      ctx.log?.(`#${issue.number}: comment ${c.id} failed: ${err instanceof Error ? err.message : String(err)}`);
      await reply(ctx, repo, issue.number, `A command in a comment could not be carried out (${commentText(errorText(ctx, err))}); nothing was changed.`).catch(() => {});
    }
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
  /** Issues whose processing failed in this pass (each is marked; the pass went on). */
  failed: number;
}

/**
 * One polling pass (safe under cron): pending webhook work, every open submission issue and
 * its new comments, then status. Each issue is processed on its own: one that fails is
 * logged (and marked, see processIssue) and the pass goes on to the next.
 */
export async function pollRepository(ctx: GitHubIntake, repo: RepoRef): Promise<PollSummary> {
  const deliveries = await processPendingDeliveries(ctx);
  // GitHub's label filter means "all of these": one listing per label, each issue once.
  const byNumber = new Map<number, GitHubIssue>();
  for (const label of ctx.settings.submissionLabels) for (const issue of await ctx.gh.listOpenIssues(repo, label)) byNumber.set(issue.number, issue);
  const issues = [...byNumber.values()].sort((a, b) => a.number - b.number);
  let changed = 0;
  let commands = 0;
  let failed = 0;
  for (const issue of issues) {
    try {
      const outcome = await processIssue(ctx, repo, issue);
      if (outcome !== "unchanged" && outcome !== "ignored") changed++;
      if (outcome === "failed") failed++;
      ctx.log?.(`#${issue.number}: ${outcome}`);
      commands += await readComments(ctx, repo, issue, await ctx.gh.listComments(repo, issue.number));
    } catch (err) {
      failed++;
      ctx.log?.(`#${issue.number}: ${err instanceof Error ? err.message : String(err)}; left for the next pass`);
    }
  }
  const synced = await syncAll(ctx, repo);
  return { issues: issues.length, changed, commands, deliveries, synced, failed };
}

/** Stores a webhook delivery for processing; a delivery id seen before is a duplicate. */
export function recordDelivery(db: Db, delivery: { id: string; event: string; payload: Record<string, unknown> }, now: Date): "queued" | "duplicate" {
  const res = db.insert(githubDeliveries).values({ deliveryId: delivery.id, event: delivery.event, payload: delivery.payload, status: "pending", receivedAt: now }).onConflictDoNothing().run();
  return res.changes === 1 ? "queued" : "duplicate";
}

/** `retry`: not done yet (a run in progress, the worker stopping); the delivery stays pending. */
type DeliveryOutcome = { handled: true } | { handled: false; reason: string } | { retry: string };

/**
 * Does what a stored delivery asks, or says why it is not ours to handle. Only deliveries for
 * the configured repository (GITHUB_REPOSITORY) are acted on; without one, none is.
 */
async function handleDelivery(ctx: GitHubIntake, event: string, payload: Record<string, unknown>): Promise<DeliveryOutcome> {
  if (!ctx.settings.repo) return { handled: false, reason: "GITHUB_REPOSITORY is not set: no delivery is acted on" };
  const read = readWebhookPayload(event, payload);
  if (!read.ok) return { handled: false, reason: read.reason };
  const { repo, issue, action } = read.delivery;
  if (fullName(ctx.settings.repo).toLowerCase() !== fullName(repo).toLowerCase()) return { handled: false, reason: `for ${fullName(repo)}, not ${fullName(ctx.settings.repo)}` };
  // The configured spelling, so the issue's row is the one polling uses.
  const ours = ctx.settings.repo;
  if (!isSubmission(ctx, issue)) return { handled: false, reason: "not a submission issue" };
  if (read.delivery.event === "issues" && (action === "opened" || action === "edited" || action === "reopened" || action === "labeled")) {
    // A run in progress: the edit waits (checked here first, so waiting costs no API call).
    if (submissionBusy(ctx, ours, issue.number)) return { retry: "deferred: a run is in progress" };
    // The issue as it is now, not as the delivery saw it: a delivery retried after a later
    // edit must not bring an older body back.
    const current = await ctx.gh.getIssue(ours, issue.number);
    const outcome = await processIssue(ctx, ours, current);
    if (outcome === "deferred") return { retry: "deferred: a run is in progress or the worker stopped" };
  } else if (read.delivery.event === "issue_comment" && action === "created") {
    await readComments(ctx, ours, issue, [read.delivery.comment]);
  } else {
    return { handled: false, reason: `the "${action.slice(0, 40)}" action is not handled` };
  }
  const row = ctx.db.select().from(githubIssues).where(and(eq(githubIssues.repo, fullName(ours)), eq(githubIssues.number, issue.number))).get();
  if (row) await syncIssue(ctx, ours, row);
  return { handled: true };
}

function submissionBusy(ctx: GitHubIntake, repo: RepoRef, issueNumber: number): boolean {
  const row = ctx.db.select({ submissionId: githubIssues.submissionId }).from(githubIssues).where(and(eq(githubIssues.repo, fullName(repo)), eq(githubIssues.number, issueNumber))).get();
  if (!row?.submissionId) return false;
  const state = ctx.db.select({ state: submissions.state }).from(submissions).where(eq(submissions.id, row.submissionId)).get()?.state;
  return state === "scoring" || state === "received" || state === "validating";
}

/** How many stored deliveries one pass reads at most (oldest first); the rest wait for the next pass. */
export const DELIVERIES_PER_PASS = 100;

/**
 * Works through stored deliveries, oldest first, each on its own: a failure is recorded on
 * that delivery (and retried on later passes, a few times) and the pass goes on. The worker
 * process calls this (scripts/commands/queue.ts); the web route only stores deliveries.
 */
export async function processPendingDeliveries(ctx: GitHubIntake, limit: number = DELIVERIES_PER_PASS): Promise<number> {
  const rows = ctx.db
    .select()
    .from(githubDeliveries)
    .where(or(eq(githubDeliveries.status, "pending"), and(eq(githubDeliveries.status, "failed"), lt(githubDeliveries.attempts, MAX_ATTEMPTS))))
    .orderBy(githubDeliveries.receivedAt)
    .limit(limit)
    .all();
  let n = 0;
  for (const d of rows) {
    let status: "done" | "ignored" | "failed";
    let error: string | null = null;
    if (ctx.signal?.aborted) break;
    try {
      const out = await handleDelivery(ctx, d.event, d.payload);
      if ("retry" in out) {
        ctx.db.update(githubDeliveries).set({ error: out.retry }).where(eq(githubDeliveries.deliveryId, d.deliveryId)).run();
        continue;
      }
      status = out.handled ? "done" : "ignored";
      if (!out.handled) error = out.reason;
    } catch (err) {
      status = "failed";
      error = err instanceof Error ? err.message : String(err);
      ctx.log?.(`delivery ${d.deliveryId}: ${error}`);
    }
    ctx.db.update(githubDeliveries).set({ status, error: error?.slice(0, 2_000) ?? null, attempts: d.attempts + 1, processedAt: ctx.now() }).where(eq(githubDeliveries.deliveryId, d.deliveryId)).run();
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

/**
 * Asks for a submission's state to be mirrored on its issue (an action taken on the admin
 * pages). Nothing is sent from here, which runs in the web process: the issue's status is
 * marked stale and the worker's next GitHub pass (scripts/commands/queue.ts) edits the
 * comment and label. True when the submission came from a GitHub issue and GitHub is configured.
 */
export async function mirrorSubmission(db: Db, submissionId: number, settings: GitHubSettings = githubSettingsFromEnv()): Promise<boolean> {
  const found = issueOfSubmission(db, submissionId);
  if (!found || !githubConfigured(settings)) return false;
  db.update(githubIssues).set({ postedHash: null }).where(eq(githubIssues.id, found.row.id)).run();
  return true;
}
