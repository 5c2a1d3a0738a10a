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
import { AsyncLocalStorage } from "node:async_hooks";
import { createHash, randomUUID } from "node:crypto";
import { mkdir, rename, writeFile } from "node:fs/promises";
import path from "node:path";
import { and, eq, isNull, lt, notInArray, or, sql, type SQL } from "drizzle-orm";
import { dialectOf, type Db } from "../../db/client";
import { githubDeliveries, githubIssues, submissions } from "../../db/schema";
import { connectGitHub, type ConnectOptions } from "../github/connect";
import { DownloadError, downloadBundle, type DownloadedBundle } from "../github/download-bundle";
import { GitHubApiError, hasWriteAccess, type GitHubComment, type GitHubIssue, type GitHubPort, type LabelSpec, type ReactionContent, type RepoRef } from "../github/github-client";
import { commentText, fitComment } from "../github/comment-text";
import { describeProblem, parseIssueForm, type FormProblem, type IssueSubmission } from "../github/issue-form";
import { parseSlashCommand, type SlashCommand } from "../github/slash-command";
import { readWebhookPayload } from "../github/webhook-payload";
import { defaultVersionId } from "./benchmarks";
import { isBusy, retryBusy, writeTx } from "./db-busy";
import { submissionLabelsOf } from "./github-forms";
import { githubConfigured, githubSettingsFromEnv, type GitHubSettings } from "./github-settings";
import { LABEL_PREFIX, loadIssueStatus, renderStatusComment, STATUS_MARKER, statusHash, statusLabel } from "./github-status";
import { ingestBundle, metadataFromBundle, reviseBundle, type SubmissionMetadata } from "./ingest";
import type { HostedStorage } from "./storage-settings";
import { resolveBundle } from "../storage/bundle";
import { DEFAULT_LEASE_MS, withLease, type HeldLease } from "./named-leases";
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
  /**
   * How long a claim (a webhook delivery, an issue, a repository's pass) lasts without being
   * renewed; the holder renews it every third of that. Default DEFAULT_LEASE_MS.
   */
  leaseMs?: number;
  /** Where downloaded bundles are stored by content for workers on other hosts (IngestInput.storage). */
  storage?: HostedStorage;
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
  leaseMs?: number;
  storage?: HostedStorage;
}

/** There is no benchmark for new submissions: the intake cannot run. */
export class NoDefaultBenchmarkError extends Error {
  override readonly name = "NoDefaultBenchmarkError";
  constructor() {
    super("no benchmark in the database for new submissions");
  }
}

/**
 * The intake for a database and settings, connected to GitHub: the one way the CLI, the
 * webhook and the admin mirror build it. Throws GitHubNotConfiguredError without credentials
 * (check `githubConfigured` first) and NoDefaultBenchmarkError without a benchmark.
 */
export async function createGitHubIntake(db: Db, settings: GitHubSettings, options: IntakeOptions = {}): Promise<GitHubIntake> {
  const versionId = options.versionId ?? (await defaultVersionId(db));
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
    ...(options.leaseMs ? { leaseMs: options.leaseMs } : {}),
    ...(options.storage ? { storage: options.storage } : {}),
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

/*
 * Claims. Any number of workers on any number of hosts may run the intake against one
 * database. The handling of one issue (reading its form, running its commands, creating or
 * editing its status comment) holds the lease `issue:<owner>/<repo>#<n>`, so it happens in
 * one place at a time and the issue gets one status comment; a repository's pass (listing
 * and status sync) holds `intake:<owner>/<repo>`. Inside one process the same names are also
 * taken in turn (per database handle), so a webhook and a poll racing on an issue wait for
 * each other instead of deferring. A lease already held by the calling chain is not taken again.
 */
const issueLeaseName = (repo: RepoRef, n: number) => `issue:${fullName(repo)}#${n}`;
const intakeLeaseName = (repo: RepoRef) => `intake:${fullName(repo)}`;

/** The issue (or repository) is being handled elsewhere right now: a later pass does it. */
export class ClaimedElsewhereError extends Error {
  override readonly name = "ClaimedElsewhereError";
}

const localTurns = new WeakMap<object, Map<string, Promise<unknown>>>();
function inTurn<T>(db: Db, key: string, work: () => Promise<T>): Promise<T> {
  let turns = localTurns.get(db);
  if (!turns) localTurns.set(db, (turns = new Map()));
  const map = turns;
  const before = map.get(key) ?? Promise.resolve();
  const next = before.catch(() => {}).then(work);
  map.set(key, next);
  void next.finally(() => {
    if (map.get(key) === next) map.delete(key);
  }).catch(() => {});
  return next;
}

const heldLeases = new AsyncLocalStorage<ReadonlyMap<string, HeldLease>>();

/** Runs `work` holding the named lease; throws ClaimedElsewhereError while another worker holds it. */
async function claimed<T>(ctx: GitHubIntake, name: string, work: () => Promise<T>): Promise<T> {
  const held = heldLeases.getStore();
  if (held?.has(name)) return work();
  return inTurn(ctx.db, name, async () => {
    const out = await withLease(ctx.db, name, (lease) => heldLeases.run(new Map([...(held ?? []), [name, lease]]), work), { ttlMs: leaseMs(ctx) });
    if (!out.held) throw new ClaimedElsewhereError(`${name} is being handled by another worker`);
    return out.value;
  });
}

const leaseMs = (ctx: GitHubIntake) => ctx.leaseMs ?? DEFAULT_LEASE_MS;

/**
 * The one way to write to an issue on GitHub (comment, edit a comment, react, label). Only
 * {@link asSubmission} hands one out, and only for an issue that carries a submission label as
 * last read; so whatever reaches the intake (a listing that ignored its label filter, a slash
 * command on any issue, the row of an issue whose label was since removed), nothing is ever
 * written to an issue that is not a submission.
 */
export interface IssueWriter {
  comment(body: string): Promise<GitHubComment>;
  editComment(commentId: number, body: string): Promise<GitHubComment>;
  react(commentId: number, content: ReactionContent): Promise<void>;
  addLabels(labels: readonly LabelSpec[]): Promise<string[]>;
  removeLabel(label: string): Promise<void>;
}

/** An issue found to be a submission, with the means to write to it. */
export interface SubmissionIssue {
  repo: RepoRef;
  issue: GitHubIssue;
  write: IssueWriter;
}

/**
 * The guard: the issue as a submission when it carries one of the repository's submission labels
 * (GITHUB_SUBMISSION_LABELS or the defaults, ours, its own forms': github-forms.ts), else null.
 */
export async function asSubmission(ctx: GitHubIntake, repo: RepoRef, issue: GitHubIssue): Promise<SubmissionIssue | null> {
  const { labels } = await submissionLabelsOf(ctx, repo);
  const wanted = new Set(labels.map((l) => l.toLowerCase()));
  if (!issue.labels.some((l) => wanted.has(l.toLowerCase()))) return null;
  const n = issue.number;
  return {
    repo,
    issue,
    write: {
      comment: (body) => ctx.gh.createComment(repo, n, body),
      editComment: (commentId, body) => ctx.gh.updateComment(repo, commentId, body),
      react: (commentId, content) => ctx.gh.addReaction(repo, commentId, content),
      addLabels: (labels) => ctx.gh.addLabels(repo, n, labels),
      removeLabel: (label) => ctx.gh.removeLabel(repo, n, label),
    },
  };
}

/** The mark of a status not sent because the issue had lost its submission label (see sendStatus). */
const UNSENT = "unsent:";

/** The issue's row, created on first sight: only ever for a submission issue. */
async function issueRow(ctx: GitHubIntake, repo: RepoRef, found: SubmissionIssue): Promise<IssueRow> {
  const { issue } = found;
  const at = ctx.now();
  await retryBusy(() =>
    writeTx(ctx.db, (tx) =>
      tx.insert(githubIssues).values({ repo: fullName(repo), number: issue.number, author: issue.author ?? "ghost", createdAt: at, updatedAt: at }).onConflictDoNothing(),
    ),
  );
  const [row] = await ctx.db.select().from(githubIssues).where(and(eq(githubIssues.repo, fullName(repo)), eq(githubIssues.number, issue.number))).limit(1);
  // Seen with its label again: the status held back while it had none is due.
  if (row!.postedHash?.startsWith(UNSENT)) {
    await updateRow(ctx, row!.id, { postedHash: null });
    return { ...row!, postedHash: null };
  }
  return row!;
}

async function updateRow(ctx: GitHubIntake, id: number, values: Partial<IssueRow>, only?: SQL): Promise<boolean> {
  const at = ctx.now();
  const done = await retryBusy(() =>
    writeTx(ctx.db, (tx) =>
      tx
        .update(githubIssues)
        .set({ ...values, updatedAt: at })
        .where(and(eq(githubIssues.id, id), only))
        .returning({ id: githubIssues.id }),
    ),
  );
  return done.length === 1;
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
  // The storage's location and cache before the working folder they may lie in.
  for (const dir of [ctx.storage?.store.location, ctx.storage?.cacheDir, ctx.settings.bundleDir, process.cwd()]) if (dir && dir.length > 1) text = text.split(dir).join("…");
  text = text.replace(/\s+/g, " ").trim();
  return text.length > ERROR_TEXT_CHARS ? `${text.slice(0, ERROR_TEXT_CHARS)}…` : text;
}

function describeDownloadError(ctx: GitHubIntake, err: unknown): string {
  if (err instanceof DownloadError) return `ZIP link: the bundle could not be downloaded (${err.code}): ${errorText(ctx, err)}`;
  return `ZIP link: the bundle could not be downloaded: ${errorText(ctx, err)}`;
}

/** A failure worth trying again on a later pass (the database or GitHub was busy, or another worker had the issue), not the issue's fault. */
function isPassing(err: unknown): boolean {
  if (isBusy(err) || err instanceof ClaimedElsewhereError) return true;
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
export async function processIssue(ctx: GitHubIntake, repo: RepoRef, found: SubmissionIssue): Promise<IssueOutcome> {
  const { issue } = found;
  try {
    return await claimed(ctx, issueLeaseName(repo, issue.number), async () => {
      try {
        return await readIssue(ctx, repo, found);
      } catch (err) {
        ctx.log?.(`#${issue.number}: processing failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
        try {
          const row = await issueRow(ctx, repo, found);
          const problem = `ZIP link: Agentboard could not process this bundle (${errorText(ctx, err)}). Check it with the validator, fix it and edit the issue: the same bundle is not read again until the issue changes.`;
          await updateRow(ctx, row.id, { ...(isPassing(err) ? {} : { bodySha256: sha256(issue.body) }), problem });
        } catch (inner) {
          ctx.log?.(`#${issue.number}: could not record the failure: ${inner instanceof Error ? inner.message : String(inner)}`);
        }
        return "failed";
      }
    });
  } catch (err) {
    // Another worker has the issue: it reads this body (or a later pass does).
    if (err instanceof ClaimedElsewhereError) return "deferred";
    throw err;
  }
}

async function readIssue(ctx: GitHubIntake, repo: RepoRef, found: SubmissionIssue): Promise<IssueOutcome> {
  const { issue } = found;
  // Read under the issue's lease: what another worker did before it is seen here.
  const row = await issueRow(ctx, repo, found);
  const bodySha = sha256(issue.body);
  if (row.bodySha256 === bodySha) return "unchanged";
  const [sub] = row.submissionId === null ? [] : await ctx.db.select().from(submissions).where(eq(submissions.id, row.submissionId)).limit(1);
  // A run in progress is left to finish; the edit is read again on a later pass.
  if (sub && (sub.state === "scoring" || sub.state === "received" || sub.state === "validating")) return "deferred";

  // The repository's own forms name some fields differently (mapped by id): their labels are read too.
  const form = parseIssueForm(issue.body, { headings: (await submissionLabelsOf(ctx, repo)).headings });
  if (!form.ok) {
    await updateRow(ctx, row.id, { bodySha256: bodySha, problem: formProblemText(form.problems) });
    return "needs_changes";
  }
  if (sub?.state === "withdrawn") {
    await updateRow(ctx, row.id, { bodySha256: bodySha, problem: "the submission was withdrawn; open a new issue to submit again." });
    return "needs_changes";
  }
  const metadata = formMetadata(form.submission);
  const actor = `github:${issue.author ?? "ghost"}`;
  let bundlePath: string;
  if (sub && row.zipUrl === form.submission.zipUrl) {
    // Only the form's details changed: the same bundle, from the storage when this host lacks it.
    bundlePath = ctx.storage ? await resolveBundle(ctx.storage.store, { path: sub.bundlePath, sha256: sub.bundleSha256 }, ctx.storage.cacheDir) : sub.bundlePath;
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
      await updateRow(ctx, row.id, { ...(retry ? {} : { bodySha256: bodySha }), problem });
      return "needs_changes";
    }
  }

  if (!sub) {
    const out = await (ctx.ingest ?? ingestBundle)(ctx.db, { versionId: ctx.versionId, bundlePath, source: "github", sourceRef: issue.htmlUrl, actor, metadata, ...(ctx.storage ? { storage: ctx.storage } : {}) }, ctx.now);
    const [owner] = await ctx.db.select().from(githubIssues).where(eq(githubIssues.submissionId, out.submissionId)).limit(1);
    if (!out.created && owner?.id !== row.id) {
      const where = owner ? `in issue #${owner.number}` : `as submission ${out.submissionId}`;
      await updateRow(ctx, row.id, { bodySha256: bodySha, problem: `ZIP link: this bundle was already submitted ${where}.` });
      return "needs_changes";
    }
    await updateRow(ctx, row.id, { submissionId: out.submissionId, bodySha256: bodySha, zipUrl: form.submission.zipUrl, problem: null });
    return "ingested";
  }
  const out = await (ctx.revise ?? reviseBundle)(ctx.db, sub.id, { bundlePath, actor, metadata, ...(ctx.storage ? { storage: ctx.storage } : {}) }, ctx.now);
  if (!out.ok) {
    if (out.reason === "busy") return "deferred";
    await updateRow(ctx, row.id, { bodySha256: bodySha, problem: `ZIP link: ${out.reason}.` });
    return "needs_changes";
  }
  await updateRow(ctx, row.id, { bodySha256: bodySha, zipUrl: form.submission.zipUrl, problem: null });
  return "revised";
}

function downloadOptions(s: GitHubSettings, signal?: AbortSignal) {
  return { allowedHosts: s.allowedHosts, maxBytes: s.maxBundleBytes, timeoutMs: s.downloadTimeoutMs, allowLoopbackHttp: s.allowLoopbackHttp, userAgent: "agentboard", ...(signal ? { signal } : {}) };
}

/** A reply to a command; any submitted text in `text` is already neutralised (commentText). */
async function reply(found: SubmissionIssue, text: string): Promise<void> {
  await found.write.comment(fitComment(`${REPLY_MARKER}\n${text}`));
}

function isOwnComment(c: GitHubComment): boolean {
  return c.authorType === "Bot" || c.body.startsWith(STATUS_MARKER) || c.body.startsWith(REPLY_MARKER);
}

/** Runs a slash command from a comment, when its author may. */
export async function processComment(ctx: GitHubIntake, repo: RepoRef, found: SubmissionIssue, comment: GitHubComment): Promise<CommandOutcome> {
  if (isOwnComment(comment)) return "none";
  const command = parseSlashCommand(comment.body);
  if (!command) return "none";
  return claimed(ctx, issueLeaseName(repo, found.issue.number), () => runCommand(ctx, repo, found, comment, command));
}

async function runCommand(ctx: GitHubIntake, repo: RepoRef, found: SubmissionIssue, comment: GitHubComment, command: SlashCommand): Promise<CommandOutcome> {
  const row = await issueRow(ctx, repo, found);
  const login = comment.author ?? "ghost";
  const who = `\`${login.replace(/`/g, "")}\``;
  // Checked through the API every time: a role can be taken away between two commands.
  const permission = await ctx.gh.getPermission(repo, login);
  const mayAct = hasWriteAccess(permission) || (command.name === "withdraw" && login === row.author);
  if (!mayAct) {
    const needs = command.name === "withdraw" ? "the issue's author or a maintainer with write access" : "maintainers with write access to this repository";
    await reply(found, `Thanks, ${who}. \`/${command.name}\` can only be used by ${needs}, so nothing was changed.`);
    await found.write.react(comment.id, "confused").catch(() => {});
    return "refused";
  }
  if (row.submissionId === null) {
    await reply(found, `\`/${command.name}\`: there is no submission on this issue yet, so nothing was changed.`);
    return "failed";
  }
  try {
    await applyReviewAction(ctx.db, row.submissionId, reviewActionOf(command), { actor: `github:${login}`, at: ctx.now() });
  } catch (err) {
    if (!(err instanceof TransitionError)) throw err;
    const [current] = await ctx.db.select({ state: submissions.state }).from(submissions).where(eq(submissions.id, row.submissionId)).limit(1);
    const state = current?.state;
    await reply(found, `\`/${command.name}\` was not applied: ${commentText(err.message.replace(/^submission \d+ /, "the submission "))}${state ? ` (it is ${state})` : ""}.`);
    await found.write.react(comment.id, "confused").catch(() => {});
    return "failed";
  }
  await found.write.react(comment.id, "+1").catch(() => {});
  return "done";
}

/** A slash command is a review action; `/rescore` records where it was asked for. */
function reviewActionOf(command: SlashCommand): ReviewAction {
  return command.name === "rescore" ? { name: "rescore", reason: "rescore requested on GitHub" } : command;
}

/**
 * Edits the status comment and the state label when what they say has changed. Holds the
 * issue's lease; false (nothing sent) while another worker has the issue.
 */
export async function syncIssue(ctx: GitHubIntake, repo: RepoRef, row: IssueRow): Promise<boolean> {
  try {
    return await claimed(ctx, issueLeaseName(repo, row.number), async () => {
      // The row as it is now: another worker may have posted or edited the comment meanwhile.
      const [current] = await ctx.db.select().from(githubIssues).where(eq(githubIssues.id, row.id)).limit(1);
      return current ? sendStatus(ctx, repo, current) : false;
    });
  } catch (err) {
    if (err instanceof ClaimedElsewhereError) return false;
    throw err;
  }
}

async function sendStatus(ctx: GitHubIntake, repo: RepoRef, row: IssueRow): Promise<boolean> {
  const status = await loadIssueStatus(ctx.db, row, ctx.settings.publicUrl);
  const body = renderStatusComment(status);
  const label = statusLabel(status);
  const hash = statusHash(body, label.name);
  if (hash === row.postedHash || row.postedHash === `${UNSENT}${hash}`) return false;
  // The issue as it is now: one whose submission label was removed is no longer written to.
  // Marked so it is not asked about again until its status changes or it is seen labelled.
  const found = await asSubmission(ctx, repo, await ctx.gh.getIssue(repo, row.number));
  if (!found) {
    ctx.log?.(`#${row.number}: no longer carries a submission label; its status is not sent`);
    await updateRow(ctx, row.id, { postedHash: `${UNSENT}${hash}` });
    return false;
  }
  let commentId: number;
  try {
    commentId = await postStatus(ctx, found, row, body);
  } catch (err) {
    // GitHub refused the body (422: too long, or something in it): a short status instead,
    // so the issue still says where it stands. The comment is built to fit, so this is rare.
    if (!(err instanceof GitHubApiError && err.status === 422)) throw err;
    ctx.log?.(`#${row.number}: GitHub refused the status comment (${err.message}); posting a short one`);
    commentId = await postStatus(ctx, found, row, shortStatus(status));
  }
  const current = found.issue.labels;
  for (const old of current.filter((l) => l.startsWith(LABEL_PREFIX) && l !== label.name)) await found.write.removeLabel(old);
  if (!current.includes(label.name)) await found.write.addLabels([label]);
  await updateRow(ctx, row.id, { commentId, postedHash: hash });
  return true;
}

/**
 * Edits the issue's status comment, or posts it when there is none (or it was deleted); returns
 * its id. Runs holding the issue's lease: the lease is confirmed right before a comment is
 * created, and the new id is stored only over the id this call saw, so even a worker that
 * stalled past its lease cannot make a second comment the issue keeps pointing to.
 */
async function postStatus(ctx: GitHubIntake, found: SubmissionIssue, row: IssueRow, body: string): Promise<number> {
  const [stored] = await ctx.db.select({ commentId: githubIssues.commentId }).from(githubIssues).where(eq(githubIssues.id, row.id)).limit(1);
  const id = stored ? stored.commentId : row.commentId;
  if (id !== null) {
    try {
      await found.write.editComment(id, body);
      return id;
    } catch (err) {
      if (!(err instanceof GitHubApiError && err.status === 404)) throw err; // deleted: post a new one
    }
  }
  const lease = heldLeases.getStore()?.get(issueLeaseName(found.repo, row.number));
  if (lease && !(await lease.confirm())) throw new ClaimedElsewhereError(`#${row.number}: the issue's lease was taken over; its status is left to the new holder`);
  const created = (await found.write.comment(body)).id;
  // Kept at once, so a failure after this does not post a second status comment next time.
  const kept = await updateRow(ctx, row.id, { commentId: created }, id === null ? isNull(githubIssues.commentId) : eq(githubIssues.commentId, id));
  if (!kept) {
    ctx.log?.(`#${row.number}: another status comment was stored while comment ${created} was posted; that one is kept`);
    const [now] = await ctx.db.select({ commentId: githubIssues.commentId }).from(githubIssues).where(eq(githubIssues.id, row.id)).limit(1);
    if (now?.commentId != null) return now.commentId;
  }
  return created;
}

/** The status with no submitted text at all, for when GitHub refuses the full comment. */
function shortStatus(status: Awaited<ReturnType<typeof loadIssueStatus>>): string {
  const s = status.submission;
  const where = s ? `The full status is on the submission's page: ${s.detailUrl}` : "Edit the issue to fix the submission form; Agentboard reads the new version by itself.";
  return `${STATUS_MARKER}\n### Agentboard: ${s ? s.state : "needs changes"}\n\nThe full status could not be shown here. ${where}\n`;
}

/**
 * Brings every issue of the repository up to date; returns how many were edited. One issue's
 * failure (GitHub refusing its comment, say) is logged and the others are still brought up to
 * date. Holds the repository's lease: while another worker's pass has it, this does nothing
 * (that pass syncs) and returns 0.
 */
export async function syncAll(ctx: GitHubIntake, repo: RepoRef): Promise<number> {
  try {
    return await claimed(ctx, intakeLeaseName(repo), () => syncRows(ctx, repo));
  } catch (err) {
    if (err instanceof ClaimedElsewhereError) return 0;
    throw err;
  }
}

async function syncRows(ctx: GitHubIntake, repo: RepoRef): Promise<number> {
  let n = 0;
  for (const row of await ctx.db.select().from(githubIssues).where(eq(githubIssues.repo, fullName(repo))).orderBy(githubIssues.id)) {
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
function readComments(ctx: GitHubIntake, repo: RepoRef, found: SubmissionIssue, comments: GitHubComment[]): Promise<number> {
  return claimed(ctx, issueLeaseName(repo, found.issue.number), () => readCommentsHeld(ctx, repo, found, comments));
}

async function readCommentsHeld(ctx: GitHubIntake, repo: RepoRef, found: SubmissionIssue, comments: GitHubComment[]): Promise<number> {
  const { issue } = found;
  const row = await issueRow(ctx, repo, found);
  let n = 0;
  for (const c of comments.filter((x) => x.id > row.lastCommentId).sort((a, b) => a.id - b.id)) {
    try {
      if ((await processComment(ctx, repo, found, c)) !== "none") n++;
    } catch (err) {
      if (isPassing(err)) throw err;
      ctx.log?.(`#${issue.number}: comment ${c.id} failed: ${err instanceof Error ? err.message : String(err)}`);
      await reply(found, `A command in a comment could not be carried out (${commentText(errorText(ctx, err))}); nothing was changed.`).catch(() => {});
    }
    // Recorded per comment, so a failure later in the list does not run earlier commands twice.
    await updateRow(ctx, row.id, { lastCommentId: c.id });
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
 * One polling pass (safe under cron, and with any number of workers): pending webhook work,
 * every open submission issue and its new comments, then status. Each issue is processed on
 * its own: one that fails is logged (and marked, see processIssue) and the pass goes on to
 * the next. The listing and status part holds the repository's lease: while another worker's
 * pass has it, only the deliveries are worked through here.
 */
export async function pollRepository(ctx: GitHubIntake, repo: RepoRef): Promise<PollSummary> {
  const deliveries = await processPendingDeliveries(ctx);
  try {
    return await claimed(ctx, intakeLeaseName(repo), async () => ({ ...(await pollIssues(ctx, repo)), deliveries }));
  } catch (err) {
    if (!(err instanceof ClaimedElsewhereError)) throw err;
    ctx.log?.(`${fullName(repo)}: another worker is polling it; this pass only read deliveries`);
    return { issues: 0, changed: 0, commands: 0, deliveries, synced: 0, failed: 0 };
  }
}

async function pollIssues(ctx: GitHubIntake, repo: RepoRef): Promise<Omit<PollSummary, "deliveries">> {
  // GitHub's label filter means "all of these": one listing per label, each issue once.
  const byNumber = new Map<number, GitHubIssue>();
  // The repository's forms are asked about once per pass (a conditional request).
  const { labels } = await submissionLabelsOf(ctx, repo, { refresh: true });
  for (const label of labels) for (const issue of await ctx.gh.listOpenIssues(repo, label)) byNumber.set(issue.number, issue);
  const issues = [...byNumber.values()].sort((a, b) => a.number - b.number);
  let changed = 0;
  let commands = 0;
  let failed = 0;
  for (const issue of issues) {
    const read = await readListedIssue(ctx, repo, issue);
    if (read.form !== null && read.form !== "unchanged" && read.form !== "ignored" && read.form !== "claimed") changed++;
    if (read.form === "failed" || read.error) failed++;
    commands += read.commands;
  }
  const synced = await syncAll(ctx, repo);
  return { issues: issues.length, changed, commands, synced, failed };
}

/** What reading one listed issue came to. */
export interface ListedIssueRead {
  /** What its form came to; `claimed`: another worker has the issue; null: reading failed before. */
  form: IssueOutcome | "claimed" | null;
  /** Slash commands carried out or answered. */
  commands: number;
  /** GitHub or the database failed while reading it: left for a later pass. */
  error: boolean;
}

/**
 * Reads one issue found by listing the repository, as its delivery would have: its form, then
 * its new comments, under one hold of its lease. Never throws; says what happened in the log.
 * The polling pass and the worker's reconcile (github-reconcile.ts) both read issues so.
 */
export async function readListedIssue(ctx: GitHubIntake, repo: RepoRef, issue: GitHubIssue): Promise<ListedIssueRead> {
  const read: ListedIssueRead = { form: null, commands: 0, error: false };
  try {
    // A listing may hold issues without a submission label (GitHub's filter is not ours to trust):
    // those are left alone, their comments unread.
    const found = await asSubmission(ctx, repo, issue);
    if (!found) {
      ctx.log?.(`#${issue.number}: not a submission issue (no submission label); left alone`);
      return { ...read, form: "ignored" };
    }
    await claimed(ctx, issueLeaseName(repo, issue.number), async () => {
      read.form = await processIssue(ctx, repo, found);
      ctx.log?.(`#${issue.number}: ${read.form}`);
      read.commands += await readComments(ctx, repo, found, await ctx.gh.listComments(repo, issue.number));
    });
  } catch (err) {
    if (err instanceof ClaimedElsewhereError) {
      ctx.log?.(`#${issue.number}: another worker is handling it`);
      return { ...read, form: read.form ?? "claimed" };
    }
    ctx.log?.(`#${issue.number}: ${err instanceof Error ? err.message : String(err)}; left for the next pass`);
    return { ...read, error: true };
  }
  return read;
}

/** Stores a webhook delivery for processing; a delivery id seen before is a duplicate. */
export async function recordDelivery(db: Db, delivery: { id: string; event: string; payload: Record<string, unknown> }, now: Date): Promise<"queued" | "duplicate"> {
  const stored = await retryBusy(() =>
    writeTx(db, (tx) =>
      tx
        .insert(githubDeliveries)
        .values({ deliveryId: delivery.id, event: delivery.event, payload: delivery.payload, status: "pending", receivedAt: now })
        .onConflictDoNothing()
        .returning({ id: githubDeliveries.deliveryId }),
    ),
  );
  return stored.length === 1 ? "queued" : "duplicate";
}

/** `retry`: not done yet (a run in progress, the worker stopping, the issue busy elsewhere); the delivery stays pending. */
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
  // The configured spelling, so the issue's row (and lease) is the one polling uses.
  const ours = ctx.settings.repo;
  const found = await asSubmission(ctx, ours, issue);
  if (!found) return { handled: false, reason: "not a submission issue" };
  const delivery = read.delivery;
  const handles = (delivery.event === "issues" && (action === "opened" || action === "edited" || action === "reopened" || action === "labeled")) || (delivery.event === "issue_comment" && action === "created");
  if (!handles) return { handled: false, reason: `the "${action.slice(0, 40)}" action is not handled` };
  try {
    // The whole delivery holds the issue: its processing, commands and status comment.
    return await claimed(ctx, issueLeaseName(ours, issue.number), async (): Promise<DeliveryOutcome> => {
      if (delivery.event === "issues") {
        // A run in progress: the edit waits (checked here first, so waiting costs no API call).
        if (await submissionBusy(ctx, ours, issue.number)) return { retry: "deferred: a run is in progress" };
        // The issue as it is now, not as the delivery saw it: a delivery retried after a later
        // edit must not bring an older body back.
        const current = await asSubmission(ctx, ours, await ctx.gh.getIssue(ours, issue.number));
        if (!current) return { handled: false, reason: "no longer a submission issue" };
        const outcome = await processIssue(ctx, ours, current);
        if (outcome === "deferred") return { retry: "deferred: a run is in progress or the worker stopped" };
      } else {
        await readComments(ctx, ours, found, [delivery.comment]);
      }
      const [row] = await ctx.db.select().from(githubIssues).where(and(eq(githubIssues.repo, fullName(ours)), eq(githubIssues.number, issue.number))).limit(1);
      if (row) await syncIssue(ctx, ours, row);
      return { handled: true };
    });
  } catch (err) {
    if (err instanceof ClaimedElsewhereError) return { retry: "deferred: another worker is handling the issue" };
    throw err;
  }
}

async function submissionBusy(ctx: GitHubIntake, repo: RepoRef, issueNumber: number): Promise<boolean> {
  const [row] = await ctx.db.select({ submissionId: githubIssues.submissionId }).from(githubIssues).where(and(eq(githubIssues.repo, fullName(repo)), eq(githubIssues.number, issueNumber))).limit(1);
  if (!row?.submissionId) return false;
  const [sub] = await ctx.db.select({ state: submissions.state }).from(submissions).where(eq(submissions.id, row.submissionId)).limit(1);
  const state = sub?.state;
  return state === "scoring" || state === "received" || state === "validating";
}

/** How many stored deliveries one pass reads at most (oldest first); the rest wait for the next pass. */
export const DELIVERIES_PER_PASS = 100;

type DeliveryRow = typeof githubDeliveries.$inferSelect;

/**
 * Claims the oldest delivery still to do (pending, or failed with attempts left) that no live
 * worker holds, in one conditional UPDATE: of several workers asking at once, one gets it.
 * `passed` are those this pass already saw (a deferred one is not taken again in the same pass).
 */
async function claimDelivery(ctx: GitHubIntake, token: string, passed: readonly string[]): Promise<DeliveryRow | undefined> {
  const at = new Date(); // lease times are wall-clock, like the named leases (lib/submissions/named-leases.ts)
  const stale = new Date(at.getTime() - leaseMs(ctx));
  const d = githubDeliveries;
  const claimable = and(
    or(eq(d.status, "pending"), and(eq(d.status, "failed"), lt(d.attempts, MAX_ATTEMPTS))),
    or(isNull(d.leaseToken), lt(d.leasedAt, stale)),
  );
  const oldest = ctx.db
    .select({ id: d.deliveryId })
    .from(d)
    .where(and(claimable, passed.length ? notInArray(d.deliveryId, [...passed]) : undefined))
    .orderBy(d.receivedAt, d.deliveryId)
    .limit(1);
  // A scalar subquery, run once (`IN (…)` may be run again per row and, seeing this very
  // update, pick a second delivery). Postgres: a row another claimer has locked is skipped, not
  // waited for; the outer condition is checked again on the row as it is when updated.
  const pick = dialectOf(ctx.db) === "postgres" ? sql`(${oldest} for update skip locked)` : sql`(${oldest})`;
  const [row] = await retryBusy(() =>
    writeTx(ctx.db, (tx) =>
      tx
        .update(d)
        .set({ leaseToken: token, leasedAt: at })
        .where(and(eq(d.deliveryId, pick), claimable))
        .returning(),
    ),
  );
  return row;
}

/** Writes to a claimed delivery, only while this claim holds it; false when it was taken over. */
async function writeClaimed(ctx: GitHubIntake, id: string, token: string, values: Partial<DeliveryRow>): Promise<boolean> {
  const d = githubDeliveries;
  const done = await retryBusy(() =>
    writeTx(ctx.db, (tx) =>
      tx
        .update(d)
        .set(values)
        .where(and(eq(d.deliveryId, id), eq(d.leaseToken, token)))
        .returning({ id: d.deliveryId }),
    ),
  );
  return done.length === 1;
}

/**
 * Works through stored deliveries, oldest first, each on its own: a failure is recorded on
 * that delivery (and retried on later passes, a few times) and the pass goes on. Each is
 * claimed first (a token and a time on its row, renewed while it is handled), so with any
 * number of workers each delivery is acted on once; its outcome is written only with that
 * token. The worker process calls this (scripts/commands/queue.ts); the web route only stores.
 */
export async function processPendingDeliveries(ctx: GitHubIntake, limit: number = DELIVERIES_PER_PASS): Promise<number> {
  const passed: string[] = [];
  let n = 0;
  while (passed.length < limit && !ctx.signal?.aborted) {
    const token = randomUUID();
    const d = await claimDelivery(ctx, token, passed);
    if (!d) break;
    passed.push(d.deliveryId);
    let status: "done" | "ignored" | "failed";
    let error: string | null = null;
    const heartbeat = setInterval(() => void writeClaimed(ctx, d.deliveryId, token, { leasedAt: new Date() }).catch(() => {}), Math.max(10, Math.floor(leaseMs(ctx) / 3)));
    heartbeat.unref?.();
    try {
      const out = await handleDelivery(ctx, d.event, d.payload);
      if ("retry" in out) {
        // Left pending and unclaimed: a later pass (here or elsewhere) takes it again.
        clearInterval(heartbeat);
        await writeClaimed(ctx, d.deliveryId, token, { error: out.retry, leaseToken: null, leasedAt: null });
        continue;
      }
      status = out.handled ? "done" : "ignored";
      if (!out.handled) error = out.reason;
    } catch (err) {
      status = "failed";
      error = err instanceof Error ? err.message : String(err);
      ctx.log?.(`delivery ${d.deliveryId}: ${error}`);
    } finally {
      clearInterval(heartbeat);
    }
    const kept = await writeClaimed(ctx, d.deliveryId, token, { status, error: error?.slice(0, 2_000) ?? null, attempts: d.attempts + 1, processedAt: ctx.now(), leaseToken: null, leasedAt: null });
    // Which worker acted on which delivery: with several workers, the logs show each once.
    ctx.log?.(`delivery ${d.deliveryId} (${d.event.slice(0, 40)}): ${status}`);
    if (kept) n++;
    else ctx.log?.(`delivery ${d.deliveryId}: its claim expired and was taken over; its outcome is left to the new holder`);
  }
  return n;
}

/** The issue a submission came from, to mirror an action taken elsewhere (the admin pages). */
export async function issueOfSubmission(db: Db, submissionId: number): Promise<{ repo: RepoRef; row: IssueRow } | null> {
  const [row] = await db.select().from(githubIssues).where(eq(githubIssues.submissionId, submissionId)).limit(1);
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
  const found = await issueOfSubmission(db, submissionId);
  if (!found || !githubConfigured(settings)) return false;
  await retryBusy(() => writeTx(db, (tx) => tx.update(githubIssues).set({ postedHash: null }).where(eq(githubIssues.id, found.row.id))));
  return true;
}
