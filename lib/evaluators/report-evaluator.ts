/**
 * Report: the agent's report (JSON, or markdown read into the same shape) scored against
 * the item's reference report along the metrics tree (`report-tree.ts`). An unreadable
 * reference is the evaluator's error; a missing report is the agent's failure, scored 0 as
 * NAT scores it. The VLM sub-score is the mean of the configured sections, an unscored one
 * counting 0.
 */
import { metricNodes, type MetricNode } from "../formats/eval-metrics";
import type { Grader } from "../judges/grader";
import type { Evaluator } from "./evaluator";
import type { Outcome } from "./result";
import { checkTemplate, DEFAULT_DISCOVERY_TEMPLATE, DEFAULT_FIELD_TEMPLATE, TEMPLATE_SPECS, type JudgeStyle } from "./prompts";
import { findFieldByPath, judgeFaults, scoreReportTree, type FieldScore } from "./report-tree";
import { withThinking } from "../judges/thinking";
import { readMarkdownAsVss } from "../formats/eval-report-markdown";

export interface ReportEvaluatorOptions {
  name: string;
  methodId?: string;
  judge: Grader;
  metrics: MetricNode;
  /** Score 0 for reference fields the report lacks, in sections that do not say otherwise. */
  penalizeMissingFields?: boolean;
  /** Top-level sections (or dotted paths below the root) whose mean is the VLM sub-score. */
  vlmFields?: readonly string[];
  /** Whether the VLM sub-score is computed (NAT's `include_vlm_output`, default true). */
  includeVlmOutput?: boolean;
  prompts?: { field?: string; discovery?: string };
  style?: JudgeStyle;
  /** NAT's `llm_judge_reasoning`: ask reasoning models to think. */
  thinking?: boolean;
}

/** The VLM field names that name no field of the metrics tree. */
export function unknownVlmFields(metrics: MetricNode, names: readonly string[]): string[] {
  const paths = new Set(metricNodes(metrics).map((n) => n.path));
  return names.filter((n) => !paths.has(`${metrics.name}.${n}`));
}

/**
 * Resolves VLM field names to metric node paths. Agentboard refuses a name not in the tree (a
 * typo would silently drop a section from the sub-score); NAT (style "nat") keeps it, looks it
 * up among the scored fields, which include discovered ones, and skips it when absent.
 */
export function resolveVlmFields(metrics: MetricNode, names: readonly string[], style: JudgeStyle = "agentboard"): string[] {
  const unknown = style === "nat" ? [] : unknownVlmFields(metrics, names);
  if (unknown.length) {
    const fields = metricNodes(metrics).map((n) => n.path).filter((p) => p !== metrics.name).map((p) => p.slice(metrics.name.length + 1));
    throw new Error(`vlmFields: ${unknown.map((u) => `"${u}"`).join(", ")} name no field of the metrics tree (fields: ${fields.join(", ")})`);
  }
  return names.map((n) => `${metrics.name}.${n}`);
}

export function createReportEvaluator(opts: ReportEvaluatorOptions): Evaluator {
  const fieldTemplate = opts.prompts?.field ?? DEFAULT_FIELD_TEMPLATE;
  const discoveryTemplate = opts.prompts?.discovery ?? DEFAULT_DISCOVERY_TEMPLATE;
  const problems = [
    ...checkTemplate(fieldTemplate, TEMPLATE_SPECS.field).map((p) => `field prompt: ${p}`),
    ...checkTemplate(discoveryTemplate, TEMPLATE_SPECS.discovery).map((p) => `discovery prompt: ${p}`),
  ];
  if (problems.length) throw new Error(`${opts.name}: ${problems.join("; ")}`);
  const style = opts.style ?? "agentboard";
  const vlmPaths = resolveVlmFields(opts.metrics, opts.vlmFields ?? [], style);
  const vlmOn = (opts.includeVlmOutput ?? true) && vlmPaths.length > 0;
  const judge = opts.thinking === undefined ? opts.judge : withThinking(opts.judge, opts.thinking);

  return {
    name: opts.name,
    kind: "report",
    methodId: opts.methodId ?? "report",
    judgeId: opts.judge.id,
    async score(item): Promise<Outcome> {
      const ref = item.referenceReport;
      if (!ref) return { status: "error", error: "the item has no reference report", reason: "the item has no reference report" };
      if (!ref.ok) return { status: "error", error: ref.error };
      const report = item.output?.report ?? null;
      if (style === "nat" && report && !report.ok && report.notInStore) {
        // NAT's object store raises on an unknown key, and VSS leaves such an item out of the average (no score).
        return { status: "error", error: report.error, reason: report.error, judge: null, nat: { score: null, reasoning: { error: `No object found with key: ${report.source}.` } } };
      }
      // No report is the agent's failure, scored 0 as NAT scores it; an unreadable reference is ours (an error).
      if (!item.output || !report || !report.ok) {
        const error = !item.output ? "no agent output for this item" : !report ? "the agent's output has no report (report, report_path, or a link report_url_pattern matches)" : !report.ok ? report.error : "";
        return { status: "scored", score: 0, reasoning: error, reason: error, judge: "program", details: { error }, ...(vlmOn ? { subScores: { vlm_field: 0 } } : {}) };
      }
      // VSS reads markdown reports by its own narrower rules; `--compat nat` scores what VSS would see.
      const actual = style === "nat" && report.markdown !== undefined ? readMarkdownAsVss(report.markdown) : report.value;
      const tree = await scoreReportTree(opts.metrics, ref.value, actual, { judge, fieldTemplate, discoveryTemplate, penalizeMissingFields: opts.penalizeMissingFields ?? false, style });
      const details = { sections: tree, metadata: { reference_file: ref.source, actual_file: report.source } };
      const faults = judgeFaults(tree);
      if (style === "agentboard" && faults.length) {
        // A field's error may quote the reference (the judge's words): the public reason counts them.
        return { status: "error", error: `${faults.length} field(s) could not be scored: ${faults.map((e) => `${e.path}: ${e.error}`).join("; ")}`, reason: `${faults.length} field(s) could not be scored`, judge: opts.judge.id, details };
      }
      const subScores: Record<string, number | null> = {};
      if (vlmOn) {
        // NAT's rule: each listed section found in the tree counts, an unscored one as 0.
        const found = vlmPaths.map((p) => findFieldByPath(tree, p)).filter((f): f is FieldScore => f !== undefined);
        subScores.vlm_field = found.length ? found.reduce((s, f) => s + (f.score ?? 0), 0) / found.length : null;
      }
      if (tree.score === null) {
        return { status: "error", error: tree.error ?? "the report's overall score could not be computed", reason: "the report's overall score could not be computed", judge: opts.judge.id, details };
      }
      return { status: "scored", score: tree.score, reasoning: describeTree(tree), reason: describeTree(tree), judge: opts.judge.id, details, subScores };
    },
  };
}

/** `12 fields scored; lowest: Summary.Time 0.00, Title 0.50` */
function describeTree(tree: FieldScore): string {
  const leaves: FieldScore[] = [];
  const walk = (f: FieldScore) => (f.fields && Object.keys(f.fields).length ? Object.values(f.fields).forEach(walk) : leaves.push(f));
  walk(tree);
  const scored = leaves.filter((l) => l.score !== null);
  const low = scored.filter((l) => l.score! < 1).sort((a, b) => a.score! - b.score!).slice(0, 3);
  const errors = leaves.length - scored.length;
  return `${scored.length} field(s) scored${errors ? `, ${errors} error(s) counted as 0` : ""}; ${low.length ? `lowest: ${low.map((l) => `${l.path} ${l.score!.toFixed(2)}`).join(", ")}` : "all fields match"}`;
}
