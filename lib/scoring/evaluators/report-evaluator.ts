/**
 * Report: the agent's report (JSON, or markdown read into the same shape) scored against
 * the item's reference report along the metrics tree. An unreadable reference or report is
 * the item's error, as is any field that could not be scored; the VLM-fields sub-score is
 * the mean of the configured sections that were scored.
 */
import { metricNodes, type MetricNode } from "../../formats/eval-metrics";
import type { Grader } from "../judges/grader";
import type { Evaluator } from "./evaluator";
import type { Outcome } from "./result";
import { checkTemplate, DEFAULT_DISCOVERY_TEMPLATE, DEFAULT_FIELD_TEMPLATE, TEMPLATE_SPECS } from "./prompts";
import { fieldErrors, findFieldByPath, scoreReportTree, type FieldScore } from "./report-tree";

export interface ReportEvaluatorOptions {
  name: string;
  methodId?: string;
  judge: Grader;
  metrics: MetricNode;
  /** Score 0 for reference fields the report lacks, in sections that do not say otherwise. */
  penalizeMissingFields?: boolean;
  /** Metric paths below the root (`Analysis Results`, `Summary.Time`) that make up the VLM sub-score. */
  vlmFields?: readonly string[];
  prompts?: { field?: string; discovery?: string };
}

/** Resolves VLM field names to metric node paths; throws naming any that is not in the tree. */
export function resolveVlmFields(metrics: MetricNode, names: readonly string[]): string[] {
  const paths = new Set(metricNodes(metrics).map((n) => n.path));
  const unknown = names.filter((n) => !paths.has(`${metrics.name}.${n}`));
  if (unknown.length) throw new Error(`vlmFields: ${unknown.map((u) => `"${u}"`).join(", ")} name no field of the metrics tree (fields: ${[...paths].filter((p) => p !== metrics.name).map((p) => p.slice(metrics.name.length + 1)).join(", ")})`);
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
  const vlmPaths = resolveVlmFields(opts.metrics, opts.vlmFields ?? []);

  return {
    name: opts.name,
    kind: "report",
    methodId: opts.methodId ?? "report",
    judgeId: opts.judge.id,
    async score(item): Promise<Outcome> {
      const ref = item.referenceReport;
      if (!ref) return { status: "error", error: "the item has no reference report", reason: "the item has no reference report" };
      if (!ref.ok) return { status: "error", error: ref.error };
      if (!item.output) return { status: "error", error: "no agent output for this item", reason: "no agent output for this item" };
      const report = item.output.report;
      if (!report) return { status: "error", error: "the agent's output has no report (report or report_path)", reason: "the agent's output has no report (report or report_path)" };
      if (!report.ok) return { status: "error", error: report.error, reason: report.error };
      const tree = await scoreReportTree(opts.metrics, ref.value, report.value, {
        judge: opts.judge,
        fieldTemplate,
        discoveryTemplate,
        penalizeMissingFields: opts.penalizeMissingFields ?? false,
      });
      const details = { sections: tree, metadata: { reference_file: ref.source, actual_file: report.source } };
      const errors = fieldErrors(tree);
      if (tree.status === "error" || errors.length) {
        // A field's error may quote the reference (a pattern, the judge's words): the public reason counts them.
        return { status: "error", error: `${errors.length} field(s) could not be scored: ${errors.map((e) => `${e.path}: ${e.error}`).join("; ")}`, reason: `${errors.length} field(s) could not be scored`, judge: opts.judge.id, details };
      }
      if (tree.status !== "scored" || tree.score === null) {
        const error = "no field of the report could be scored: the reference has none of the metrics' fields";
        return { status: "error", error, reason: error, judge: opts.judge.id, details };
      }
      const vlm = vlmPaths.map((p) => findFieldByPath(tree, p)).filter((f): f is FieldScore => f?.status === "scored");
      const subScores: Record<string, number | null> = {};
      if (vlmPaths.length) subScores.vlm_field = vlm.length ? vlm.reduce((s, f) => s + f.score!, 0) / vlm.length : null;
      return {
        status: "scored",
        score: tree.score,
        reasoning: describeTree(tree),
        reason: describeTree(tree),
        judge: opts.judge.id,
        details,
        subScores,
      };
    },
  };
}

/** `12 fields scored; lowest: Summary.Time 0.00, Title 0.50` */
function describeTree(tree: FieldScore): string {
  const leaves: FieldScore[] = [];
  const walk = (f: FieldScore) => (f.fields ? Object.values(f.fields).forEach(walk) : leaves.push(f));
  walk(tree);
  const scored = leaves.filter((l) => l.status === "scored");
  const low = scored.filter((l) => l.score! < 1).sort((a, b) => a.score! - b.score!).slice(0, 3);
  const skipped = leaves.length - scored.length;
  return `${scored.length} field(s) scored${skipped ? `, ${skipped} skipped` : ""}; ${low.length ? `lowest: ${low.map((l) => `${l.path} ${l.score!.toFixed(2)}`).join(", ")}` : "all fields match"}`;
}
