/** One submission: metadata, timeline, its current run's scores, funnel and items. */
import { and, count, desc, eq, getTableColumns, sql } from "drizzle-orm";
import { rows as rawRows, type Db } from "../../db/client";
import { byCodePoint, jsonArrayRows, jsonNumber, jsonObjectRows, jsonText, jsonValid, jsonValue } from "./sql-dialect";
import { auditLog, benchmarks, benchmarkVersions, capabilityScores, domainScores, itemResults, scoringRuns, submissions } from "../../db/schema";
import type { BenchmarkSpec } from "../benchmark/spec";
import { toInfo } from "./benchmark-info";
import type { TrajectoryComparison } from "../evaluators/trajectory-compare";
import type { FunnelBucket, TrajectoryDiagnostic } from "../scoring/item-result";
import { readRunCost } from "./entry-cost";
import { memoByDataVersion } from "./memo";
import { readIntegrity } from "./integrity";
import { MAX_ITEM_RESULT_CHARS } from "./item-list";
import { publicSourceRef, redactPaths } from "./redact-paths";
import { readManifest } from "./run-verdicts";
import { createClipper, PUBLIC_RENDER_LIMITS, type RenderLimits } from "./render-limits";
import type { EvaluatorRow, Funnel, ItemDetail, RunItemSummary, SubmissionDetail, TrajectoryRow, TrajectoryView } from "./types";
import { trajectoryView } from "./trajectory-view";

/** Only published entries are public; every other state is for maintainers (and the queue's one-line listing). */
export const PUBLIC_STATES: readonly string[] = ["published"];

export function isPublicState(state: string): boolean {
  return PUBLIC_STATES.includes(state);
}

/** A submission's state, or null when there is none: one indexed lookup, before any page work. */
export async function submissionState(db: Db, id: number): Promise<string | null> {
  const [row] = await db.select({ state: submissions.state }).from(submissions).where(eq(submissions.id, id)).limit(1);
  return row?.state ?? null;
}

export interface RenderOpts {
  /** How much of each submitted value to render (default PUBLIC_RENDER_LIMITS). */
  limits?: RenderLimits;
}

/** Validation errors shown on a page, at most. */
export const MAX_VALIDATION_ERRORS_SHOWN = 20;

async function submissionWithBenchmark(db: Db, id: number) {
  // Every column but the validation report, which can be large (validationSummary reads what it
  // needs), and what the submitter told maintainers only (contact, agent type, notes).
  const { validationReport: _report, contact: _contact, agentType: _agentType, notes: _notes, ...columns } = getTableColumns(submissions);
  const [row] = await db
    .select({ sub: columns, version: benchmarkVersions, bench: benchmarks })
    .from(submissions)
    .innerJoin(benchmarkVersions, eq(benchmarkVersions.id, submissions.benchmarkVersionId))
    .innerJoin(benchmarks, eq(benchmarks.id, benchmarkVersions.benchmarkId))
    .where(eq(submissions.id, id))
    .limit(1);
  return row;
}

/** An entry's agent and benchmark title, cut for a page title: one indexed lookup (no scores, no items). */
export async function submissionHeading(db: Db, id: number): Promise<{ agent: string; benchmark: string } | null> {
  const [row] = await db
    .select({ agent: submissions.agentName, title: benchmarks.title, slug: benchmarks.slug })
    .from(submissions)
    .innerJoin(benchmarkVersions, eq(benchmarkVersions.id, submissions.benchmarkVersionId))
    .innerJoin(benchmarks, eq(benchmarks.id, benchmarkVersions.benchmarkId))
    .where(eq(submissions.id, id))
    .limit(1);
  if (!row) return null;
  const cut = (s: string) => (s.length > 80 ? `${s.slice(0, 79)}…` : s);
  return { agent: cut(row.agent), benchmark: cut(row.title || row.slug) };
}

/** The run pages show: the current (latest completed) one, else the latest. */
async function shownRun(db: Db, sub: { id: number; currentRunId: number | null }) {
  const where = sub.currentRunId ? eq(scoringRuns.id, sub.currentRunId) : eq(scoringRuns.submissionId, sub.id);
  const [run] = await db.select().from(scoringRuns).where(where).orderBy(desc(scoringRuns.id)).limit(1);
  return run;
}

/**
 * The validation report's summary, its first errors and its warning counts, read inside the
 * database: a report of a huge invalid bundle is never loaded whole, and every string is cut.
 */
async function validationSummary(db: Db, id: number, clip: ReturnType<typeof createClipper>, known: string[]): Promise<SubmissionDetail["validation"]> {
  const report = sql.raw("submissions.validation_report");
  const [head] = await rawRows<{ errors: number | string | null; warnings: number | string | null }>(
    db,
    sql`SELECT ${jsonText(db, report, ["summary", "errors"])} AS errors, ${jsonText(db, report, ["summary", "warnings"])} AS warnings FROM submissions WHERE id = ${id} AND ${jsonValid(db, report)}`,
  );
  if (!head || head.errors === null) return null;
  const max = clip.limits.text;
  const field = (name: string) => jsonText(db, sql.raw("e.value"), [name]);
  const errors = await rawRows<{ code: unknown; file: unknown; path: unknown; message: unknown; messageLength: number | null }>(
    db,
    sql`SELECT substr(${field("code")}, 1, 201) AS code, substr(${field("file")}, 1, 1001) AS file, substr(${field("path")}, 1, 1001) AS path,
              substr(${field("message")}, 1, ${max + 1}) AS message, length(${field("message")}) AS "messageLength"
       FROM submissions, ${jsonArrayRows(db, report, ["errors"], "e")} WHERE submissions.id = ${id} ORDER BY e.key LIMIT ${MAX_VALIDATION_ERRORS_SHOWN}`,
  );
  const warningRows = await rawRows<{ code: string; n: unknown }>(
    db,
    sql`SELECT substr(w.key, 1, 201) AS code, w.value AS n FROM submissions, ${jsonObjectRows(db, report, ["warningCounts"], "w")} WHERE submissions.id = ${id} LIMIT ${clip.limits.list}`,
  );
  const str = (v: unknown) => (typeof v === "string" ? v : v === null || v === undefined ? "" : String(v));
  return {
    errors: Number(head.errors) || 0,
    warnings: Number(head.warnings) || 0,
    warningCounts: Object.fromEntries(warningRows.map((w) => [clip.name(str(w.code)), Number(w.n) || 0])),
    firstErrors: errors.map((e) => {
      const path = str(e.path);
      return {
        code: clip.name(str(e.code)),
        file: clip.text(redactPaths(str(e.file), known), 1000),
        ...(path ? { path: clip.text(path, 1000) } : {}),
        message: clip.text(redactPaths(clip.prefix({ head: str(e.message), length: e.messageLength ?? 0 }), known)),
      };
    }),
  };
}

/**
 * One submission for its page and its JSON, every submitted string cut to `opts.limits`
 * (public limits by default). `truncated` counts the values that were cut. Pages decide who
 * may see it (isPublicState).
 */
export async function getSubmission(db: Db, id: number, opts: RenderOpts = {}): Promise<(SubmissionDetail & { truncated: number }) | null> {
  const row = await submissionWithBenchmark(db, id);
  if (!row) return null;
  const { sub } = row;
  const clip = createClipper(opts.limits ?? PUBLIC_RENDER_LIMITS);
  const spec = row.version.spec as unknown as BenchmarkSpec;
  const benchmark = toInfo(row.bench.slug, spec, [row.version.version]);
  const run = await shownRun(db, sub);
  const caps = run ? await db.select().from(capabilityScores).where(eq(capabilityScores.runId, run.id)) : [];
  const domains = run ? await db.select().from(domainScores).where(eq(domainScores.runId, run.id)).orderBy(byCodePoint(db, domainScores.capability), byCodePoint(db, domainScores.domain)) : [];
  const [events] = await db.select({ n: count() }).from(auditLog).where(eq(auditLog.submissionId, id));
  const nEvents = events?.n ?? 0;
  // The latest events, shown oldest first.
  const timeline = (await db.select().from(auditLog).where(eq(auditLog.submissionId, id)).orderBy(desc(auditLog.id)).limit(clip.limits.timeline)).reverse();
  const completed = run?.status === "completed";
  if (nEvents > timeline.length) clip.cuts++;
  const known = sub.source === "github" ? [sub.bundlePath] : [sub.sourceRef, sub.bundlePath];
  const links = clip.list(Object.entries(sub.links ?? {}), Math.min(20, clip.limits.list));
  const detail: SubmissionDetail = {
    id: sub.id,
    agent: clip.name(sub.agentName),
    models: clip.list(sub.models ?? []).map((m) => clip.name(String(m))),
    maintainer: clip.name(sub.maintainer),
    description: clip.text(sub.description),
    links: Object.fromEntries(links.map(([k, v]) => [clip.name(k), clip.text(String(v), clip.limits.name * 5)])),
    source: sub.source,
    sourceRef: clip.text(publicSourceRef(sub.source, sub.sourceRef), 1000),
    bundleSha256: clip.name(sub.bundleSha256),
    state: sub.state,
    isDemo: sub.isDemo,
    createdAt: sub.createdAt.toISOString(),
    benchmark,
    run: run
      ? {
          id: run.id,
          status: run.status,
          judge: clip.name(run.judgeId ?? run.judgeKind),
          replay: run.replayMode,
          verified: run.verified,
          progressDone: run.progressDone,
          progressTotal: run.progressTotal,
          overall: run.overallScore === null ? null : { score: run.overallScore, ciLow: run.overallCiLow ?? 0, ciHigh: run.overallCiHigh ?? 0, submitted: true, complete: run.complete ?? false },
          finishedAt: run.finishedAt?.toISOString() ?? null,
          trials: run.trials,
          trialStats: run.trialStats ?? null,
          cost: readRunCost(run.cost),
        }
      : null,
    capabilities: spec.capabilities.map((c) => {
      const s = caps.find((x) => x.capability === c.id);
      return { id: c.id, label: c.label, scorer: c.scorer, score: s?.score ?? 0, ciLow: s?.ciLow ?? 0, ciHigh: s?.ciHigh ?? 0, submitted: s?.submitted ?? false, nItems: s?.nItems ?? 0, nMissing: s?.nMissing ?? 0, nError: s?.nError ?? 0, nPolicyUnchecked: s?.nPolicyUnchecked ?? 0, statusCounts: s?.statusCounts ?? {} };
    }),
    domains: domains.map((d) => ({ capability: d.capability, domain: clip.name(d.domain), score: d.score, nItems: d.nItems })),
    ...(completed ? (storedItemSummary(run.itemSummary) ?? (await runAggregates(db, run.id, spec))) : { funnel: null, trajectory: [], evaluators: [] }),
    timeline: timeline.map((t) => ({
      at: t.at.toISOString(),
      actor: clip.name(redactPaths(t.actor, known)),
      action: clip.name(t.action),
      fromState: t.fromState,
      toState: t.toState,
      reason: clip.text(redactPaths(t.reason, known)),
    })),
    validation: await validationSummary(db, id, clip, known),
    integrity: completed ? await readIntegrity(db, run.flags, spec, clip) : null,
    manifest: completed ? readManifest(run.manifest) : null,
  };
  return { ...detail, truncated: clip.cuts };
}

/**
 * What a run's items add up to (funnel, trajectory and evaluator means), read from its items:
 * the means parse every stored result of the run. The worker stores it in
 * `scoring_runs.item_summary` when the run completes (a completed run's items never change),
 * so a page reads one value instead.
 */
export async function runItemSummary(db: Db, runId: number, spec: BenchmarkSpec): Promise<RunItemSummary> {
  return { funnel: await funnel(db, runId), trajectory: await trajectoryRows(db, runId, spec), evaluators: await evaluatorRows(db, runId, spec) };
}

/** A run completed before summaries were stored: its summary read from the items, once per data version. */
function runAggregates(db: Db, runId: number, spec: BenchmarkSpec): Promise<RunItemSummary> {
  return memoByDataVersion(db, `run-aggregates\0${runId}`, () => runItemSummary(db, runId, spec));
}

/** The stored summary when it has the expected shape (else null: read from the items). */
function storedItemSummary(raw: unknown): RunItemSummary | null {
  if (!raw || typeof raw !== "object") return null;
  const r = raw as Partial<Record<keyof RunItemSummary, unknown>>;
  if (!Array.isArray(r.trajectory) || !Array.isArray(r.evaluators) || (r.funnel !== null && (typeof r.funnel !== "object" || r.funnel === undefined))) return null;
  return { funnel: r.funnel as RunItemSummary["funnel"], trajectory: r.trajectory as RunItemSummary["trajectory"], evaluators: r.evaluators as RunItemSummary["evaluators"] };
}

/** Where items ended, from the buckets the engine stored: not scored, stopped by policy, failed correctness or groundedness, passed. */
export async function funnel(db: Db, runId: number): Promise<Funnel | null> {
  const rows = await db
    .select({ bucket: itemResults.bucket, exactPassed: itemResults.exactPassed, n: count() })
    .from(itemResults)
    .where(and(eq(itemResults.runId, runId), eq(itemResults.scorer, "waterfall")))
    .groupBy(itemResults.bucket, itemResults.exactPassed);
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

/**
 * One item (of one trial) with the agent's scored turn, the responses it was judged on, and every verdict.
 * The private half of the evidence (compared values, the judge's words, evaluator errors and
 * field trees, the trajectory summary and expected calls) is dropped unless `showGroundTruth`.
 */
export async function getItem(db: Db, runId: number, capability: string, uuid: string, opts: { showGroundTruth: boolean; trial?: number } & RenderOpts): Promise<(ItemDetail & { truncated: number }) | null> {
  // A run of k trials holds the item once per trial; a plain run's is trial 1.
  const where = and(eq(itemResults.runId, runId), eq(itemResults.capability, capability), eq(itemResults.uuid, uuid), eq(itemResults.trial, opts.trial ?? 1));
  const [size] = await db.select({ n: sql<number>`length(${itemResults.result})`.mapWith(Number) }).from(itemResults).where(where).limit(1);
  if (!size) return null;
  const clip = createClipper(opts.limits ?? PUBLIC_RENDER_LIMITS);
  if (size.n > MAX_ITEM_RESULT_CHARS) {
    // Not parsed at all: the summary columns say what the item scored.
    const { result: _result, ...columns } = getTableColumns(itemResults);
    const [row] = await db.select(columns).from(itemResults).where(where).limit(1);
    if (!row) return null;
    clip.cuts++;
    const reason = `This item's stored result is too large to show here (${Math.round(size.n / 1048576).toLocaleString("en-US")} MB).`;
    return { ...row, domain: clip.name(row.domain), reason, detail: null, hasTurn: false, query: "", answer: null, calls: [], responses: [], verdicts: [], trajectory: null, evaluation: null, panel: [], truncated: clip.cuts };
  }
  const [row] = await db.select().from(itemResults).where(where).limit(1);
  if (!row) return null;
  const item = clipItem(readItem(row, opts.showGroundTruth), clip);
  return { ...item, truncated: clip.cuts };
}

/** Every submitted string of an item cut, and its lists shortened. */
function clipItem(item: ItemDetail, clip: ReturnType<typeof createClipper>): ItemDetail {
  const opt = (s: string | null) => (s === null ? null : clip.text(s));
  return {
    ...item,
    domain: clip.name(item.domain),
    reason: clip.text(item.reason),
    detail: opt(item.detail),
    query: clip.text(item.query),
    answer: typeof item.answer === "string" ? clip.text(item.answer) : clip.json(item.answer),
    calls: clip.list(item.calls).map((c) => ({ name: clip.name(String(c.name)), arguments: clip.json(c.arguments) as Record<string, unknown> })),
    callCount: item.calls.length,
    responses: clip.list(item.responses).map((r) => clip.json(r)),
    responseCount: item.responses.length,
    verdicts: clip.list(item.verdicts).map((v) => ({ ...v, reason: clip.text(v.reason), detail: opt(v.detail), judge: clip.name(v.judge) })),
    trajectory: item.trajectory ? clipTrajectory(item.trajectory, clip) : null,
    evaluation: item.evaluation
      ? {
          ...item.evaluation,
          reason: clip.text(item.evaluation.reason),
          judge: clip.name(item.evaluation.judge ?? ""),
          reasoning: opt(item.evaluation.reasoning),
          error: opt(item.evaluation.error),
          details: item.evaluation.details ? (clip.json(item.evaluation.details) as Record<string, unknown>) : null,
          subScores: item.evaluation.subScores,
        }
      : null,
    panel: item.panel.map((p) => ({ ...p, members: p.members.map((m) => ({ ...m, judge: clip.name(m.judge), reason: clip.text(m.reason) })) })),
  };
}

function clipTrajectory(t: TrajectoryView, clip: ReturnType<typeof createClipper>): TrajectoryView {
  const args = (v: unknown) => clip.json(v);
  const keys = (k: string[]) => clip.list(k).map((x) => clip.name(x));
  return {
    ...t,
    summary: t.summary === null ? null : clip.text(t.summary),
    calls: t.calls
      ? clip.list(t.calls).map((c) => ({
          ...c,
          call: c.call ? { index: c.call.index, name: clip.name(c.call.name), arguments: args(c.call.arguments) } : null,
          differed: keys(c.differed),
          missing: keys(c.missing),
          extra: keys(c.extra),
          expected: c.expected ? { name: clip.name(c.expected.name), arguments: args(c.expected.arguments) } : null,
        }))
      : null,
    callCount: t.calls?.length,
  };
}

/** The trajectory evaluator's comparison (its evidence) as a diagnostic, so its calls are split and shown like the waterfall's. */
function comparisonDiagnostic(c: unknown): TrajectoryDiagnostic | null {
  if (!c || typeof c !== "object" || !Array.isArray((c as TrajectoryComparison).pairs)) return null;
  const { score, toolNames, params, order, exact, summary, pairs } = c as TrajectoryComparison;
  const num = (x: unknown) => (typeof x === "number" ? x : null);
  return { score: num(score) ?? 0, toolNamesF1: num(toolNames?.f1) ?? 0, paramsF1: num(params?.f1), order: num(order?.score), exact: exact === true, summary: String(summary ?? ""), pairs };
}

function readItem(row: typeof itemResults.$inferSelect, open: boolean): ItemDetail {
  const r = row.result;
  const scored = r.trace?.at(-1);
  const evaluation = r.scorer !== "waterfall" ? r.evaluation : null;
  const trajectory = r.scorer === "waterfall" ? r.trajectory : comparisonDiagnostic(evaluation?.details?.comparison);
  return {
    capability: row.capability,
    domain: row.domain,
    uuid: row.uuid,
    trial: row.trial,
    weight: row.weight,
    score: row.score,
    status: row.status,
    stage: row.stage,
    policy: row.policy,
    scorer: row.scorer,
    bucket: row.bucket,
    reason: r.reason,
    detail: open ? r.detail : null,
    hasTurn: scored !== undefined,
    query: scored?.query ?? r.question ?? "",
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
    trajectory: trajectory ? trajectoryView(trajectory, open) : null,
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
    panel: (r.panel ?? []).map((p) => ({
      kind: p.kind,
      disputed: p.disputed,
      decided: p.decided !== null,
      outcome: p.decided?.outcome ?? p.outcome,
      score: p.decided?.score ?? p.score,
      members: p.members.map((m) => ({ judge: m.judge, outcome: m.outcome, score: m.score, reason: m.reason })),
    })),
  };
}

/** Means of the stored trajectory diagnostics, per capability, in one grouped query. */
async function trajectoryRows(db: Db, runId: number, spec: BenchmarkSpec): Promise<TrajectoryRow[]> {
  // Each stored result is parsed once, for its small trajectory object, whose fields are then read.
  const t = sql.raw("t");
  const mean = (field: string) => sql`avg(${jsonNumber(db, t, [field])})`;
  const rows = await rawRows<{ capability: string; n: number; score: number; names: number; params: number | null; exact: number }>(
    db,
    sql`SELECT capability, count(*) AS n, ${mean("score")} AS score, ${mean("toolNamesF1")} AS names, ${mean("paramsF1")} AS params, ${mean("exact")} AS exact
        FROM (SELECT capability, ${jsonValue(db, sql.raw("result"), ["trajectory"])} AS t FROM item_results WHERE run_id = ${runId}) AS items
        WHERE t IS NOT NULL GROUP BY capability`,
  );
  return spec.capabilities.flatMap((c) => {
    const r = rows.find((x) => x.capability === c.id);
    return r ? [{ capability: c.id, label: c.label, n: r.n, score: r.score, toolNamesF1: r.names, paramsF1: r.params, exactShare: r.exact }] : [];
  });
}

/** Per evaluator capability: items, scored items and the mean of each sub-score. */
async function evaluatorRows(db: Db, runId: number, spec: BenchmarkSpec): Promise<EvaluatorRow[]> {
  const caps = spec.capabilities.filter((c) => c.scorer !== "waterfall");
  if (caps.length === 0) return [];
  const rows = await rawRows<{ capability: string; status: string; sub: string | null }>(
    db,
    sql`SELECT capability, status, ${jsonText(db, sql.raw("result"), ["evaluation", "subScores"])} AS sub FROM item_results WHERE run_id = ${runId} AND capability IN ${caps.map((c) => c.id)}`,
  );
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
