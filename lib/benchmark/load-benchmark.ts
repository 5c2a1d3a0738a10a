/**
 * Loads a benchmark folder: optional `benchmark.yaml` plus
 * `groundtruth/<capability_dir>/<domain>.json`, or VAKRA's own layouts of the same files
 * (ground-truth-layout.ts). Broken ground truth is a benchmark error,
 * reported with the same precise diagnostics as submissions.
 */
import { readFileSync } from "node:fs";
import { readFile, stat } from "node:fs/promises";
import path from "node:path";
import { parse as parseYaml } from "yaml";
import { DiagnosticSink, formatDiagnostic, type Diagnostic } from "../formats/diagnostic";
import type { GroundTruthDialogue, ToolPolicy } from "../formats/dialogue";
import { readJson } from "../formats/read-json";
import { StringPool } from "../formats/string-pool";
import { loaderOf } from "./capability-loaders/registry";
import { dialogueCapability, type CapabilityData } from "./capability-data";
import { ContentHasher, type BenchmarkContent } from "./content-hash";
import { layoutDefaults, resolveLayout } from "./ground-truth-layout";
import { policyTableIndex } from "./policy";
import { benchmarkSpecSchema, type BenchmarkSpec } from "./spec";
import { formatZodIssues } from "../formats/zod-issues";

export { dialogueCapability, datasetCapability, type CapabilityData, type DatasetCapability, type DatasetItem, type DialogueCapability } from "./capability-data";

export interface Benchmark {
  root: string;
  spec: BenchmarkSpec;
  capabilities: CapabilityData[];
  policyTable: Map<string, ToolPolicy>;
  /** Non-fatal findings in the ground truth. */
  warnings: Diagnostic[];
  /** What the files read and the spec hash to (content-hash.ts); a partial load (`select`) hashes only what it read. */
  content?: BenchmarkContent;
}

/** A ground-truth dialogue by capability id and uuid (replay asks only of waterfall capabilities). */
export function findDialogue(benchmark: Benchmark, capability: string, uuid: string): GroundTruthDialogue | undefined {
  const cap = benchmark.capabilities.find((c) => c.spec.id === capability);
  return cap ? dialogueCapability(cap).byUuid.get(uuid) : undefined;
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

/** A benchmark folder's spec: its benchmark.yaml (`yamlText`, undefined when absent), else VAKRA's defaults. */
export async function loadBenchmarkSpec(root: string): Promise<{ spec: BenchmarkSpec; yamlText: string | undefined }> {
  const info = await stat(root).catch(() => undefined);
  if (!info?.isDirectory()) throw new BenchmarkError([`${root}: benchmark folder not found`]);
  const yamlText = await readFile(path.join(root, "benchmark.yaml"), "utf8").catch((e: NodeJS.ErrnoException) => {
    if (e.code === "ENOENT") return undefined;
    throw e;
  });
  return { spec: yamlText === undefined ? benchmarkSpecSchema.parse(layoutDefaults(root)) : parseBenchmarkSpec(yamlText), yamlText };
}

export interface LoadOptions {
  /**
   * Load only these ground-truth files (`<domain>.json` of a capability folder); a capability
   * with none selected is left out. For a worker thread that scores one domain: checks that
   * need every file (a uuid repeated across files) are the full load's.
   */
  select?: (directory: string, file: string) => boolean;
  /** The folder's spec, when the caller has read it already (loadBenchmarkSpec). */
  spec?: BenchmarkSpec;
}

export async function loadBenchmark(root: string, opts: LoadOptions = {}): Promise<Benchmark> {
  const spec = opts.spec ?? (await loadBenchmarkSpec(root)).spec;

  const problems: string[] = [];
  const warnings: Diagnostic[] = [];
  const capabilities: CapabilityData[] = [];
  const hasher = new ContentHasher();
  const strings = new StringPool();
  const layout = resolveLayout(root);
  if (layout.problems.length) throw new BenchmarkError(layout.problems);
  const present = new Set(layout.folders.keys());
  if (present.size === 0) throw new BenchmarkError([`${root}: no ground truth (expected groundtruth/<capability_dir>/<domain>.json, or VAKRA's <capability_dir>/input/ and output/)`]);

  for (const [index, cap] of spec.capabilities.entries()) {
    if (!present.has(cap.directory)) {
      problems.push(`${layout.expected(cap.directory)}: folder missing for capability "${cap.id}"`);
      continue;
    }
    const folder = layout.folders.get(cap.directory)!;
    if (folder.problem) {
      problems.push(folder.problem);
      continue;
    }
    if (folder.note) warnings.push({ severity: "warning", code: "ground_truth_from_input", file: folder.where, message: folder.note });
    const files = [...folder.files.keys()].filter((f) => !opts.select || opts.select(cap.directory, f)).sort();
    if (opts.select && files.length === 0) continue;
    const read = async (f: string) => {
      const { rel, abs, key } = folder.files.get(f)!.groundTruth;
      // Read synchronously: one system call per file, where a promise costs several thread-pool trips.
      const bytes = readFileSync(abs);
      hasher.note(key, bytes);
      const json = readJson(bytes, { pythonValues: loaderOf(cap.scorer).readsPythonValues });
      if (!json.ok) {
        problems.push(`${rel}: ${json.message}`);
        return undefined;
      }
      return { domain: f.slice(0, -".json".length), sink: new DiagnosticSink(rel), value: json.value };
    };
    const readInput = async (f: string) => {
      const src = folder.files.get(f)?.input;
      if (!src) return undefined;
      const rel = src.rel;
      let bytes: Buffer | undefined;
      try {
        bytes = readFileSync(src.abs);
      } catch {
        bytes = undefined;
      }
      if (!bytes) return undefined;
      hasher.note(src.key, bytes);
      const json = readJson(bytes);
      const sink = new DiagnosticSink(rel);
      if (!json.ok) {
        sink.warn(json.code, `${json.message}; the input file is not read`);
        warnings.push(...sink.items);
        return undefined;
      }
      return { domain: f.slice(0, -".json".length), sink, value: json.value };
    };
    const collect = (sink: DiagnosticSink) => {
      for (const d of sink.items) (d.severity === "error" ? problems.push(formatDiagnostic(d)) : warnings.push(d));
    };
    const note = (file: string, bytes: Uint8Array | string) => hasher.note(path.relative(root, file), bytes);
    const data = await loaderOf(cap.scorer).load({ root, index, spec: cap, files, read, readInput, collect, note, problems, strings });
    if (data) capabilities.push(data);
  }
  for (const dir of present) {
    if (!spec.capabilities.some((c) => c.directory === dir)) warnings.push({ severity: "warning", code: "unknown_capability_dir", file: layout.folders.get(dir)!.where, message: "folder is not a capability of this benchmark; ignored" });
  }
  if (problems.length) throw new BenchmarkError(problems);
  return { root, spec, capabilities, policyTable: policyTableIndex(spec.policyTable), warnings, content: hasher.digest(spec) };
}
