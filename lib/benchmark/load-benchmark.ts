/**
 * Loads a benchmark folder: optional `benchmark.yaml` plus
 * `groundtruth/<capability_dir>/<domain>.json`. Broken ground truth is a benchmark error,
 * reported with the same precise diagnostics as submissions.
 */
import { readdir, readFile, stat } from "node:fs/promises";
import path from "node:path";
import { parse as parseYaml } from "yaml";
import { DiagnosticSink, formatDiagnostic, type Diagnostic } from "../formats/diagnostic";
import type { GroundTruthDialogue, ToolPolicy } from "../formats/dialogue";
import { readGroundTruthFile } from "../formats/read-dialogues";
import { readEvalDataset, type EvalItem } from "../formats/eval-dataset";
import { reportFiles, diskFiles, withoutDraftFields } from "../formats/eval-load";
import { readJson } from "../formats/read-json";
import { evaluateItem, type Evaluator } from "../scoring/evaluators/evaluator";
import { prepareEvaluator, type EvaluatorRecipe } from "../scoring/evaluators/from-config";
import { createRulesScoreJudge } from "../scoring/judges/rules-score-judge";
import { policyTableIndex } from "./policy";
import { methodIdOf, type EvaluatorConfig } from "../formats/eval-config";
import { benchmarkSpecSchema, formatZodIssues, type BenchmarkSpec, type CapabilitySpec } from "./spec";
import { vakraDefaults } from "./vakra-defaults";

/** A capability scored by the waterfall: VAKRA-style dialogues. */
export interface DialogueCapability {
  kind: "dialogues";
  spec: CapabilitySpec;
  /** Ground truth per domain, in file order. */
  domains: Map<string, GroundTruthDialogue[]>;
  byUuid: Map<string, GroundTruthDialogue>;
}

/** A capability scored by an evaluator (qa, trajectory, report): NVIDIA-style dataset items. */
export interface DatasetCapability {
  kind: "dataset";
  spec: CapabilitySpec;
  /** The items this capability scores (routed to its evaluator), per domain, in file order. */
  domains: Map<string, DatasetItem[]>;
  byUuid: Map<string, DatasetItem>;
  /** Every item per domain, with conversation turns routed elsewhere: they give later turns their history. */
  entries: Map<string, DatasetItem[]>;
  /** Builds the capability's evaluator around the run's judge. */
  evaluator: EvaluatorRecipe;
}

export type CapabilityData = DialogueCapability | DatasetCapability;

/** A dataset entry (or one turn of a conversation) with its reference report read. */
export interface DatasetItem extends Omit<EvalItem, "history" | "output"> {
  /** The item's id, named like a dialogue's uuid so every capability's items key alike. */
  uuid: string;
  domain: string;
}

export interface Benchmark {
  root: string;
  spec: BenchmarkSpec;
  capabilities: CapabilityData[];
  policyTable: Map<string, ToolPolicy>;
  /** Non-fatal findings in the ground truth. */
  warnings: Diagnostic[];
}

/** The capability as dialogues; throws for an evaluator capability (a caller's mistake). */
export function dialogueCapability(cap: CapabilityData): DialogueCapability {
  if (cap.kind !== "dialogues") throw new Error(`capability ${cap.spec.id} is scored by ${cap.spec.scorer}, not by the waterfall`);
  return cap;
}

/** A ground-truth dialogue by capability id and uuid; undefined for evaluator capabilities. */
export function findDialogue(benchmark: Benchmark, capability: string, uuid: string): GroundTruthDialogue | undefined {
  const cap = benchmark.capabilities.find((c) => c.spec.id === capability);
  return cap?.kind === "dialogues" ? cap.byUuid.get(uuid) : undefined;
}

export class BenchmarkError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid benchmark:\n  ${problems.slice(0, 20).join("\n  ")}${problems.length > 20 ? `\n  … and ${problems.length - 20} more` : ""}`);
    this.name = "BenchmarkError";
  }
}

export function parseBenchmarkSpec(text: string, file = "benchmark.yaml"): BenchmarkSpec {
  let raw: unknown;
  try {
    raw = parseYaml(text);
  } catch (err) {
    throw new BenchmarkError([`${file}: invalid YAML: ${err instanceof Error ? err.message : String(err)}`]);
  }
  const parsed = benchmarkSpecSchema.safeParse(raw ?? {});
  if (!parsed.success) throw new BenchmarkError(formatZodIssues(parsed.error).map((m) => `${file}: ${m}`));
  return parsed.data;
}

export async function loadBenchmark(root: string): Promise<Benchmark> {
  const info = await stat(root).catch(() => undefined);
  if (!info?.isDirectory()) throw new BenchmarkError([`${root}: benchmark folder not found`]);

  const yamlPath = path.join(root, "benchmark.yaml");
  const yamlText = await readFile(yamlPath, "utf8").catch((e: NodeJS.ErrnoException) => {
    if (e.code === "ENOENT") return undefined;
    throw e;
  });
  const spec = yamlText === undefined ? benchmarkSpecSchema.parse(vakraDefaults) : parseBenchmarkSpec(yamlText);

  const gtRoot = path.join(root, "groundtruth");
  const problems: string[] = [];
  const warnings: Diagnostic[] = [];
  const capabilities: CapabilityData[] = [];
  const present = new Set(await readdir(gtRoot).catch(() => [] as string[]));
  if (present.size === 0) throw new BenchmarkError([`${gtRoot}: no ground truth (expected groundtruth/<capability_dir>/<domain>.json)`]);

  for (const [index, cap] of spec.capabilities.entries()) {
    if (!present.has(cap.directory)) {
      problems.push(`groundtruth/${cap.directory}: folder missing for capability "${cap.id}"`);
      continue;
    }
    const dir = path.join(gtRoot, cap.directory);
    const files = (await readdir(dir)).filter((f) => f.endsWith(".json")).sort();
    const read = async (f: string): ReturnType<ReadGroundTruth> => {
      const rel = `groundtruth/${cap.directory}/${f}`;
      const json = readJson(await readFile(path.join(dir, f)));
      if (!json.ok) {
        problems.push(`${rel}: ${json.message}`);
        return undefined;
      }
      return { domain: f.slice(0, -".json".length), sink: new DiagnosticSink(rel), value: json.value };
    };
    const collect = (sink: DiagnosticSink) => {
      for (const d of sink.items) (d.severity === "error" ? problems.push(formatDiagnostic(d)) : warnings.push(d));
    };

    if (cap.scorer !== "waterfall") {
      const data = await loadDatasetCapability(root, index, cap, files, read, collect, problems);
      if (data) capabilities.push(data);
      continue;
    }
    const data: DialogueCapability = { kind: "dialogues", spec: cap, domains: new Map(), byUuid: new Map() };
    capabilities.push(data);
    for (const f of files) {
      const file = await read(f);
      if (!file) continue;
      const { domain, sink } = file;
      const dialogues = readGroundTruthFile(file.value, sink, { fileDomain: domain });
      for (const d of dialogues) {
        const prior = data.byUuid.get(d.uuid);
        if (prior) sink.error("duplicate_uuid", `uuid appears twice in capability ${cap.id} (also in ${prior.domain}.json)`, { uuid: d.uuid });
        else data.byUuid.set(d.uuid, d);
      }
      collect(sink);
      data.domains.set(domain, dialogues);
    }
  }
  for (const dir of present) {
    if (!spec.capabilities.some((c) => c.directory === dir)) warnings.push({ severity: "warning", code: "unknown_capability_dir", file: `groundtruth/${dir}`, message: "folder is not a capability of this benchmark; ignored" });
  }
  if (problems.length) throw new BenchmarkError(problems);
  return { root, spec, capabilities, policyTable: policyTableIndex(spec.policyTable), warnings };
}

type ReadGroundTruth = (f: string) => Promise<{ domain: string; sink: DiagnosticSink; value: unknown } | undefined>;

/**
 * An evaluator capability: its evaluator prepared from `evaluator` (files relative to the
 * benchmark folder) and its dataset files read, each item checked for what its evaluator
 * needs (a reference answer, a reference report that loads, a reference trajectory or tool
 * schemas), so scoring never meets a benchmark fault.
 */
async function loadDatasetCapability(
  root: string,
  index: number,
  cap: CapabilitySpec,
  files: string[],
  read: ReadGroundTruth,
  collect: (sink: DiagnosticSink) => void,
  problems: string[],
): Promise<DatasetCapability | undefined> {
  const config = cap.evaluator!;
  const prepared = await prepareEvaluator(cap.id, config, path.join(root, "benchmark.yaml"), { readText: (f) => readFile(f, "utf8"), displayName: (f) => path.relative(root, f) }, `benchmark.yaml: capabilities[${index}].evaluator`);
  if (!prepared.ok) {
    problems.push(...prepared.errors);
    return undefined;
  }
  const methodId = methodIdOf(config);
  const data: DatasetCapability = { kind: "dataset", spec: cap, domains: new Map(), byUuid: new Map(), entries: new Map(), evaluator: prepared.make };
  const references = reportFiles(diskFiles, (f) => path.relative(root, f));
  const gtDir = path.join(root, "groundtruth", cap.directory);
  // A reference report must score against the metrics (sections that are objects, patterns
  // that compile, fields the tree lists): scored against itself, offline, it shows any fault.
  const selfCheck = cap.scorer === "report" ? prepared.make(createRulesScoreJudge()) : undefined;
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
      const needsReport = routed && cap.scorer === "report";
      const referenceReport = needsReport ? await references.reference(d, gtDir) : null;
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
      if (prior) sink.error("duplicate_id", `id appears twice in capability ${cap.id} (also in ${prior.domain}.json)`, where);
      else data.byUuid.set(d.id, item);
      scored.push(item);
    }
    if (unrouted > 0) sink.warn("unrouted_items", `${unrouted} item(s) are not routed to ${methodId} (their evaluation_method lacks it); left out of this capability`);
    collect(sink);
    data.entries.set(domain, entries);
    data.domains.set(domain, scored);
  }
  if (data.byUuid.size === 0 && files.length > 0) problems.push(`groundtruth/${cap.directory}: no item is routed to ${methodId} (expected evaluation_method to include "${methodId}")`);
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
