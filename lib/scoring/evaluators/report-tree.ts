/**
 * Scores a report against its reference along the metrics tree. A section averages the
 * fields that could be scored (skipped ones do not count; any error makes the section an
 * error, never a 0). Leaves use their method; a field the reference lacks is skipped, since
 * there is nothing to compare with (except for `non_empty`, which needs no reference).
 * With discovery, the report's unlisted fields go to the judge in one call that maps each
 * to a reference field or none (none scores 0). With `penalize_missing_fields`, reference
 * fields the report lacks and nothing mapped to score 0.
 */
import type { MetricMethod, MetricNode } from "../../formats/eval-metrics";
import { gradeSafely, type Grader } from "../judges/grader";
import { discoveryMessages, scoreMessages } from "./prompts";
import { exactMatch, fieldText, nonEmpty, regexFullMatch, tokenF1 } from "./report-metrics";
import type { EvalStatus } from "./result";

export type FieldMethod = MetricMethod | "llm_judge_with_field_discovery" | "missing_from_report";

export interface FieldScore {
  path: string;
  method: FieldMethod;
  status: EvalStatus;
  score: number | null;
  reasoning: string;
  error?: string;
  actual?: unknown;
  reference?: unknown;
  /** For discovered fields: the reference field it was mapped to, or null. */
  referenceField?: string | null;
  fields?: Record<string, FieldScore>;
}

export interface ReportTreeOptions {
  judge: Grader;
  fieldTemplate: string;
  discoveryTemplate: string;
  /** Default for sections that do not set `penalize_missing_fields`. */
  penalizeMissingFields: boolean;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
const describe = (v: unknown) => (v === null ? "null" : Array.isArray(v) ? "a list" : typeof v === "string" ? "text" : `a ${typeof v}`);

export function scoreReportTree(root: MetricNode, reference: Obj, actual: Obj, opts: ReportTreeOptions): Promise<FieldScore> {
  return scoreNode(root, reference, actual, opts);
}

function scoreNode(node: MetricNode, ref: unknown, act: unknown, opts: ReportTreeOptions): Promise<FieldScore> {
  return node.method === "average" ? scoreSection(node, ref, act, opts) : scoreLeaf(node, ref, act, opts);
}

function leaf(path: string, method: FieldMethod, status: EvalStatus, score: number | null, reasoning: string, extra: Partial<FieldScore> = {}): FieldScore {
  return { path, method, status, score, reasoning, ...extra };
}

async function scoreLeaf(node: MetricNode, ref: unknown, act: unknown, opts: ReportTreeOptions): Promise<FieldScore> {
  const a = fieldText(act);
  const r = fieldText(ref);
  const values = { actual: act ?? null, reference: ref ?? null };
  const m = node.method;
  if (m === "non_empty") {
    const s = nonEmpty(a);
    return leaf(node.path, m, "scored", s, s ? "present" : act === undefined ? "the report lacks this field" : "empty in the report", values);
  }
  if (ref === undefined) return leaf(node.path, m, "skipped", null, "the reference has no value for this field", values);
  switch (m) {
    case "exact_match": {
      const s = exactMatch(a, r);
      return leaf(node.path, m, "scored", s, s ? "the same text" : act === undefined ? "the report lacks this field" : "the text differs", values);
    }
    case "f1": {
      const s = tokenF1(a, r);
      return leaf(node.path, m, "scored", s, act === undefined ? "the report lacks this field" : `token F1 ${s.toFixed(2)}`, values);
    }
    case "regex": {
      const out = regexFullMatch(a, r);
      if (!out.ok) return leaf(node.path, m, "error", null, "", { ...values, error: out.error });
      return leaf(node.path, m, "scored", out.score, out.score ? "matches the pattern" : act === undefined ? "the report lacks this field" : "does not match the pattern", values);
    }
    default: {
      const aEmpty = a.trim() === "";
      const rEmpty = r.trim() === "";
      if (aEmpty && rEmpty) return leaf(node.path, m, "scored", 1, "both empty", values);
      if (aEmpty || rEmpty) return leaf(node.path, m, "scored", 0, aEmpty ? (act === undefined ? "the report lacks this field" : "empty in the report") : "empty in the reference but filled in the report", values);
      const field_context = node.description ? `${node.path}: ${node.description}` : node.path;
      const g = await gradeSafely(opts.judge, { kind: "report_field", messages: scoreMessages(opts.fieldTemplate, { field_context, reference: r, actual: a }), facts: { field: node.path, answer: a, reference: r } });
      if (g.outcome === "unjudged") return leaf(node.path, m, "error", null, "", { ...values, error: g.detail ?? g.reason });
      return leaf(node.path, m, "scored", g.score, g.detail ?? g.reason, values);
    }
  }
}

async function scoreSection(node: MetricNode, ref: unknown, act: unknown, opts: ReportTreeOptions): Promise<FieldScore> {
  if (ref === undefined) return leaf(node.path, "average", "skipped", null, "the reference has no such section");
  if (!isObj(ref)) return leaf(node.path, "average", "error", null, "", { error: `the reference's ${node.path} is ${describe(ref)}, not a section of fields` });
  const notes: string[] = [];
  if (act !== undefined && !isObj(act)) notes.push(`the report's ${node.path} is ${describe(act)}, not fields`);
  const actual: Obj = isObj(act) ? act : {};
  const explicit = new Set(node.fields.map((f) => f.name));
  const fields: Record<string, FieldScore> = {};

  const listed = await Promise.all(node.fields.map((f) => scoreNode(f, ref[f.name], actual[f.name], opts)));
  node.fields.forEach((f, i) => (fields[f.name] = listed[i]!));

  const mapped = new Set<string>();
  if (node.discovery) {
    const unlisted = Object.keys(actual).filter((k) => !explicit.has(k));
    const candidateKeys = Object.keys(ref).filter((k) => !explicit.has(k));
    for (const [k, f] of Object.entries(await discover(node, unlisted, candidateKeys, ref, actual, opts))) {
      fields[k] = f;
      if (f.referenceField) mapped.add(f.referenceField);
    }
  }

  if (node.penalizeMissing ?? opts.penalizeMissingFields) {
    for (const k of Object.keys(ref)) {
      if (explicit.has(k) || mapped.has(k) || k in actual) continue;
      fields[k] = leaf(`${node.path}.${k}`, "missing_from_report", "scored", 0, "a reference field the report lacks", { reference: ref[k] });
    }
  }

  const all = Object.values(fields);
  const errors = all.filter((f) => f.status === "error");
  const scored = all.filter((f) => f.status === "scored");
  if (errors.length) return leaf(node.path, "average", "error", null, notes.join("; "), { error: `${errors.length} field(s) could not be scored`, fields });
  if (scored.length === 0) return leaf(node.path, "average", "skipped", null, "no field of this section could be scored", { fields });
  const score = scored.reduce((s, f) => s + f.score!, 0) / scored.length;
  const reasoning = [`mean of ${scored.length} field(s)${all.length > scored.length ? ` (${all.length - scored.length} skipped)` : ""}`, ...notes].join("; ");
  return leaf(node.path, "average", "scored", score, reasoning, { fields });
}

async function discover(node: MetricNode, unlisted: string[], candidateKeys: string[], ref: Obj, actual: Obj, opts: ReportTreeOptions): Promise<Record<string, FieldScore>> {
  const out: Record<string, FieldScore> = {};
  const method = "llm_judge_with_field_discovery";
  if (unlisted.length === 0) return out;
  const actualFields = Object.fromEntries(unlisted.map((k) => [k, actual[k]]));
  if (candidateKeys.length === 0) {
    for (const k of unlisted) out[k] = leaf(`${node.path}.${k}`, method, "scored", 0, "no counterpart in the reference (it has no unlisted fields)", { actual: actual[k], referenceField: null });
    return out;
  }
  const candidates = Object.fromEntries(candidateKeys.map((k) => [k, ref[k]]));
  const lines = (o: Obj) => Object.entries(o).map(([k, v]) => `${k}: ${fieldText(v)}`).join("\n");
  const r = await gradeSafely(opts.judge, {
    kind: "field_discovery",
    messages: discoveryMessages(opts.discoveryTemplate, { reference_section: lines(candidates), actual_fields: lines(actualFields) }),
    section: node.path,
    actual: actualFields,
    candidates,
  });
  if (r.outcome === "unjudged" || !r.matches) {
    const error = `field discovery failed: ${r.detail ?? r.reason}`;
    for (const k of unlisted) out[k] = leaf(`${node.path}.${k}`, method, "error", null, "", { actual: actual[k], error });
    return out;
  }
  {
    for (const m of r.matches) {
      const path = `${node.path}.${m.field}`;
      out[m.field] =
        m.referenceField === null
          ? leaf(path, method, "scored", 0, m.reasoning || "no counterpart in the reference", { actual: actual[m.field], referenceField: null })
          : leaf(path, method, "scored", m.score, m.reasoning, { actual: actual[m.field], reference: ref[m.referenceField], referenceField: m.referenceField });
    }
  }
  return out;
}

/** Paths and errors of every errored leaf (or section that failed on its own). */
export function fieldErrors(f: FieldScore): { path: string; error: string }[] {
  const children = Object.values(f.fields ?? {});
  const below = children.flatMap(fieldErrors);
  if (f.status === "error" && below.length === 0) return [{ path: f.path, error: f.error ?? "error" }];
  return below;
}

/** The scored node with this path (`report.Summary.Time`), anywhere in the tree. */
export function findFieldByPath(root: FieldScore, path: string): FieldScore | undefined {
  if (root.path === path) return root;
  for (const child of Object.values(root.fields ?? {})) {
    const hit = findFieldByPath(child, path);
    if (hit) return hit;
  }
  return undefined;
}
