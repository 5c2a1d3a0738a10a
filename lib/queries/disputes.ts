/**
 * Disputed grades for maintainers (/admin/disputes): what was asked, with the private reference
 * and evidence (the admin pages sit behind maintainer sign-in), each judge's grade and words, the
 * entries whose runs asked it, and the decision once made. No public reader uses this module.
 */
import { asc, count, desc, eq, inArray, isNotNull, isNull, type SQL } from "drizzle-orm";
import type { Db } from "../../db/client";
import { benchmarks, benchmarkVersions, gradeDisputeRuns, gradeDisputes, scoringRuns, submissions } from "../../db/schema";
import type { DisputedRequest, MemberGrade } from "../judges/panel-grader";
import { createClipper, PUBLIC_RENDER_LIMITS } from "./render-limits";

export type DisputeFilter = "open" | "decided";
export const DISPUTE_FILTERS: readonly DisputeFilter[] = ["open", "decided"];

export interface DisputeView {
  key: string;
  kind: string;
  /** Pass/fail stages are decided pass or fail; graded stages by a score. */
  passFail: boolean;
  benchmark: string;
  version: string;
  capability: string;
  rule: string;
  request: DisputedRequest;
  members: MemberGrade[];
  createdAt: string;
  entries: { submissionId: number; runId: number; agent: string; state: string; current: boolean }[];
  decision: { outcome: string; score: number; by: string; at: string; reason: string | null } | null;
}

/** At most this many disputes on one page. */
export const DISPUTES_PAGE = 50;

export function listDisputes(db: Db, filter: DisputeFilter): Promise<DisputeView[]> {
  return disputes(db, filterOf(filter), filter === "open" ? [asc(gradeDisputes.createdAt)] : [desc(gradeDisputes.decidedAt)]);
}

/** One disputed grade by its key (the confirmation of a decision), or null. */
export async function getDispute(db: Db, key: string): Promise<DisputeView | null> {
  return (await disputes(db, eq(gradeDisputes.key, key), []))[0] ?? null;
}

async function disputes(db: Db, where: SQL | undefined, order: SQL[]): Promise<DisputeView[]> {
  const rows = await db
    .select({ d: gradeDisputes, version: benchmarkVersions.version, slug: benchmarks.slug })
    .from(gradeDisputes)
    .innerJoin(benchmarkVersions, eq(benchmarkVersions.id, gradeDisputes.benchmarkVersionId))
    .innerJoin(benchmarks, eq(benchmarks.id, benchmarkVersions.benchmarkId))
    .where(where)
    .orderBy(...order, asc(gradeDisputes.key))
    .limit(DISPUTES_PAGE);
  const keys = rows.map((r) => r.d.key);
  const links = keys.length
    ? await db
        .select({ key: gradeDisputeRuns.key, runId: gradeDisputeRuns.runId, submissionId: submissions.id, agent: submissions.agentName, state: submissions.state, currentRunId: submissions.currentRunId })
        .from(gradeDisputeRuns)
        .innerJoin(scoringRuns, eq(scoringRuns.id, gradeDisputeRuns.runId))
        .innerJoin(submissions, eq(submissions.id, scoringRuns.submissionId))
        .where(inArray(gradeDisputeRuns.key, keys))
        .orderBy(asc(submissions.id), asc(gradeDisputeRuns.runId))
    : [];
  const clip = createClipper(PUBLIC_RENDER_LIMITS);
  const text = (s: string | null) => (s === null ? null : clip.text(s));
  return rows.map(({ d, version, slug }) => ({
    key: d.key,
    kind: d.kind,
    passFail: d.kind === "correctness" || d.kind === "groundedness",
    benchmark: slug,
    version,
    capability: d.capability,
    rule: d.rule,
    request: { question: text(d.request.question), answer: clip.text(d.request.answer), reference: text(d.request.reference), evidence: d.request.evidence ? clip.list(d.request.evidence).map((e) => clip.text(e)) : null, field: text(d.request.field) },
    members: d.members.map((m) => ({ ...m, judge: clip.name(m.judge), reason: clip.text(m.reason), detail: text(m.detail) })),
    createdAt: d.createdAt.toISOString(),
    entries: links.filter((l) => l.key === d.key).map((l) => ({ submissionId: l.submissionId, runId: l.runId, agent: clip.name(l.agent), state: l.state, current: l.currentRunId === l.runId })),
    decision:
      d.decisionOutcome !== null && d.decisionScore !== null
        ? { outcome: d.decisionOutcome, score: d.decisionScore, by: clip.name(d.decidedBy ?? ""), at: d.decidedAt?.toISOString() ?? "", reason: text(d.decisionReason) }
        : null,
  }));
}

const filterOf = (filter: DisputeFilter) => (filter === "open" ? isNull(gradeDisputes.decisionOutcome) : isNotNull(gradeDisputes.decisionOutcome));

/** How many disputes are open (the admin page's link) or decided: all of them, not only a page's. */
export async function disputeCount(db: Db, filter: DisputeFilter = "open"): Promise<number> {
  const [row] = await db.select({ n: count() }).from(gradeDisputes).where(filterOf(filter));
  return row?.n ?? 0;
}
