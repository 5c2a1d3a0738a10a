/**
 * Reconcile: the worker lists the repository's open submission issues updated since the last
 * reconcile and reads each as if its webhook delivery had arrived (github-intake.ts
 * readListedIssue, then its status comment). GitHub does not redeliver by itself, and the
 * webhook may refuse a delivery (busy, a sender that stalled, the web process down), so
 * without this a lost delivery would be a lost submission; with it, it costs minutes.
 *
 * Once per period across any number of workers: a pass takes the named lease
 * `reconcile:<owner>/<repo>` and leaves it held until the period is over, so another worker's
 * tick finds it taken and does nothing. Where to go on from (the "mark": every submission issue
 * updated before it has been read) is kept in the row `reconcile-mark:<owner>/<repo>` of the same
 * table, its time in `expires_at`; it moves only after a pass read everything up to it, so a
 * pass that GitHub failed, or a worker that died mid-pass, is simply done again next period.
 *
 * The submission labels are the configured ones, ours and those of the repository's own issue
 * forms (github-forms.ts), whose folder is asked about at each pass.
 *
 * Bounded: at most `maxPages` pages of issues per submission label, least recently updated
 * first; the mark stops at the last issue read, so the next pass goes on from there.
 */
import { randomUUID } from "node:crypto";
import { and, eq } from "drizzle-orm";
import type { Db } from "../../db/client";
import { githubIssues, leases } from "../../db/schema";
import type { GitHubIssue, RepoRef } from "../github/github-client";
import { retryBusy, writeTx } from "./db-busy";
import { submissionLabelsOf } from "./github-forms";
import { readListedIssue, syncIssue, type GitHubIntake } from "./github-intake";
import { acquireLease, LEASE_HOLDER, renewLease } from "./named-leases";

/**
 * How far before a pass's start the next one looks again: GitHub's listing may show an update
 * a little late, and its clock and ours differ a little. Reading an issue twice changes nothing.
 */
export const RECONCILE_OVERLAP_MS = 5 * 60_000;

/** How often the worker asks whether a reconcile is due (the lease says whether it is). */
const TICK_MS = 60_000;

export interface ReconcileOptions {
  /** The period: one pass per repository per this, across all workers. */
  everyMs: number;
  /** Pages of issues read per submission label at most. */
  maxPages: number;
  /** Issues per page (default 100, GitHub's maximum). */
  perPage?: number;
}

export type ReconcileSummary =
  /** Not due: another worker reconciled within the period, or is reconciling now. */
  | { ran: false }
  | {
      ran: true;
      /** Where the listing started (null: the first reconcile, every open issue). */
      since: string | null;
      issues: number;
      /** Issues whose form was ingested, revised or found wanting. */
      changed: number;
      commands: number;
      /** Issues left to read again next time (a run in progress, another worker, an error). */
      retry: number;
      /** False when the page cap left issues for the next pass. */
      complete: boolean;
      /** Where the next pass starts; unchanged when GitHub failed. */
      mark: string | null;
      /** Why the pass stopped early (GitHub failed); it is done again next period. */
      error?: string;
    };

const gateName = (repo: RepoRef) => `reconcile:${repo.owner}/${repo.repo}`;
const markName = (repo: RepoRef) => `reconcile-mark:${repo.owner}/${repo.repo}`;
const fullName = (repo: RepoRef) => `${repo.owner}/${repo.repo}`;

/** Runs one reconcile of `repo` when it is due (see the header); never throws for GitHub's failures. */
export async function reconcileRepository(ctx: GitHubIntake, repo: RepoRef, options: ReconcileOptions): Promise<ReconcileSummary> {
  // Lease times are the wall clock (named-leases.ts), whatever clock the intake was given.
  const started = Date.now();
  const gate = await acquireLease(ctx.db, gateName(repo), { ttlMs: options.everyMs });
  if (!gate) return { ran: false };
  // Held (renewed) while the pass runs, however long its downloads take.
  const heartbeat = setInterval(() => void renewLease(ctx.db, gate, { ttlMs: options.everyMs }).catch(() => {}), Math.max(10, Math.floor(options.everyMs / 3)));
  heartbeat.unref?.();
  let since: Date | null = null;
  let summary: ReconcileSummary;
  try {
    since = await readMark(ctx.db, repo);
    summary = await reconcilePass(ctx, repo, since, options, started);
  } catch (err) {
    const error = err instanceof Error ? err.message : String(err);
    ctx.log?.(`reconcile ${fullName(repo)}: ${error}; tried again next period`);
    summary = { ran: true, since: since?.toISOString() ?? null, issues: 0, changed: 0, commands: 0, retry: 0, complete: false, mark: since?.toISOString() ?? null, error };
  } finally {
    clearInterval(heartbeat);
  }
  // The next pass is due a period after this one started (at once when this one took longer).
  const stillHeld = await renewLease(ctx.db, gate, { ttlMs: Math.max(0, started + options.everyMs - Date.now()) }).catch(() => false);
  if (summary.ran && !summary.error && summary.mark !== null && stillHeld) await writeMark(ctx.db, repo, new Date(summary.mark));
  return summary;
}

async function reconcilePass(ctx: GitHubIntake, repo: RepoRef, since: Date | null, options: ReconcileOptions, started: number): Promise<ReconcileSummary> {
  // GitHub's label filter means "all of these": one listing per label, each issue once.
  const byNumber = new Map<number, GitHubIssue>();
  /** The earliest last-read update of a listing the page cap cut short: nothing after it was read. */
  let cutAt = Infinity;
  // The repository's forms are asked about once per pass (a conditional request).
  const { labels } = await submissionLabelsOf(ctx, repo, { refresh: true });
  for (const label of labels) {
    const page = await ctx.gh.listUpdatedIssues(repo, label, { ...(since ? { since } : {}), maxPages: options.maxPages, ...(options.perPage ? { perPage: options.perPage } : {}) });
    for (const issue of page.issues) byNumber.set(issue.number, issue);
    const last = page.issues.at(-1);
    if (!page.complete && last) cutAt = Math.min(cutAt, Date.parse(last.updatedAt));
  }
  const issues = [...byNumber.values()].sort((a, b) => Date.parse(a.updatedAt) - Date.parse(b.updatedAt) || a.number - b.number);

  let changed = 0;
  let commands = 0;
  /** The earliest update of an issue to read again: the mark may not pass it. */
  let holdAt = Infinity;
  let retry = 0;
  for (const issue of issues) {
    if (ctx.signal?.aborted) {
      // The worker is stopping: what is left is read next time.
      holdAt = Math.min(holdAt, Date.parse(issue.updatedAt));
      retry++;
      continue;
    }
    const read = await readListedIssue(ctx, repo, issue);
    commands += read.commands;
    if (read.form === "ingested" || read.form === "revised" || read.form === "needs_changes" || read.form === "failed") changed++;
    if (read.error || read.form === "deferred" || read.form === "claimed" || read.form === "failed") {
      // Read again next time (a failure recorded on the issue then reads as unchanged).
      holdAt = Math.min(holdAt, Date.parse(issue.updatedAt));
      retry++;
    }
    // The status comment at once, as a delivery gets it (unless another worker has the issue,
    // GitHub just failed, or it is no submission); one that fails now is sent by the status sync.
    if (!read.error && read.form !== "claimed" && read.form !== "ignored") await postStatus(ctx, repo, issue.number);
  }

  let mark = Math.min(started - RECONCILE_OVERLAP_MS, cutAt, holdAt);
  if (since && cutAt <= since.getTime() && holdAt > since.getTime()) {
    // The page cap was filled by issues updated in the same instant: the mark would never move. Step past it.
    mark = since.getTime() + 1_000;
    ctx.log?.(`reconcile ${fullName(repo)}: more than ${options.maxPages} page(s) of issues updated at ${since.toISOString()}; going on past them`);
  } else if (since) {
    mark = Math.max(mark, since.getTime()); // never back: what lies before it was read
  }
  const summary = { ran: true as const, since: since?.toISOString() ?? null, issues: issues.length, changed, commands, retry, complete: cutAt === Infinity, mark: new Date(mark).toISOString() };
  ctx.log?.(`reconcile ${fullName(repo)}: ${issues.length} issue(s) updated since ${summary.since ?? "the start"}, ${changed} changed, ${retry} left for later${summary.complete ? "" : `, page cap reached (${options.maxPages})`}`);
  return summary;
}

async function postStatus(ctx: GitHubIntake, repo: RepoRef, issueNumber: number): Promise<void> {
  try {
    const [row] = await ctx.db.select().from(githubIssues).where(and(eq(githubIssues.repo, fullName(repo)), eq(githubIssues.number, issueNumber))).limit(1);
    if (row) await syncIssue(ctx, repo, row);
  } catch (err) {
    ctx.log?.(`#${issueNumber}: status not updated: ${err instanceof Error ? err.message : String(err)}`);
  }
}

async function readMark(db: Db, repo: RepoRef): Promise<Date | null> {
  const [row] = await db.select({ at: leases.expiresAt }).from(leases).where(eq(leases.name, markName(repo))).limit(1);
  return row?.at ?? null;
}

async function writeMark(db: Db, repo: RepoRef, at: Date): Promise<void> {
  // Not a lease anyone takes: `token` is only there because the column is required.
  await retryBusy(() =>
    writeTx(db, (tx) =>
      tx
        .insert(leases)
        .values({ name: markName(repo), holder: LEASE_HOLDER, token: randomUUID(), expiresAt: at })
        .onConflictDoUpdate({ target: leases.name, set: { holder: LEASE_HOLDER, expiresAt: at } }),
    ),
  );
}

export interface ReconcileSchedule {
  /** Reconciles now when due (the caller waits for it). */
  now(): Promise<void>;
  /** Stops the timer and waits for a pass in hand. */
  stop(): Promise<void>;
}

/**
 * The worker's reconcile, beside its scoring loop: every minute (or every period, when shorter)
 * it asks whether a pass is due and runs it. One pass at a time; a failing pass is logged, never fatal.
 */
export function startReconcile(intake: GitHubIntake, repo: RepoRef, options: ReconcileOptions & { log: (line: string) => void }): ReconcileSchedule {
  let running: Promise<void> = Promise.resolve();
  let busy = false;
  const now = () => {
    if (busy) return running;
    busy = true;
    running = reconcileRepository(intake, repo, options)
      .then(() => {})
      .catch((err: unknown) => options.log(`GitHub reconcile: ${err instanceof Error ? err.message : String(err)}`))
      .finally(() => {
        busy = false;
      });
    return running;
  };
  const timer = setInterval(() => void now(), Math.max(10, Math.min(options.everyMs, TICK_MS)));
  timer.unref?.();
  return {
    now,
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
