/**
 * The public changelog: what happened to entries that a reader of the board cares about,
 * newest first. An entry was published (with its overall), rescored (old → new overall, when
 * it was published again with another run), restored after a withdrawal, withdrawn or rejected
 * (with the reason), or taken off the board for a rescore or a new bundle. Every other move
 * (validating, queued, scoring, run:completed…) stays in the entry's timeline and the
 * maintainers' audit log (activity.ts#getAuditLogPage).
 *
 * Scores follow visibility.ts: only an entry published now shows them to the public; the
 * others are named with their reason, as the queue names them.
 */
import { and, count, desc, eq, inArray, isNotNull, or, sql, type SQL } from "drizzle-orm";
import type { Db } from "../../db/client";
import { auditLog, benchmarks, benchmarkVersions, scoringRuns, submissions, type PublicationDetails } from "../../db/schema";
import { benchmarkColumns, benchmarkLabel, knownPaths, paging, type PageOpts, type Paged } from "./activity";
import { redactPaths } from "./redact-paths";
import { prefixOf } from "./sql-prefix";
import { createClipper, PUBLIC_RENDER_LIMITS } from "./render-limits";
import { isPublicState } from "./submission";
import type { ChangelogEvent, ChangelogKind } from "./types";

/** The audit rows a reader is told about (see the module comment). */
const READER_EVENTS: SQL = or(
  eq(auditLog.toState, "published"),
  inArray(auditLog.toState, ["withdrawn", "rejected"]),
  eq(auditLog.fromState, "withdrawn"),
  and(eq(auditLog.fromState, "published"), inArray(auditLog.toState, ["queued", "validating"])),
)!;

export interface ChangelogOpts extends PageOpts {
  /** Only this entry's events. */
  entry?: number | null;
  /** A signed-in maintainer sees the scores of entries that are not public too. */
  maintainer?: boolean;
}

const num = (v: unknown): number | null => (typeof v === "number" && Number.isFinite(v) ? v : null);

function kindOf(fromState: string | null, toState: string, details: Partial<PublicationDetails> | null): ChangelogKind {
  if (fromState === "withdrawn") return "restored";
  if (toState === "withdrawn" || toState === "rejected") return toState;
  if (toState !== "published") return "unlisted";
  const previous = num(details?.previousRunId);
  return previous !== null && previous !== num(details?.runId) ? "rescored" : "published";
}

export async function getChangelogPage(db: Db, opts: ChangelogOpts = {}): Promise<Paged<ChangelogEvent>> {
  const { page, pageSize, offset } = paging(opts, 50);
  const clip = createClipper(PUBLIC_RENDER_LIMITS);
  const where = and(READER_EVENTS, isNotNull(auditLog.submissionId), opts.entry ? eq(auditLog.submissionId, opts.entry) : undefined);
  const [counted] = await db.select({ n: count() }).from(auditLog).where(where);
  const total = counted?.n ?? 0;
  const rows = (
    await db
    .select({
      log: { id: auditLog.id, at: auditLog.at, submissionId: auditLog.submissionId, actor: auditLog.actor, fromState: auditLog.fromState, toState: auditLog.toState, details: auditLog.details },
      reason: prefixOf(auditLog.reason, PUBLIC_RENDER_LIMITS.text),
      agent: prefixOf(submissions.agentName, PUBLIC_RENDER_LIMITS.name),
      state: submissions.state,
      // For publication rows written before they recorded their run (legacy): the run shown now, and
      // whether this row is the entry's latest publication (then that run is the one it published).
      currentOverall: scoringRuns.overallScore,
      latestPublication: sql<number | null>`(SELECT MAX(a2.id) FROM ${auditLog} a2 WHERE a2.submission_id = ${auditLog.submissionId} AND a2.to_state = 'published')`,
      source: submissions.source,
      sourceRef: submissions.sourceRef,
      bundlePath: submissions.bundlePath,
      ...benchmarkColumns,
    })
    .from(auditLog)
    .innerJoin(submissions, eq(submissions.id, auditLog.submissionId))
    .innerJoin(benchmarkVersions, eq(benchmarkVersions.id, submissions.benchmarkVersionId))
    .innerJoin(benchmarks, eq(benchmarks.id, benchmarkVersions.benchmarkId))
    .leftJoin(scoringRuns, eq(scoringRuns.id, submissions.currentRunId))
    .where(where)
    .orderBy(desc(auditLog.id))
    .limit(pageSize)
    .offset(offset)
  ).map(({ log, reason, agent, state, currentOverall, latestPublication, ...r }): ChangelogEvent => {
      const known = knownPaths(r);
      const isPublic = isPublicState(state);
      const details = (log.details ?? null) as Partial<PublicationDetails> | null;
      const kind = kindOf(log.fromState, log.toState!, details);
      const scores = (isPublic || opts.maintainer === true) && log.toState === "published";
      return {
        id: log.id,
        at: log.at.toISOString(),
        kind,
        submissionId: log.submissionId!,
        agent: clip.prefix(agent, PUBLIC_RENDER_LIMITS.name),
        benchmark: clip.name(benchmarkLabel(r)),
        fromState: log.fromState,
        toState: log.toState!,
        overall: !scores ? null : details && "runId" in details ? num(details.overall) : isPublic && latestPublication === log.id ? currentOverall : null,
        previousOverall: scores && kind === "rescored" ? num(details?.previousOverall) : null,
        reason: clip.text(redactPaths(clip.prefix(reason), known)),
        actor: clip.name(redactPaths(log.actor, known)),
        isPublic,
      };
    });
  return { rows, total, page, pageSize };
}
