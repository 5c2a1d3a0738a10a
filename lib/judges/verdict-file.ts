/**
 * A verdict export file (`agentboard.verdicts/1`, built by scoring/verdict-export.ts): its
 * shape, reading and checking one from untrusted JSON, and merging its pages. The verdicts
 * grader re-scores a run from it, so it sits with the judges.
 */
import { readFileSync, statSync } from "node:fs";
import { z } from "zod";
import { formatZodIssues } from "../formats/zod-issues";
import type { FieldMatch, GradeKind, GradeOutcome } from "./grader";

export interface ExportedGrade {
  kind: GradeKind;
  outcome: GradeOutcome;
  score: number | null;
  reason: string;
  /** Private: present only in a private export. */
  detail?: string | null;
  matches?: FieldMatch[];
  /** Field discovery in a public export: its matches name reference fields, so the grade is withheld. */
  withheld?: true;
}

export interface ExportedItem {
  capability: string;
  uuid: string;
  trial: number;
  status: string;
  stage: string;
  score: number;
  weight: number;
  /** Keys of the grades the item used, in the order it asked. */
  grades: string[];
}

export interface VerdictExport {
  schema: "agentboard.verdicts/1";
  benchmark: { slug: string; version: string };
  bundle: { sha256: string };
  /** The judge the run used (never its endpoint or key). */
  judge: { id: string; kind: string; model: string | null };
  /** Whether the private half is in. */
  private: boolean;
  /** This export's slice of the run's items (1-based page; one page holds them all unless paged). */
  page: { number: number; pages: number; size: number; items: number };
  grades: Record<string, ExportedGrade>;
  items: ExportedItem[];
}

/** The pages of one run's export as one export (pages of other runs are refused). */
export function mergeVerdictPages(pages: readonly VerdictExport[]): VerdictExport {
  const first = pages[0];
  if (!first) throw new Error("no verdict pages");
  for (const p of pages) {
    if (p.bundle.sha256 !== first.bundle.sha256 || p.judge.id !== first.judge.id) throw new Error(`verdict page ${p.page.number} belongs to another run`);
  }
  const items = pages.flatMap((p) => p.items);
  return { ...first, page: { number: 1, pages: 1, size: Math.max(1, items.length), items: items.length }, grades: Object.assign({}, ...pages.map((p) => p.grades)), items };
}

const key = z.string().regex(/^[0-9a-f]{64}$/, "expected a 64-digit hex key");
const unit = z.number().min(0).max(1);
const gradeSchema = z.object({
  kind: z.enum(["correctness", "groundedness", "qa", "trajectory", "report_field", "field_discovery"]),
  outcome: z.enum(["pass", "fail", "scored", "unjudged"]),
  score: unit.nullable(),
  reason: z.string().max(100_000),
  detail: z.string().max(1_000_000).nullable().optional(),
  matches: z.array(z.object({ field: z.string(), referenceField: z.string().nullable(), score: unit, reasoning: z.string() })).max(10_000).optional(),
  withheld: z.literal(true).optional(),
});
const exportSchema = z.object({
  schema: z.literal("agentboard.verdicts/1"),
  benchmark: z.object({ slug: z.string(), version: z.string() }),
  bundle: z.object({ sha256: z.string() }),
  judge: z.object({ id: z.string(), kind: z.string(), model: z.string().nullable() }),
  private: z.boolean(),
  page: z.object({ number: z.number().int().min(1), pages: z.number().int().min(1), size: z.number().int().min(1), items: z.number().int().min(0) }),
  grades: z.record(key, gradeSchema),
  items: z.array(
    z.object({
      capability: z.string(),
      uuid: z.string(),
      trial: z.number().int().min(1),
      status: z.string(),
      stage: z.string(),
      score: unit,
      weight: z.number().min(0),
      grades: z.array(key).max(10_000),
    }),
  ),
});

/** A verdict export from untrusted JSON, or the first problems with it. */
export function parseVerdictExport(value: unknown): { ok: true; verdicts: VerdictExport } | { ok: false; error: string } {
  const r = exportSchema.safeParse(value);
  if (r.success) return { ok: true, verdicts: r.data as VerdictExport };
  return { ok: false, error: `not an Agentboard verdict export (${formatZodIssues(r.error).slice(0, 3).join("; ")})` };
}

/** The largest verdict file read. */
export const MAX_VERDICT_FILE_BYTES = 512 * 1024 ** 2;

/** Reads and checks a verdict file; throws with the reason. */
export function readVerdictFile(file: string): VerdictExport {
  const size = statSync(file, { throwIfNoEntry: false })?.size;
  if (size === undefined) throw new Error(`verdict file not found: ${file}`);
  if (size > MAX_VERDICT_FILE_BYTES) throw new Error(`${file} is ${size} bytes; a verdict file may hold at most ${MAX_VERDICT_FILE_BYTES}`);
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, "utf8"));
  } catch (err) {
    throw new Error(`${file} is not valid JSON: ${err instanceof Error ? err.message : String(err)}`);
  }
  const r = parseVerdictExport(json);
  if (!r.ok) throw new Error(`${file}: ${r.error}`);
  return r.verdicts;
}
