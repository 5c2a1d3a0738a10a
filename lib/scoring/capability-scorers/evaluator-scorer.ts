/**
 * The evaluator scorers: NVIDIA-style dataset items scored by a qa, trajectory or report
 * evaluator, each item with its conversation's history. (Their ground truth is loaded by
 * benchmark/capability-loaders/dataset-loader.ts, their outputs read by
 * validate/outputs-readers/dataset-reader.ts.)
 */
import { datasetCapability, type DatasetCapability, type DatasetItem } from "../../benchmark/load-benchmark";
import type { EvalItem, EvalKind } from "../../formats/eval-dataset";
import { attachHistory } from "../../formats/eval-load";
import { evaluateItem, outputGap, type Evaluator } from "../../evaluators/evaluator";
import { outputFingerprint } from "../item-fingerprint";
import type { EvaluatorItemResult, TurnTrace } from "../item-result";
import type { CapabilityScorer, ItemTask, ScoreContext } from "./capability-scorer";

export function evaluatorScorer(kind: EvalKind): CapabilityScorer {
  return {
    name: kind,
    tasks: (cap, ctx) => datasetTasks(datasetCapability(cap), ctx),
  };
}

/** The capability's routed items, each with the agent's output and its conversation's history. */
function datasetTasks(cap: DatasetCapability, ctx: ScoreContext): ItemTask[] {
  const evaluator = cap.evaluator(ctx.grader);
  const outputs = ctx.submission.outputs.get(cap.spec.id);
  const tasks: ItemTask[] = [];
  for (const entries of cap.entries.values()) {
    const items = entries.map((gt): EvalItem => {
      const { uuid: _uuid, domain: _domain, ...item } = gt;
      return { ...item, history: [], output: outputs?.get(gt.uuid) ?? null };
    });
    attachHistory(items);
    entries.forEach((gt, i) => {
      if (cap.byUuid.get(gt.uuid) === gt) tasks.push({ capability: cap.spec.id, uuid: gt.uuid, run: () => scoreDatasetItem(cap, evaluator, gt, items[i]!, ctx) });
    });
  }
  return tasks;
}

async function scoreDatasetItem(cap: DatasetCapability, evaluator: Evaluator, gt: DatasetItem, item: EvalItem, ctx: ScoreContext): Promise<EvaluatorItemResult> {
  const kind = evaluator.kind;
  const output = item.output;
  const base = { scorer: kind, capability: cap.spec.id, domain: gt.domain, uuid: gt.uuid, trial: ctx.trial, weight: 1, fingerprint: outputFingerprint(cap.spec.id, gt.uuid, output) };
  if (!output) return { ...base, score: 0, status: "missing", bucket: "not_scored", stage: "none", evaluation: null, trace: [], question: item.query, reason: "no output for this item", detail: null };
  const trace: TurnTrace[] = [
    {
      turnId: (item.conversation?.index ?? 0) + 1,
      query: item.query,
      answer: output.answer,
      calls: (output.toolCalls ?? []).map((c) => ({ name: c.name, arguments: c.params })),
      responses: [],
    },
  ];
  const gap = outputGap(kind, output);
  if (gap) return { ...base, score: 0, status: "agent_error", bucket: "not_scored", stage: kind, evaluation: null, trace, reason: `the output has ${gap}`, detail: null };
  const r = await evaluateItem(evaluator, item, ctx.now);
  const evaluation = { kind: r.kind, status: r.status, score: r.score, reasoning: r.reasoning, reason: r.reason, error: r.error, judge: r.judge, latencyMs: r.latencyMs, subScores: r.subScores, details: r.details };
  if (r.status === "scored") return { ...base, score: r.score!, status: "scored", bucket: "evaluated", stage: kind, trace, evaluation, reason: r.reason, detail: r.reasoning || null };
  // Routed items are never skipped; an error is the evaluator's or its judge's: rescore, never a silent 0.
  return { ...base, score: 0, status: "judge_error", bucket: "not_scored", stage: kind, trace, evaluation, reason: r.reason, detail: r.error ?? r.reasoning };
}
