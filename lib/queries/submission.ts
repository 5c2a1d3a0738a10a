/** One submission: metadata, timeline, its current run's scores, funnel and items. */
import { and, asc, count, desc, eq, inArray, type SQL } from "drizzle-orm";
import type { Db } from "../../db/client";
import { auditLog, benchmarks, benchmarkVersions, capabilityScores, domainScores, itemResults, scoringRuns, submissions } from "../../db/schema";
import type { BenchmarkSpec } from "../benchmark/spec";
import { toInfo } from "./benchmark-info";
import type { FunnelBucket } from "../scoring/item-result";
import type { EvaluatorRow, Funnel, ItemDetail, ItemFilters, ItemPage, SubmissionDetail, TrajectoryRow } from "./types";

function submissionWithBenchmark(db: Db, id: number) {
  return db
    .select({ sub: submissions, version: benchmarkVersions, bench: benchmarks })
    .from(submissions)
    .innerJoin(benchmarkVersions, eq(benchmarkVersions.id, submissions.benchmarkVersionId))
    .innerJoin(benchmarks, eq(benchmarks.id, benchmarkVersions.benchmarkId))
    .where(eq(submissions.id, id))
    .get();
}

/** The run pages show: the current (latest completed) one, else the latest. */
function shownRun(db: Db, sub: { id: number; currentRunId: number | null }) {
  if (sub.currentRunId) return db.select().from(scoringRuns).where(eq(scoringRuns.id, sub.currentRunId)).get();
  return db.select().from(scoringRuns).where(eq(scoringRuns.submissionId, sub.id)).orderBy(desc(scoringRuns.id)).get();
}

export function getSubmission(db: Db, id: number): SubmissionDetail | null {
  const row = submissionWithBenchmark(db, id);
  if (!row) return null;
  const { sub } = row;
  const spec = row.version.spec as unknown as BenchmarkSpec;
  const benchmark = toInfo(row.bench.slug, spec, [row.version.version]);
  const run = shownRun(db, sub);
  const caps = run ? db.select().from(capabilityScores).where(eq(capabilityScores.runId, run.id)).all() : [];
  const domains = run ? db.select().from(domainScores).where(eq(domainScores.runId, run.id)).orderBy(asc(domainScores.capability), asc(domainScores.domain)).all() : [];
  const timeline = db.select().from(auditLog).where(eq(auditLog.submissionId, id)).orderBy(asc(auditLog.id)).all();
  const report = sub.validationReport as { summary?: { errors: number; warnings: number }; warningCounts?: Record<string, number>; errors?: { code: string; file: string; path?: string; message: string }[] } | null;
  return {
    id: sub.id,
    agent: sub.agentName,
    models: sub.models,
    maintainer: sub.maintainer,
    description: sub.description,
    links: sub.links,
    source: sub.source,
    sourceRef: sub.source === "github" ? sub.sourceRef : sub.sourceRef.split("/").slice(-2).join("/"),
    bundleSha256: sub.bundleSha256,
    state: sub.state,
    isDemo: sub.isDemo,
    createdAt: sub.createdAt.toISOString(),
    benchmark,
    run: run
      ? {
          id: run.id,
          status: run.status,
          judge: run.judgeId ?? run.judgeKind,
          replay: run.replayMode,
          verified: run.verified,
          progressDone: run.progressDone,
          progressTotal: run.progressTotal,
          overall: run.overallScore === null ? null : { score: run.overallScore, ciLow: run.overallCiLow ?? 0, ciHigh: run.overallCiHigh ?? 0, submitted: true, complete: run.complete ?? false },
          finishedAt: run.finishedAt?.toISOString() ?? null,
        }
      : null,
    capabilities: spec.capabilities.map((c) => {
      const s = caps.find((x) => x.capability === c.id);
      return { id: c.id, label: c.label, scorer: c.scorer, score: s?.score ?? 0, ciLow: s?.ciLow ?? 0, ciHigh: s?.ciHigh ?? 0, submitted: s?.submitted ?? false, nItems: s?.nItems ?? 0, nMissing: s?.nMissing ?? 0, nError: s?.nError ?? 0, nPolicyUnchecked: s?.nPolicyUnchecked ?? 0 };
    }),
    domains: domains.map((d) => ({ capability: d.capability, domain: d.domain, score: d.score, nItems: d.nItems })),
    funnel: run?.status === "completed" ? funnel(db, run.id) : null,
    trajectory: run?.status === "completed" ? trajectoryRows(db, run.id, spec) : [],
    evaluators: run?.status === "completed" ? evaluatorRows(db, run.id, spec) : [],
    timeline: timeline.map((t) => ({ at: t.at.toISOString(), actor: t.actor, action: t.action, fromState: t.fromState, toState: t.toState, reason: t.reason })),
    validation: report?.summary
      ? { errors: report.summary.errors, warnings: report.summary.warnings, warningCounts: report.warningCounts ?? {}, firstErrors: (report.errors ?? []).slice(0, 20).map((e) => ({ code: e.code, file: e.file, ...(e.path ? { path: e.path } : {}), message: e.message })) }
      : null,
  };
}

/** Where items ended, from the buckets the engine stored: not scored, stopped by policy, failed correctness or groundedness, passed. */
export function funnel(db: Db, runId: number): Funnel | null {
  const rows = db
    .select({ bucket: itemResults.bucket, exactPassed: itemResults.exactPassed, n: count() })
    .from(itemResults)
    .where(and(eq(itemResults.runId, runId), eq(itemResults.scorer, "waterfall")))
    .groupBy(itemResults.bucket, itemResults.exactPassed)
    .all();
  const f: Funnel = { total: 0, notScored: 0, policy: 0, exactPassed: 0, correctnessFailed: 0, groundednessFailed: 0, passed: 0 };
  const field: Record<FunnelBucket, keyof Funnel | null> = { not_scored: "notScored", policy: "policy", correctness_failed: "correctnessFailed", groundedness_failed: "groundednessFailed", passed: "passed", evaluated: null };
  for (const r of rows) {
    f.total += r.n;
    const k = field[r.bucket];
    if (k) f[k] += r.n;
    if (r.exactPassed) f.exactPassed += r.n;
  }
  return f.total > 0 ? f : null;
}

export function listItems(db: Db, runId: number, filters: ItemFilters = {}): ItemPage {
  const pageSize = Math.min(200, Math.max(5, filters.pageSize ?? 50));
  const page = Math.max(1, filters.page ?? 1);
  const where: SQL[] = [eq(itemResults.runId, runId)];
  if (filters.capability) where.push(eq(itemResults.capability, filters.capability));
  if (filters.domain) where.push(eq(itemResults.domain, filters.domain));
  if (filters.stage) where.push(eq(itemResults.stage, filters.stage));
  if (filters.status) where.push(eq(itemResults.status, filters.status));
  const cond = and(...where);
  const total = db.select({ n: count() }).from(itemResults).where(cond).get()?.n ?? 0;
  const rows = db
    .select({ capability: itemResults.capability, domain: itemResults.domain, uuid: itemResults.uuid, weight: itemResults.weight, score: itemResults.score, status: itemResults.status, stage: itemResults.stage, policy: itemResults.policy })
    .from(itemResults)
    .where(cond)
    .orderBy(asc(itemResults.capability), asc(itemResults.domain), asc(itemResults.uuid))
    .limit(pageSize)
    .offset((page - 1) * pageSize)
    .all();
  const distinct = (col: "capability" | "domain" | "stage" | "status") =>
    db.selectDistinct({ v: itemResults[col] }).from(itemResults).where(eq(itemResults.runId, runId)).orderBy(asc(itemResults[col])).all().map((r) => r.v);
  return { rows, total, page, pageSize, facets: { capabilities: distinct("capability"), domains: distinct("domain"), stages: distinct("stage"), statuses: distinct("status") } };
}

/**
 * One item with the agent's scored turn, the responses it was judged on, and every verdict.
 * The private half of the evidence (compared values, the judge's words, evaluator errors and
 * field trees, the trajectory summary) is dropped unless `showGroundTruth`.
 */
export function getItem(db: Db, runId: number, capability: string, uuid: string, opts: { showGroundTruth: boolean }): ItemDetail | null {
  const row = db.select().from(itemResults).where(and(eq(itemResults.runId, runId), eq(itemResults.capability, capability), eq(itemResults.uuid, uuid))).get();
  if (!row) return null;
  const r = row.result;
  const open = opts.showGroundTruth;
  const scored = r.trace?.at(-1);
  const evaluation = r.scorer !== "waterfall" ? r.evaluation : null;
  const trajectory = r.scorer === "waterfall" ? r.trajectory : null;
  return {
    capability: row.capability,
    domain: row.domain,
    uuid: row.uuid,
    weight: row.weight,
    score: row.score,
    status: row.status,
    stage: row.stage,
    policy: row.policy,
    scorer: row.scorer,
    bucket: row.bucket,
    reason: r.reason,
    detail: open ? r.detail : null,
    query: scored?.query ?? "",
    answer: scored?.answer ?? null,
    calls: scored?.calls ?? [],
    responses: scored?.responses ?? [],
    verdicts: (r.scorer === "waterfall" ? r.verdicts : []).map((v) => ({
      stage: v.stage,
      turnId: v.turnId,
      outcome: v.outcome,
      score: v.score,
      reason: v.reason,
      detail: open ? v.detail : null,
      judge: v.judge,
      cacheHit: v.cacheHit,
      latencyMs: v.latencyMs,
    })),
    trajectory: trajectory ? { ...trajectory, summary: open ? trajectory.summary : null } : null,
    evaluation: evaluation
      ? {
          kind: evaluation.kind,
          status: evaluation.status,
          score: evaluation.score,
          reason: evaluation.reason,
          judge: evaluation.judge,
          latencyMs: evaluation.latencyMs,
          subScores: evaluation.subScores,
          reasoning: open ? evaluation.reasoning : null,
          error: open ? evaluation.error : null,
          details: open ? evaluation.details : null,
        }
      : null,
  };
}

/** Means of the stored trajectory diagnostics, per capability, in one grouped query. */
function trajectoryRows(db: Db, runId: number, spec: BenchmarkSpec): TrajectoryRow[] {
  const rows = db.$client
    .prepare(
      `SELECT capability, count(*) AS n, avg(json_extract(result, '$.trajectory.score')) AS score,
              avg(json_extract(result, '$.trajectory.toolNamesF1')) AS names, avg(json_extract(result, '$.trajectory.paramsF1')) AS params,
              avg(json_extract(result, '$.trajectory.exact')) AS exact
       FROM item_results WHERE run_id = ? AND json_type(result, '$.trajectory') IS NOT NULL GROUP BY capability`,
    )
    .all(runId) as { capability: string; n: number; score: number; names: number; params: number | null; exact: number }[];
  return spec.capabilities.flatMap((c) => {
    const r = rows.find((x) => x.capability === c.id);
    return r ? [{ capability: c.id, label: c.label, n: r.n, score: r.score, toolNamesF1: r.names, paramsF1: r.params, exactShare: r.exact }] : [];
  });
}

/** Per evaluator capability: items, scored items and the mean of each sub-score. */
function evaluatorRows(db: Db, runId: number, spec: BenchmarkSpec): EvaluatorRow[] {
  const caps = spec.capabilities.filter((c) => c.scorer !== "waterfall");
  if (caps.length === 0) return [];
  const rows = db.$client
    .prepare(`SELECT capability, status, json_extract(result, '$.evaluation.subScores') AS sub FROM item_results WHERE run_id = ? AND capability IN (${caps.map(() => "?").join(", ")})`)
    .all(runId, ...caps.map((c) => c.id)) as { capability: string; status: string; sub: string | null }[];
  return caps.map((c) => {
    const mine = rows.filter((r) => r.capability === c.id);
    const sums = new Map<string, { total: number; n: number }>();
    for (const r of mine) {
      if (r.status !== "scored" || !r.sub) continue;
      for (const [name, v] of Object.entries(JSON.parse(r.sub) as Record<string, number | null>)) {
        const s = sums.get(name) ?? { total: 0, n: 0 };
        if (typeof v === "number") sums.set(name, { total: s.total + v, n: s.n + 1 });
        else sums.set(name, s);
      }
    }
    const subScores = Object.fromEntries([...sums].map(([name, s]) => [name, s.n ? s.total / s.n : null]));
    return { capability: c.id, label: c.label, scorer: c.scorer, nItems: mine.length, nScored: mine.filter((r) => r.status === "scored").length, subScores };
  });
}
