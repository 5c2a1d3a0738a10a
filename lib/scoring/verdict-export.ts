/**
 * A run's judge verdicts, exported so the run can be re-scored without an LLM
 * (`GET /api/submissions/:id/verdicts`, `score --verdicts-out`, read back by `verify` and the
 * verdicts grader). For each grade the run asked its LLM judge: its key (grade-log.ts
 * `verdictKey`) → outcome, score and public reason; per item: capability, uuid, trial, status,
 * stage, score, weight and the keys it used. The private half (the judge's own words, and the
 * reference fields a report's field discovery matched) is in only when `private` is true: the
 * benchmark shows its ground truth, or it is your own run. A run of the rules judge exports
 * items and no grades: it is re-scored by running rules again. The file's shape, and reading
 * one back, are the judges' (judges/verdict-file.ts).
 */
import type { GradeUse } from "../judges/grade-log";
import type { ExportedGrade, ExportedItem, VerdictExport } from "../judges/verdict-file";
import type { ItemResult } from "./item-result";
import { judgeOfId, trialOf } from "./manifest";

export type ExportSource = Pick<ItemResult, "capability" | "uuid" | "status" | "stage" | "score" | "weight" | "grades"> & { trial?: number };

export interface ExportMeta {
  benchmark: { slug: string; version: string };
  bundle: { sha256: string };
  judge: { id: string; kind?: string; model?: string | null };
}

/** Items per page of the API's export; `verify` follows the pages. */
export const VERDICT_PAGE_SIZE = 2_000;

export function exportGrade(g: GradeUse, includePrivate: boolean): ExportedGrade {
  const base = { kind: g.kind, outcome: g.outcome, score: g.score, reason: g.reason };
  if (includePrivate) return { ...base, detail: g.detail, ...(g.matches ? { matches: g.matches } : {}) };
  return g.matches && g.matches.length > 0 ? { ...base, withheld: true } : base;
}

/** The export of these items (a page of them, when `page` is given with the run's item count). */
export function buildVerdictExport(meta: ExportMeta, items: readonly ExportSource[], opts: { includePrivate: boolean; page?: { number: number; size: number; items: number } }): VerdictExport {
  const grades: Record<string, ExportedGrade> = {};
  const out: ExportedItem[] = items.map((i) => {
    for (const g of i.grades ?? []) grades[g.key] ??= exportGrade(g, opts.includePrivate);
    return { capability: i.capability, uuid: i.uuid, trial: trialOf(i), status: i.status, stage: i.stage, score: i.score, weight: i.weight, grades: (i.grades ?? []).map((g) => g.key) };
  });
  const page = opts.page ?? { number: 1, size: Math.max(1, items.length), items: items.length };
  return {
    schema: "agentboard.verdicts/1",
    benchmark: { slug: meta.benchmark.slug, version: meta.benchmark.version },
    bundle: { sha256: meta.bundle.sha256 },
    judge: { id: meta.judge.id, kind: meta.judge.kind ?? judgeOfId(meta.judge.id).kind, model: meta.judge.model ?? judgeOfId(meta.judge.id).model },
    private: opts.includePrivate,
    page: { ...page, pages: Math.max(1, Math.ceil(page.items / page.size)) },
    grades,
    items: out,
  };
}
