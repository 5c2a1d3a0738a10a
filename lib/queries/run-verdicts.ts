/**
 * An entry's reproducibility data as the API and `verify` serve it: the shown run's manifest
 * (`scoring_runs.manifest`) and its judge verdicts (verdict-export.ts), a page of items at a
 * time. The private half of the verdicts is in only where the benchmark shows its ground truth
 * (or for the local database's owner, `includePrivate`). Callers decide who may see the entry
 * (visibility.ts).
 */
import { and, count, desc, eq, sql } from "drizzle-orm";
import { rows as rawRows, type Db } from "../../db/client";
import { byCodePoint, jsonText, jsonValid } from "./sql-dialect";
import { benchmarks, benchmarkVersions, itemResults, scoringRuns, submissions } from "../../db/schema";
import type { GradeUse } from "../judges/grade-log";
import type { RunManifest } from "../scoring/manifest";
import { buildVerdictExport, VERDICT_PAGE_SIZE, type ExportSource } from "../scoring/verdict-export";
import type { VerdictExport } from "../judges/verdict-file";
import type { ItemStage, ItemStatus } from "../scoring/item-result";

/** A stored manifest, or null for a run scored before manifests were kept (or a row that is not one). */
export function readManifest(raw: unknown): RunManifest | null {
  return raw && typeof raw === "object" && (raw as { schema?: unknown }).schema === "agentboard.manifest/1" ? (raw as RunManifest) : null;
}

/** The run an entry's pages show that has completed: its current run, else its latest completed one. */
async function completedRun(db: Db, submissionId: number) {
  const [sub] = await db.select({ currentRunId: submissions.currentRunId }).from(submissions).where(eq(submissions.id, submissionId)).limit(1);
  if (!sub) return undefined;
  const where = sub.currentRunId ? eq(scoringRuns.id, sub.currentRunId) : and(eq(scoringRuns.submissionId, submissionId), eq(scoringRuns.status, "completed"));
  const [run] = await db.select().from(scoringRuns).where(where).orderBy(desc(scoringRuns.id)).limit(1);
  return run?.status === "completed" ? run : undefined;
}

/** The shown run's manifest; null when there is no completed run or it has none. */
export async function getRunManifest(db: Db, submissionId: number): Promise<RunManifest | null> {
  const run = await completedRun(db, submissionId);
  return run ? readManifest(run.manifest) : null;
}

/** A stored item's grades, read defensively (rows scored before grades were kept have none). */
function gradesOf(text: string | null): GradeUse[] {
  if (!text) return [];
  try {
    const v = JSON.parse(text) as unknown;
    return Array.isArray(v) ? v.filter((g): g is GradeUse => !!g && typeof g === "object" && typeof (g as GradeUse).key === "string") : [];
  } catch {
    return [];
  }
}

/**
 * One page (1-based) of the shown run's verdicts: `VERDICT_PAGE_SIZE` items, ordered by
 * capability, uuid and trial, with the grades they used. Null when the entry has no completed
 * run or the page is past the end.
 */
export async function getRunVerdicts(db: Db, submissionId: number, opts: { page?: number; pageSize?: number; includePrivate?: boolean } = {}): Promise<VerdictExport | null> {
  const run = await completedRun(db, submissionId);
  if (!run) return null;
  const [info] = await db
    .select({ slug: benchmarks.slug, version: benchmarkVersions.version, spec: benchmarkVersions.spec, sha256: submissions.bundleSha256 })
    .from(submissions)
    .innerJoin(benchmarkVersions, eq(benchmarkVersions.id, submissions.benchmarkVersionId))
    .innerJoin(benchmarks, eq(benchmarks.id, benchmarkVersions.benchmarkId))
    .where(eq(submissions.id, submissionId))
    .limit(1);
  if (!info) return null;
  const size = opts.pageSize ?? VERDICT_PAGE_SIZE;
  const page = opts.page ?? 1;
  const [counted] = await db.select({ n: count() }).from(itemResults).where(eq(itemResults.runId, run.id));
  const total = counted?.n ?? 0;
  if (page < 1 || (page - 1) * size >= Math.max(1, total)) return null;
  const result = sql.raw("result");
  const rows = await rawRows<{ capability: string; uuid: string; trial: number; status: ItemStatus; stage: ItemStage; score: number; weight: number; grades: string | null }>(
    db,
    sql`SELECT capability, uuid, trial, status, stage, score, weight, CASE WHEN ${jsonValid(db, result)} THEN ${jsonText(db, result, ["grades"])} END AS grades
        FROM item_results WHERE run_id = ${run.id}
        ORDER BY ${byCodePoint(db, sql.raw("capability"))}, ${byCodePoint(db, sql.raw("uuid"))}, trial LIMIT ${size} OFFSET ${(page - 1) * size}`,
  );
  const items: ExportSource[] = rows.map((r) => ({ ...r, grades: gradesOf(r.grades) }));
  const showGroundTruth = (info.spec as { showGroundTruth?: unknown }).showGroundTruth === true;
  const judge = run.judge ?? { id: run.judgeId ?? run.judgeKind, kind: run.judgeKind, model: run.judgeModel };
  return buildVerdictExport(
    { benchmark: { slug: info.slug, version: info.version }, bundle: { sha256: info.sha256 }, judge: { id: judge.id, kind: judge.kind, model: judge.model ?? null } },
    items,
    { includePrivate: opts.includePrivate === true || showGroundTruth, page: { number: page, size, items: total } },
  );
}
