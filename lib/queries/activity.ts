/**
 * Lists of submissions and events a page at a time: the maintainers' review list and the full
 * audit log. The public changelog is changelog.ts, the public queue queue.ts.
 */
import { and, count, desc, eq, inArray, sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { auditLog, benchmarks, benchmarkVersions, scoringRuns, submissions, type SubmissionState } from "../../db/schema";
import { flagMessages } from "./integrity";
import { redactPaths } from "./redact-paths";
import { prefixOf } from "./sql-prefix";
import { createClipper, PUBLIC_RENDER_LIMITS } from "./render-limits";
import type { ChangelogRow, ReviewRow } from "./types";
import { heldReasons } from "./calibration";

export interface PageOpts {
  page?: number;
  pageSize?: number;
}

export interface Paged<T> {
  rows: T[];
  total: number;
  page: number;
  pageSize: number;
}

/** Rows per page of the queue, the changelog and the review list: at most 500. */
export const MAX_PAGE_SIZE = 500;

export function paging(opts: PageOpts, fallback: number) {
  const pageSize = Math.min(MAX_PAGE_SIZE, Math.max(1, Math.trunc(opts.pageSize ?? fallback)));
  const page = Math.max(1, Math.trunc(opts.page ?? 1));
  return { page, pageSize, offset: (page - 1) * pageSize };
}

/** "Title v1.0": how lists name the benchmark version of an entry. */
export const benchmarkColumns = { bench: benchmarks.title, version: benchmarkVersions.version };
export const benchmarkLabel = (r: { bench: string; version: string }) => `${r.bench} v${r.version}`;

/**
 * Where a submission's row may be shown publicly, shortened: the bundle path and (for a CLI
 * submission) its source reference are server paths (redact-paths.ts).
 */
export function knownPaths(r: { source: string | null; sourceRef: string | null; bundlePath: string | null }): string[] {
  return [r.source === "github" ? "" : (r.sourceRef ?? ""), r.bundlePath ?? ""];
}

/**
 * The whole audit log, newest first (maintainers: every internal move, `run:completed` and
 * all), optionally of one entry. Reasons and names are cut to a length, and server paths (a
 * CLI bundle's absolute path in its "received" reason) are shortened.
 */
export async function getAuditLogPage(db: Db, opts: PageOpts & { entry?: number | null } = {}): Promise<Paged<ChangelogRow>> {
  const { page, pageSize, offset } = paging(opts, 100);
  const clip = createClipper(PUBLIC_RENDER_LIMITS);
  const where = opts.entry ? eq(auditLog.submissionId, opts.entry) : undefined;
  const [counted] = await db.select({ n: count() }).from(auditLog).where(where);
  const total = counted?.n ?? 0;
  const rows = (
    await db
    .select({
      log: { at: auditLog.at, submissionId: auditLog.submissionId, actor: auditLog.actor, action: auditLog.action, fromState: auditLog.fromState, toState: auditLog.toState },
      reason: prefixOf(auditLog.reason, PUBLIC_RENDER_LIMITS.text),
      agent: prefixOf(submissions.agentName, PUBLIC_RENDER_LIMITS.name),
      source: submissions.source,
      sourceRef: submissions.sourceRef,
      bundlePath: submissions.bundlePath,
    })
    .from(auditLog)
    .leftJoin(submissions, eq(submissions.id, auditLog.submissionId))
    .where(where)
    .orderBy(desc(auditLog.id))
    .limit(pageSize)
    .offset(offset)
  ).map(({ log, reason, agent, ...paths }) => {
      const known = knownPaths(paths);
      return {
        at: log.at.toISOString(),
        submissionId: log.submissionId,
        agent: log.submissionId === null || !agent || agent.head === null ? null : clip.prefix(agent, PUBLIC_RENDER_LIMITS.name),
        actor: clip.name(redactPaths(log.actor, known)),
        action: clip.name(log.action),
        fromState: log.fromState,
        toState: log.toState,
        reason: clip.text(redactPaths(clip.prefix(reason), known)),
      };
    });
  return { rows, total, page, pageSize };
}

/** Which submissions are published, of those given (for linking only those to the public). */
export async function publishedIds(db: Db, ids: readonly number[]): Promise<Set<number>> {
  const unique = [...new Set(ids)].filter((id) => id !== null);
  if (unique.length === 0) return new Set();
  const found = await db.select({ id: submissions.id }).from(submissions).where(and(inArray(submissions.id, unique), eq(submissions.state, "published")));
  return new Set(found.map((r) => r.id));
}

/** The states maintainers act on from /admin, in the order its filter lists them. */
export const REVIEW_STATES = ["scored", "error", "approved", "published", "rejected", "withdrawn"] as const satisfies readonly SubmissionState[];
export type ReviewState = (typeof REVIEW_STATES)[number];

export interface ReviewFilter {
  state?: ReviewState;
  /** One submission, in whatever state. */
  id?: number;
  /** A benchmark's slug. */
  benchmark?: string;
}

/** What maintainers act on (/admin): scored entries awaiting approval first, then the rest they may move. */
export async function getReviewQueuePage(db: Db, opts: PageOpts & ReviewFilter = {}): Promise<Paged<ReviewRow> & { waiting: number }> {
  const { page, pageSize, offset } = paging(opts, 100);
  const clip = createClipper(PUBLIC_RENDER_LIMITS);
  const ofBenchmark = opts.benchmark ? eq(benchmarks.slug, opts.benchmark) : undefined;
  const shown = opts.id !== undefined ? eq(submissions.id, opts.id) : inArray(submissions.state, opts.state ? [opts.state] : [...REVIEW_STATES]);
  const where = and(shown, ofBenchmark);
  // Counted per state over the benchmark's entries, so "awaiting approval" holds whatever state is shown.
  const counts = await db
    .select({ state: submissions.state, n: count() })
    .from(submissions)
    .innerJoin(benchmarkVersions, eq(benchmarkVersions.id, submissions.benchmarkVersionId))
    .innerJoin(benchmarks, eq(benchmarks.id, benchmarkVersions.benchmarkId))
    .where(and(inArray(submissions.state, [...REVIEW_STATES]), ofBenchmark))
    .groupBy(submissions.state);
  const total = counts.filter((c) => !opts.state || c.state === opts.state).reduce((a, c) => a + c.n, 0);
  const waiting = counts.find((c) => c.state === "scored")?.n ?? 0;
  // The state a withdrawn entry left: from the audit row of its latest withdrawal.
  const withdrawnFrom = sql<string | null>`(SELECT ${auditLog.fromState} FROM ${auditLog} WHERE ${auditLog.submissionId} = ${submissions.id} AND ${auditLog.toState} = 'withdrawn' ORDER BY ${auditLog.id} DESC LIMIT 1)`;
  const rows = await db
    .select({
      agent: prefixOf(submissions.agentName, PUBLIC_RENDER_LIMITS.name),
      sub: { id: submissions.id, state: submissions.state, source: submissions.source, sourceRef: submissions.sourceRef, isDemo: submissions.isDemo, updatedAt: submissions.updatedAt, versionId: submissions.benchmarkVersionId, runId: submissions.currentRunId },
      ...benchmarkColumns,
      withdrawnFrom,
      contact: prefixOf(submissions.contact, 300),
      agentType: prefixOf(submissions.agentType, 300),
      notes: prefixOf(submissions.notes, 2_000),
      run: { overallScore: scoringRuns.overallScore, complete: scoringRuns.complete, flags: scoringRuns.flags },
    })
    .from(submissions)
    .innerJoin(benchmarkVersions, eq(benchmarkVersions.id, submissions.benchmarkVersionId))
    .innerJoin(benchmarks, eq(benchmarks.id, benchmarkVersions.benchmarkId))
    .leftJoin(scoringRuns, eq(scoringRuns.id, submissions.currentRunId))
    .where(where)
    .orderBy(sql`${submissions.state} = 'scored' DESC`, desc(submissions.updatedAt), desc(submissions.id))
    .limit(pageSize)
    .offset(offset);
  // An approved entry not on the board waits for its judge's calibration (judge.minKappa): say why.
  const held = await heldReasons(db, rows.filter((r) => r.sub.state === "approved").map((r) => ({ id: r.sub.id, versionId: r.sub.versionId, runId: r.sub.runId })));
  return {
    waiting,
    total: opts.id !== undefined ? rows.length : total,
    page,
    pageSize,
    rows: rows.map(({ agent, sub, run, contact, agentType, notes, ...r }) => ({
      id: sub.id,
      agent: clip.prefix(agent, PUBLIC_RENDER_LIMITS.name),
      benchmark: clip.name(benchmarkLabel(r)),
      state: sub.state,
      withdrawnFrom: sub.state === "withdrawn" ? r.withdrawnFrom : null,
      source: sub.source,
      sourceRef: sub.source === "github" ? clip.text(sub.sourceRef, 500) : "",
      isDemo: sub.isDemo,
      overall: run?.overallScore ?? null,
      complete: run?.complete ?? false,
      updatedAt: sub.updatedAt.toISOString(),
      // Maintainers only: this queue is shown behind the maintainer sign-in.
      contact: clip.prefix(contact, 200),
      agentType: clip.prefix(agentType, 100),
      notes: clip.prefix(notes, 1_000),
      flags: flagMessages(run?.flags, clip),
      held: held.get(sub.id) ?? null,
    })),
  };
}

export async function getReviewQueue(db: Db): Promise<ReviewRow[]> {
  return (await getReviewQueuePage(db, { pageSize: MAX_PAGE_SIZE })).rows;
}

/** One entry as the review list shows it, whatever its state (for the confirmation of an action). */
export async function getReviewEntry(db: Db, id: number): Promise<ReviewRow | null> {
  return (await getReviewQueuePage(db, { id, pageSize: 1 })).rows[0] ?? null;
}
