/**
 * Scores a report against its reference along the metrics tree, bottom up, as NAT's report
 * evaluator does:
 * - A section (fields or discovery) needs a mapping in the reference; otherwise it is an
 *   error node, which its parent's average counts as 0 (a section the reference lacks counts 0).
 * - Listed fields are scored against `reference[k]` and `report[k]`; a value either side
 *   lacks is "" (so a field the reference lacks is still scored, against "").
 * - With discovery, every report field not listed goes to the judge in one call, which maps
 *   it to a reference field (or none) and scores it.
 * - A node's score is the mean of its children (`average`, error nodes as 0, none at all 0),
 *   or its method applied to the whole value; values are compared as Python's `str()`,
 *   sections judged as JSON.
 * The one departure is judge faults: a field the judge could not score is marked
 * `judgeFault`, and outside `compat: nat` that makes the item an error instead of a 0.
 */
import type { MetricNode } from "../formats/eval-metrics";
import { JsonNumber } from "../formats/lossless-json";
import { pythonJsonDumps, pythonStr } from "../formats/python-str";
import { gradeSafely, type Grader } from "../judges/grader";
import { discoveryMessages, scoreMessages, type JudgeStyle } from "./prompts";
import { exactMatch, fieldText, nonEmpty, regexFullMatch, tokenF1 } from "../judges/report-metrics";

export type FieldMethod = MetricNode["method"] | "llm_judge_with_field_discovery" | "missing_from_report";

export interface FieldScore {
  /** Dotted path from the root key. */
  path: string;
  method: FieldMethod;
  status: "scored" | "error";
  score: number | null;
  reasoning: string;
  error?: string;
  /** The judge gave no usable score (an item error unless `compat: nat`). */
  judgeFault?: boolean;
  /** The report's value here (absent as null). */
  actual: unknown;
  /** The reference's value here; for discovered fields, the matched field's value or a note. */
  reference: unknown;
  /** For discovered fields: the reference field it was mapped to, or null. */
  referenceField?: string | null;
  fields?: Record<string, FieldScore>;
}

export interface ReportTreeOptions {
  judge: Grader;
  fieldTemplate: string;
  discoveryTemplate: string;
  /** Default for sections that do not set `penalize_missing_fields` (an Agentboard addition, off by default). */
  penalizeMissingFields: boolean;
  style: JudgeStyle;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v) && !(v instanceof JsonNumber);
const pyType = (v: unknown) => (v === null || v === undefined ? "NoneType" : Array.isArray(v) ? "list" : typeof v === "string" ? "str" : typeof v === "boolean" ? "bool" : v instanceof JsonNumber ? v.kind : isObj(v) ? "dict" : Number.isInteger(v) ? "int" : "float");

export function scoreReportTree(root: MetricNode, reference: Obj, actual: Obj, opts: ReportTreeOptions): Promise<FieldScore> {
  return scoreNode(root, reference, actual, opts);
}

function node(path: string, method: FieldMethod, score: number | null, reasoning: string, actual: unknown, reference: unknown, extra: Partial<FieldScore> = {}): FieldScore {
  return { path, method, status: score === null ? "error" : "scored", score, reasoning, actual: actual ?? null, reference: reference ?? null, ...extra };
}

function errorNode(path: string, method: FieldMethod, error: string, actual: unknown, reference: unknown, extra: Partial<FieldScore> = {}): FieldScore {
  return { path, method, status: "error", score: null, reasoning: "", error, actual: actual ?? null, reference: reference ?? null, ...extra };
}

async function scoreNode(n: MetricNode, ref: unknown, act: unknown, opts: ReportTreeOptions): Promise<FieldScore> {
  const fields: Record<string, FieldScore> = {};
  if (n.isSection) {
    if (!isObj(ref)) return errorNode(n.path, n.method, `Reference at '${n.path}' is ${pyType(ref)}, expected dict for section`, act, ref);
    const actual: Obj = isObj(act) ? act : {};
    const listed = await Promise.all(n.fields.map((f) => scoreNode(f, ref[f.name], actual[f.name], opts)));
    n.fields.forEach((f, i) => (fields[f.name] = listed[i]!));
    const explicit = new Set(n.fields.map((f) => f.name));
    if (n.discovery) {
      const unlisted = Object.keys(actual).filter((k) => !explicit.has(k));
      Object.assign(fields, await discover(n, unlisted, ref, actual, opts));
    }
    if (n.penalizeMissing ?? opts.penalizeMissingFields) {
      const mapped = new Set(Object.values(fields).map((f) => f.referenceField).filter((r): r is string => typeof r === "string"));
      for (const k of Object.keys(ref)) {
        if (explicit.has(k) || mapped.has(k) || k in actual) continue;
        fields[k] = node(`${n.path}.${k}`, "missing_from_report", 0, "a reference field the report lacks", null, ref[k]);
      }
    }
  }
  const extra = n.isSection ? { fields } : {};
  if (n.method === "average") {
    const children = Object.values(fields);
    const fault = children.find((c) => c.judgeFault);
    if (fault && opts.style === "agentboard") return errorNode(n.path, "average", `${children.filter((c) => c.judgeFault).length} field(s) could not be scored by the judge`, act, ref, { ...extra, judgeFault: true });
    if (children.length === 0) return node(n.path, "average", 0, "no fields to average", act, ref, extra);
    const score = children.reduce((s, c) => s + (c.score ?? 0), 0) / children.length;
    const errors = children.filter((c) => c.score === null).length;
    return node(n.path, "average", score, `mean of ${children.length} field(s)${errors ? ` (${errors} error(s) counted as 0)` : ""}`, act, ref, extra);
  }
  const value = await scoreValue(n, ref, act, opts);
  if ("error" in value) return errorNode(n.path, n.method, value.error, act, ref, { ...extra, ...(value.judgeFault ? { judgeFault: true } : {}) });
  return node(n.path, n.method, value.score, value.reasoning, act, ref, extra);
}

type ValueScore = { score: number; reasoning: string } | { error: string; judgeFault?: boolean };

async function scoreValue(n: MetricNode, ref: unknown, act: unknown, opts: ReportTreeOptions): Promise<ValueScore> {
  const dicts = isObj(ref) || isObj(act);
  if (n.method === "llm_judge") {
    // Sections go as JSON; beside a section, NAT's str() makes a missing value "None", elsewhere "".
    const text = (v: unknown) => (isObj(v) ? pythonJsonDumps(v) : dicts ? pythonStr(v ?? null) : fieldText(v));
    const a = text(act);
    const r = text(ref);
    const name = n.path.split(".").at(-1) ?? n.path;
    const field_context = `\n\nField being evaluated: ${name}${n.description ? ` (${n.description})` : ""}`;
    const g = await gradeSafely(opts.judge, { kind: "report_field", style: opts.style, messages: scoreMessages(opts.fieldTemplate, { field_context, reference: r, actual: a }, opts.style), facts: { field: n.path, answer: a, reference: r } });
    if (g.outcome === "unjudged") return { error: `Evaluation failed: metric returned None (${g.detail ?? g.reason})`, judgeFault: true };
    return { score: g.score!, reasoning: g.detail ?? g.reason };
  }
  if (dicts) return { error: `${n.method} cannot score a section: it compares text, and '${n.path}' holds fields` };
  const a = fieldText(act);
  const r = fieldText(ref);
  switch (n.method) {
    case "non_empty": {
      const s = nonEmpty(a);
      return { score: s, reasoning: s ? "present" : act === undefined ? "the report lacks this field" : "empty in the report" };
    }
    case "exact_match": {
      const s = exactMatch(a, r);
      return { score: s, reasoning: s ? "the same text" : act === undefined ? "the report lacks this field" : ref === undefined ? "the reference lacks this field" : "the text differs" };
    }
    case "f1": {
      const s = tokenF1(a, r);
      return { score: s, reasoning: act === undefined ? "the report lacks this field" : `token F1 ${s.toFixed(2)}` };
    }
    case "regex": {
      const out = regexFullMatch(a, r);
      // NAT scores a pattern it cannot compile 0; the reason says so (without quoting it).
      if (!out.ok) return { score: 0, reasoning: "the reference pattern is not a valid regular expression" };
      return { score: out.score, reasoning: out.score ? "matches the pattern" : act === undefined ? "the report lacks this field" : "does not match the pattern" };
    }
    default:
      return { error: `unknown method ${n.method}` };
  }
}

async function discover(n: MetricNode, unlisted: string[], ref: Obj, actual: Obj, opts: ReportTreeOptions): Promise<Record<string, FieldScore>> {
  const out: Record<string, FieldScore> = {};
  const method = "llm_judge_with_field_discovery";
  if (unlisted.length === 0) return out;
  const actualFields = Object.fromEntries(unlisted.map((k) => [k, actual[k]]));
  const r = await gradeSafely(opts.judge, {
    kind: "field_discovery",
    style: opts.style,
    messages: discoveryMessages(opts.discoveryTemplate, { reference_section: pythonJsonDumps(ref), actual_fields: pythonJsonDumps(actualFields) }, opts.style),
    section: n.path,
    actual: actualFields,
    candidates: ref,
  });
  if (r.outcome === "unjudged" || !r.matches) {
    for (const k of unlisted) out[k] = errorNode(`${n.path}.${k}`, method, `LLM failed to score this field during discovery (${r.detail ?? r.reason})`, actual[k], null, { judgeFault: true });
    return out;
  }
  for (const m of r.matches) {
    const path = `${n.path}.${m.field}`;
    const refValue = m.referenceField === null ? "[no matching reference field found in LLM response]" : m.referenceField in ref ? ref[m.referenceField] : `[no matching reference field: ${m.referenceField}]`;
    out[m.field] = node(path, method, m.score, m.reasoning || (m.referenceField === null ? "no counterpart in the reference" : `matched to ${m.referenceField}`), actual[m.field], refValue, { referenceField: m.referenceField });
  }
  return out;
}

/** Paths and errors of every leaf the judge could not score. */
export function judgeFaults(f: FieldScore): { path: string; error: string }[] {
  const below = Object.values(f.fields ?? {}).flatMap(judgeFaults);
  if (f.judgeFault && below.length === 0) return [{ path: f.path, error: f.error ?? "error" }];
  return below;
}

/** The node with this path (`report.Summary.Time`), anywhere in the tree. */
export function findFieldByPath(root: FieldScore, path: string): FieldScore | undefined {
  if (root.path === path) return root;
  for (const child of Object.values(root.fields ?? {})) {
    const hit = findFieldByPath(child, path);
    if (hit) return hit;
  }
  return undefined;
}

/** NAT's `EvaluationScore` tree for output files: `{section_score, method, actual_value, reference_value, error, field_scores}`. */
export function natEvaluationScore(f: FieldScore): Record<string, unknown> {
  return {
    section_score: f.score,
    method: f.method,
    actual_value: f.actual ?? null,
    reference_value: f.reference ?? null,
    error: f.error ?? null,
    field_scores: Object.fromEntries(Object.entries(f.fields ?? {}).map(([k, v]) => [k, natEvaluationScore(v)])),
  };
}
