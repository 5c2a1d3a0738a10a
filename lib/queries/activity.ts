/** The public queue (every submission and its state) and the changelog (the audit log), a page at a time. */
import { count, desc, eq, inArray, sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { auditLog, benchmarks, benchmarkVersions, scoringRuns, submissions } from "../../db/schema";
import { redactPaths } from "./redact-paths";
import { prefixOf } from "./sql-prefix";
import { createClipper, PUBLIC_RENDER_LIMITS } from "./render-limits";
import type { ChangelogRow, QueueRow, ReviewRow } from "./types";

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

function paging(opts: PageOpts, fallback: number) {
  const pageSize = Math.min(MAX_PAGE_SIZE, Math.max(1, Math.trunc(opts.pageSize ?? fallback)));
  const page = Math.max(1, Math.trunc(opts.page ?? 1));
  return { page, pageSize, offset: (page - 1) * pageSize };
}

/** The public queue: agent names (cut to a length), states and progress, most recently updated first. */
export function getQueuePage(db: Db, opts: PageOpts = {}): Paged<QueueRow> & { byState: Record<string, number> } {
  const { page, pageSize, offset } = paging(opts, 50);
  const clip = createClipper(PUBLIC_RENDER_LIMITS);
  const byState = Object.fromEntries(db.select({ state: submissions.state, n: count() }).from(submissions).groupBy(submissions.state).all().map((r) => [r.state, r.n]));
  const total = Object.values(byState).reduce((a, b) => a + b, 0);
  const rows = db
    .select({ id: submissions.id, agent: prefixOf(submissions.agentName, PUBLIC_RENDER_LIMITS.name), state: submissions.state, source: submissions.source, updatedAt: submissions.updatedAt, isDemo: submissions.isDemo, bench: benchmarks.title, version: benchmarkVersions.version })
    .from(submissions)
    .innerJoin(benchmarkVersions, eq(benchmarkVersions.id, submissions.benchmarkVersionId))
    .innerJoin(benchmarks, eq(benchmarks.id, benchmarkVersions.benchmarkId))
    .orderBy(desc(submissions.updatedAt), desc(submissions.id))
    .limit(pageSize)
    .offset(offset)
    .all();
  // The latest run of each submission on this page carries its progress.
  const ids = rows.map((r) => r.id);
  const latest = new Map<number, { done: number; total: number; status: string }>();
  if (ids.length) {
    for (const r of db.select().from(scoringRuns).where(inArray(scoringRuns.submissionId, ids)).orderBy(scoringRuns.id).all()) latest.set(r.submissionId, { done: r.progressDone, total: r.progressTotal, status: r.status });
  }
  return {
    byState,
    total,
    page,
    pageSize,
    rows: rows.map((r) => {
      const run = latest.get(r.id);
      return {
        id: r.id,
        agent: clip.prefix(r.agent, PUBLIC_RENDER_LIMITS.name),
        benchmark: `${r.bench} v${r.version}`,
        state: r.state,
        source: r.source,
        progress: run && (run.status === "running" || run.status === "queued") ? { done: run.done, total: run.total } : null,
        updatedAt: r.updatedAt.toISOString(),
        isDemo: r.isDemo,
      };
    }),
  };
}

/** Every submission of the queue (the first MAX_PAGE_SIZE). */
export function getQueue(db: Db): QueueRow[] {
  return getQueuePage(db, { pageSize: MAX_PAGE_SIZE }).rows;
}

/**
 * The public audit log, newest first. Reasons and names are cut to a length, and server paths
 * (a CLI bundle's absolute path in its "received" reason) are shortened.
 */
export function getChangelogPage(db: Db, opts: PageOpts = {}): Paged<ChangelogRow> {
  const { page, pageSize, offset } = paging(opts, 100);
  const clip = createClipper(PUBLIC_RENDER_LIMITS);
  const total = db.select({ n: count() }).from(auditLog).get()?.n ?? 0;
  const rows = db
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
    .orderBy(desc(auditLog.id))
    .limit(pageSize)
    .offset(offset)
    .all()
    .map(({ log, reason, agent, source, sourceRef, bundlePath }) => {
      const known = [source === "github" ? "" : (sourceRef ?? ""), bundlePath ?? ""];
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

export function getChangelog(db: Db, limit = 200): ChangelogRow[] {
  return getChangelogPage(db, { pageSize: limit }).rows;
}

/** Which submissions are published, of those given (for linking only those to the public). */
export function publishedIds(db: Db, ids: readonly number[]): Set<number> {
  const unique = [...new Set(ids)].filter((id) => id !== null);
  if (unique.length === 0) return new Set();
  return new Set(db.select({ id: submissions.id }).from(submissions).where(sql`${submissions.id} IN ${unique} AND ${submissions.state} = 'published'`).all().map((r) => r.id));
}

/** What maintainers act on (/admin): scored entries awaiting approval first, then the rest they may move. */
export function getReviewQueuePage(db: Db, opts: PageOpts = {}): Paged<ReviewRow> & { waiting: number } {
  const { page, pageSize, offset } = paging(opts, 100);
  const clip = createClipper(PUBLIC_RENDER_LIMITS);
  const states = ["scored", "error", "approved", "published", "rejected"] as const;
  const counts = db.select({ state: submissions.state, n: count() }).from(submissions).where(inArray(submissions.state, [...states])).groupBy(submissions.state).all();
  const total = counts.reduce((a, c) => a + c.n, 0);
  const waiting = counts.find((c) => c.state === "scored")?.n ?? 0;
  const rows = db
    .select({ agent: prefixOf(submissions.agentName, PUBLIC_RENDER_LIMITS.name), sub: { id: submissions.id, state: submissions.state, source: submissions.source, sourceRef: submissions.sourceRef, isDemo: submissions.isDemo, updatedAt: submissions.updatedAt }, contact: prefixOf(submissions.contact, 300), agentType: prefixOf(submissions.agentType, 300), notes: prefixOf(submissions.notes, 2_000), run: { overallScore: scoringRuns.overallScore, complete: scoringRuns.complete } })
    .from(submissions)
    .leftJoin(scoringRuns, eq(scoringRuns.id, submissions.currentRunId))
    .where(inArray(submissions.state, [...states]))
    .orderBy(sql`${submissions.state} = 'scored' DESC`, desc(submissions.updatedAt), desc(submissions.id))
    .limit(pageSize)
    .offset(offset)
    .all();
  return {
    waiting,
    total,
    page,
    pageSize,
    rows: rows.map(({ agent, sub, run, contact, agentType, notes }) => ({
      id: sub.id,
      agent: clip.prefix(agent, PUBLIC_RENDER_LIMITS.name),
      state: sub.state,
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
    })),
  };
}

export function getReviewQueue(db: Db): ReviewRow[] {
  return getReviewQueuePage(db, { pageSize: MAX_PAGE_SIZE }).rows;
}
