/**
 * Grades a benchmark's calibration cases through the grader port, each asked exactly what the
 * capability's scorer would ask for that stage, so the same prompts (and the same grade-cache
 * keys) apply:
 * - correctness and groundedness: the waterfall's own requests (`verdictRequests`), in the
 *   benchmark's mode (strict or compat: vakra, its evidence window and limit).
 * - qa, trajectory and report_field: the capability's own evaluator (its templates, style and
 *   thinking switch) runs on an item made of the case, and the one request it sends for the
 *   case is the grade. A request it sends for anything else (a report's other fields) is
 *   answered "not asked" without reaching the judge.
 * A judge fault stays `unjudged`: counted and reported, never a fail.
 */
import { datasetCapability, type Benchmark } from "../benchmark/load-benchmark";
import type { CalibrationCase } from "../formats/calibration-case";
import type { AnswerValue } from "../formats/dialogue";
import type { EvalItem } from "../formats/eval-dataset";
import { DiagnosticSink } from "../formats/diagnostic";
import { readToolCalls, type ToolCallStep } from "../formats/eval-tool-calls";
import { gradeSafely, scored, unjudged, type Grade, type GradeRequest, type Grader } from "../judges/grader";
import { mapPool } from "../judges/limit";
import { verdictRequests } from "./waterfall";

export interface CaseGrade {
  case: CalibrationCase;
  grade: Grade;
}

export interface CalibrateDeps {
  grader: Grader;
  /** Cases in flight at once (the judge's own concurrency limit applies beneath). Default 64. */
  concurrency?: number;
  onProgress?: (done: number, total: number) => void;
}

export async function gradeCalibrationCases(benchmark: Benchmark, cases: readonly CalibrationCase[], deps: CalibrateDeps): Promise<CaseGrade[]> {
  let done = 0;
  deps.onProgress?.(0, cases.length);
  return mapPool(cases, deps.concurrency ?? 64, async (c) => {
    let grade: Grade;
    try {
      grade = await gradeCase(benchmark, c, deps.grader);
    } catch (err) {
      // A bug or a case the scorer cannot take fails that case, never the run.
      grade = unjudged("the case could not be graded", err instanceof Error ? err.message : String(err));
    }
    deps.onProgress?.(++done, cases.length);
    return { case: c, grade };
  });
}

function gradeCase(benchmark: Benchmark, c: CalibrationCase, grader: Grader): Promise<Grade> {
  if (c.stage === "correctness" || c.stage === "groundedness") {
    const { spec } = benchmark;
    const requests = verdictRequests({
      question: c.question,
      reference: (c.reference ?? "") as AnswerValue,
      prediction: { answer: c.answer as AnswerValue },
      predictedResponses: c.evidence ?? [],
      compat: spec.compat,
      window: spec.exactMatchWindow,
      evidenceMaxChars: spec.evidenceMaxChars,
    });
    return gradeSafely(grader, c.stage === "correctness" ? requests.correctness : requests.groundedness);
  }
  return gradeThroughEvaluator(benchmark, c, grader);
}

/** The case as the item its capability's evaluator scores, and the request that is the case's. */
async function gradeThroughEvaluator(benchmark: Benchmark, c: CalibrationCase, grader: Grader): Promise<Grade> {
  const data = benchmark.capabilities.find((cap) => cap.spec.id === c.capability);
  if (!data) return unjudged(`the benchmark has no capability "${c.capability}"`);
  const cap = datasetCapability(data);
  const kind = c.stage === "report_field" ? "report_field" : c.stage;
  const asked: Grade[] = [];
  const isTheCase = (req: GradeRequest) => req.kind === kind && (kind !== "report_field" || (req.kind === "report_field" && req.facts.field === c.question));
  const capturing: Grader = {
    id: grader.id,
    readsPrompts: grader.readsPrompts,
    ...(grader.model !== undefined ? { model: grader.model } : {}),
    async grade(req) {
      if (!isTheCase(req)) return unjudged("not asked: calibration grades one request per case");
      const g = await gradeSafely(grader, req);
      asked.push(g);
      return g;
    },
  };
  const evaluator = cap.evaluator(capturing);
  const outcome = await evaluator.score(itemOf(c));
  if (asked.length === 1) return asked[0]!;
  if (asked.length > 1) return unjudged(`the ${c.stage} scorer asked ${asked.length} requests for one case`);
  // Nothing reached the judge: the scorer decided by program (a deterministic judge's trajectory comparison), or could not score.
  if (outcome.status === "scored" && c.stage !== "report_field") return scored(outcome.score, outcome.reason ?? "scored by program");
  if (c.stage === "report_field") return unjudged(`capability "${c.capability}" does not grade the report field "${c.question}" with a judge (llm_judge) in its metrics`);
  return unjudged(outcome.status === "error" ? (outcome.reason ?? "the scorer could not score the case") : "the scorer skipped the case", outcome.status === "error" ? (outcome.error ?? null) : null);
}

function calls(raw: unknown): ToolCallStep[] {
  // Checked when the case was read (calibration-case.ts); a list that fails here is a bug.
  const out = readToolCalls(Array.isArray(raw) ? raw : [], new DiagnosticSink("calibration"), "$");
  if (!out) throw new Error("tool calls that passed reading no longer read");
  return out;
}

/**
 * A field's path as the metrics tree names it (its root key first, `report.Summary.Time`) and a
 * value → the report it sits in (`{Summary: {Time: value}}`: the root key names the whole report).
 */
function nest(path: string, value: unknown): Record<string, unknown> {
  const keys = path.split(".").slice(1);
  let node: unknown = value;
  for (let i = keys.length - 1; i >= 0; i--) node = { [keys[i]!]: node };
  return node as Record<string, unknown>;
}

const textOf = (v: unknown): string => (typeof v === "string" ? v : JSON.stringify(v) ?? "");

function itemOf(c: CalibrationCase): EvalItem {
  const base: EvalItem = {
    id: c.id,
    query: c.question,
    groundTruth: null,
    methods: [],
    trajectoryGroundTruth: null,
    conversation: null,
    path: `${c.file}:${c.line}`,
    history: [],
    output: { answer: null, toolCalls: null, events: null, timestamps: [], report: null },
    referenceReport: null,
  };
  switch (c.stage) {
    case "qa":
      return { ...base, groundTruth: textOf(c.reference), output: { ...base.output!, answer: textOf(c.answer) } };
    case "trajectory":
      return { ...base, trajectoryGroundTruth: calls(c.reference), trajectoryGroundTruthRaw: c.reference, output: { ...base.output!, answer: "", toolCalls: calls(c.answer) } };
    default: {
      // The root field itself is the whole report: a value that is no object leaves nothing to judge.
      if (!c.question.includes(".") && (typeof c.reference !== "object" || c.reference === null)) throw new Error(`"${c.question}" names the report's root: its reference and answer must be whole reports (objects)`);
      const source = `${c.file}:${c.line}`;
      return {
        ...base,
        referenceReport: { ok: true, value: nest(c.question, c.reference), source },
        output: { ...base.output!, answer: "", report: { ok: true, value: nest(c.question, c.answer), source } },
      };
    }
  }
}
