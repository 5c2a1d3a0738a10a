/**
 * The evaluator capabilities' ground truth: NVIDIA-style dataset files, one per domain (items
 * not routed to the capability's evaluation method are left out, conversation turns kept as
 * history). Loading prepares the capability's evaluator, so a benchmark fault shows here.
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { methodIdOf, type EvaluatorConfig } from "../../formats/eval-config";
import { readEvalDataset, type EvalKind } from "../../formats/eval-dataset";
import { diskFiles, reportFiles, withoutDraftFields, type FileSource } from "../../formats/eval-load";
import { evaluateItem, type Evaluator } from "../../evaluators/evaluator";
import { prepareEvaluator } from "../../evaluators/from-config";
import { createGrader } from "../../judges/judge-settings";
import { datasetCapability, type DatasetCapability, type DatasetItem } from "../capability-data";
import type { CapabilityLoader, LoadContext } from "./capability-loader";

export function datasetLoader(kind: EvalKind): CapabilityLoader {
  return {
    readsPythonValues: false,
    load: (ctx) => loadDataset(kind, ctx),
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
