/** The public queue (every submission and its state) and the changelog (the audit log). */
import { desc, eq, inArray } from "drizzle-orm";
import type { Db } from "../../db/client";
import { auditLog, benchmarks, benchmarkVersions, scoringRuns, submissions } from "../../db/schema";
import type { ChangelogRow, QueueRow, ReviewRow } from "./types";

export function getQueue(db: Db): QueueRow[] {
  const rows = db
    .select({ sub: submissions, bench: benchmarks.title, version: benchmarkVersions.version })
    .from(submissions)
    .innerJoin(benchmarkVersions, eq(benchmarkVersions.id, submissions.benchmarkVersionId))
    .innerJoin(benchmarks, eq(benchmarks.id, benchmarkVersions.benchmarkId))
    .orderBy(desc(submissions.updatedAt), desc(submissions.id))
    .all();
  // The latest run of each submission carries its progress.
  const latest = new Map<number, { done: number; total: number; status: string }>();
  for (const r of db.select().from(scoringRuns).orderBy(scoringRuns.id).all()) latest.set(r.submissionId, { done: r.progressDone, total: r.progressTotal, status: r.status });
  return rows.map(({ sub, bench, version }) => {
    const run = latest.get(sub.id);
    return {
      id: sub.id,
      agent: sub.agentName,
      benchmark: `${bench} v${version}`,
      state: sub.state,
      source: sub.source,
      progress: run && (run.status === "running" || run.status === "queued") ? { done: run.done, total: run.total } : null,
      updatedAt: sub.updatedAt.toISOString(),
      isDemo: sub.isDemo,
    };
  });
}

export function getChangelog(db: Db, limit = 200): ChangelogRow[] {
  return db
    .select({ log: auditLog, agent: submissions.agentName })
    .from(auditLog)
    .leftJoin(submissions, eq(submissions.id, auditLog.submissionId))
    .orderBy(desc(auditLog.id))
    .limit(limit)
    .all()
    .map(({ log, agent }) => ({ at: log.at.toISOString(), submissionId: log.submissionId, agent, actor: log.actor, action: log.action, fromState: log.fromState, toState: log.toState, reason: log.reason }));
}

/** What maintainers act on (/admin): scored entries awaiting approval first, then the rest they may move. */
export function getReviewQueue(db: Db): ReviewRow[] {
  const rows = db
    .select({ sub: submissions, run: scoringRuns })
    .from(submissions)
    .leftJoin(scoringRuns, eq(scoringRuns.id, submissions.currentRunId))
    .where(inArray(submissions.state, ["scored", "error", "approved", "published", "rejected"]))
    .orderBy(desc(submissions.updatedAt), desc(submissions.id))
    .all();
  return rows
    .map(({ sub, run }) => ({
      id: sub.id,
      agent: sub.agentName,
      state: sub.state,
      source: sub.source,
      sourceRef: sub.sourceRef,
      isDemo: sub.isDemo,
      overall: run?.overallScore ?? null,
      complete: run?.complete ?? false,
      updatedAt: sub.updatedAt.toISOString(),
    }))
    .sort((a, b) => Number(b.state === "scored") - Number(a.state === "scored"));
}
