/**
 * The evaluator scorers: NVIDIA-style dataset items scored by a qa, trajectory or report
 * evaluator. Ground truth is a dataset file per domain (items not routed to the
 * capability's evaluation method are left out, conversation turns kept as history);
 * outputs are outputs files, reports inline or in files of the bundle.
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { datasetCapability, type DatasetCapability, type DatasetItem } from "../../benchmark/load-benchmark";
import { methodIdOf, type EvaluatorConfig } from "../../formats/eval-config";
import { readEvalDataset, type AgentOutput, type EvalItem, type EvalKind } from "../../formats/eval-dataset";
import { attachHistory, diskFiles, reportFiles, withoutDraftFields, type FileSource } from "../../formats/eval-load";
import { readDatasetOutputs } from "../../validate/dataset-outputs";
import { evaluateItem, outputGap, type Evaluator } from "../evaluators/evaluator";
import { prepareEvaluator } from "../evaluators/from-config";
import { createGrader } from "../judges/judge-settings";
import { outputFingerprint } from "../item-fingerprint";
import type { EvaluatorItemResult, TurnTrace } from "../item-result";
import type { CapabilityScorer, ItemTask, LoadContext, ScoreContext } from "./capability-scorer";

export function evaluatorScorer(kind: EvalKind): CapabilityScorer {
  return {
    name: kind,
    readsPythonValues: false,
  outputsNameFiles: true,
    load: (ctx) => loadDataset(kind, ctx),
    async readOutputs({ cap, domain, file, value, sink, source, submission }) {
      const data = datasetCapability(cap);
      const bucket = submission.outputs.get(data.spec.id) ?? new Map<string, AgentOutput>();
      submission.outputs.set(data.spec.id, bucket);
      return readDatasetOutputs({ cap: data, kind, domain, file, value, sink, source, bucket });
    },
    predicted(submission, capability) {
      const m = submission.outputs.get(capability);
      return m ? new Set(m.keys()) : undefined;
    },
    tasks: (cap, ctx) => datasetTasks(datasetCapability(cap), ctx),
    groundTruthView(cap, uuid) {
      const item = datasetCapability(cap).byUuid.get(uuid);
      if (!item) return null;
      // A report item's ground truth is its reference report; the others', the reference answer.
      const answer = item.referenceReport?.ok ? item.referenceReport.value : item.groundTruth;
      return { answer, calls: (item.trajectoryGroundTruth ?? []).map((c) => ({ name: c.name, arguments: c.params })) };
    },
  };
}

/**
 * The capability's evaluator prepared from `evaluator` (files relative to the benchmark
 * folder) and its dataset files read, each item checked for what its evaluator needs (a
 * reference answer, a reference report that loads, a reference trajectory or tool schemas),
 * so scoring never meets a benchmark fault.
 */
async function loadDataset(kind: EvalKind, { root, index, spec, files, read, collect, note, problems }: LoadContext): Promise<DatasetCapability | undefined> {
  const config = spec.evaluator!;
  const readText = async (f: string) => {
    const text = await readFile(f, "utf8");
    note(f, text);
    return text;
  };
  const prepared = await prepareEvaluator(spec.id, config, path.join(root, "benchmark.yaml"), { readText, displayName: (f) => path.relative(root, f) }, `benchmark.yaml: capabilities[${index}].evaluator`);
  if (!prepared.ok) {
    problems.push(...prepared.errors);
    return undefined;
  }
  const methodId = methodIdOf(config);
  const data: DatasetCapability = { kind: "dataset", spec, domains: new Map(), byUuid: new Map(), entries: new Map(), evaluator: prepared.make };
  const noted: FileSource = {
    resolve: diskFiles.resolve,
    read: async (f) => {
      const bytes = await diskFiles.read(f);
      note(f, bytes);
      return bytes;
    },
  };
  const references = reportFiles(noted, (f) => path.relative(root, f));
  const gtDir = path.join(root, "groundtruth", spec.directory);
  // A reference report must score against the metrics (sections that are objects, patterns
  // that compile, fields the tree lists): scored against itself, offline, it shows any fault.
  const selfCheck = kind === "report" ? prepared.make(createGrader({ kind: "rules", concurrency: 1 })) : undefined;
  for (const f of files) {
    const file = await read(f);
    if (!file) continue;
    const { domain, sink } = file;
    const drafts = readEvalDataset(file.value, sink);
    const entries: DatasetItem[] = [];
    const scored: DatasetItem[] = [];
    let unrouted = 0;
    for (const d of drafts) {
      if (d.inlineOutput) sink.warn("output_in_ground_truth", "ground truth carries agent outputs; ignored", { path: d.path });
      const routed = d.methods.includes(methodId);
      const referenceReport = routed && kind === "report" ? await references.reference(d, gtDir) : null;
      const item: DatasetItem = { ...withoutDraftFields(d), referenceReport, uuid: d.id, domain };
      entries.push(item);
      if (!routed) {
        if (!d.conversation) unrouted++;
        continue;
      }
      const where = { path: d.path, uuid: d.id };
      const problem = await unscorableItem(item, config, selfCheck);
      if (problem) sink.error(problem.code, problem.message, where);
      const prior = data.byUuid.get(d.id);
      if (prior) sink.error("duplicate_id", `id appears twice in capability ${spec.id} (also in ${prior.domain}.json)`, where);
      else data.byUuid.set(d.id, item);
      scored.push(item);
    }
    if (unrouted > 0) sink.warn("unrouted_items", `${unrouted} item(s) are not routed to ${methodId} (their evaluation_method lacks it); left out of this capability`);
    collect(sink);
    data.entries.set(domain, entries);
    data.domains.set(domain, scored);
  }
  if (data.byUuid.size === 0 && files.length > 0) problems.push(`groundtruth/${spec.directory}: no item is routed to ${methodId} (expected evaluation_method to include "${methodId}")`);
  return data;
}

/** What keeps an item from being scored by its evaluator, a benchmark fault; null when nothing does. */
async function unscorableItem(item: DatasetItem, config: EvaluatorConfig, selfCheck: Evaluator | undefined): Promise<{ code: string; message: string } | null> {
  const ref = item.referenceReport;
  if (config.type === "report") {
    if (!ref) return null;
    if (!ref.ok) return { code: "bad_reference", message: ref.error };
    const r = await evaluateItem(selfCheck!, { ...item, history: [], output: { answer: null, toolCalls: null, events: null, timestamps: [], report: ref } });
    return r.status === "error" ? { code: "bad_reference", message: `the reference report (${ref.source}) cannot be scored against the metrics: ${r.error}` } : null;
  }
  if (config.type === "qa" && item.groundTruth === null) return { code: "missing_ground_truth", message: `a qa item needs "ground_truth": the reference answer` };
  if (config.type === "trajectory" && !item.trajectoryGroundTruth && !config.toolSchemas) {
    return { code: "missing_trajectory_ground_truth", message: `a trajectory item needs "trajectory_ground_truth", or the capability needs evaluator.toolSchemas to judge it without one` };
  }
  return null;
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
