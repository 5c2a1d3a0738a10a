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
import { readJson } from "../formats/read-json";
import { policyTableIndex } from "./policy";
import { benchmarkSpecSchema, formatZodIssues, type BenchmarkSpec, type CapabilitySpec } from "./spec";
import { vakraDefaults } from "./vakra-defaults";

export interface CapabilityData {
  spec: CapabilitySpec;
  /** Ground truth per domain, in file order. */
  domains: Map<string, GroundTruthDialogue[]>;
  byUuid: Map<string, GroundTruthDialogue>;
}

export interface Benchmark {
  root: string;
  spec: BenchmarkSpec;
  capabilities: CapabilityData[];
  policyTable: Map<string, ToolPolicy>;
  /** Non-fatal findings in the ground truth. */
  warnings: Diagnostic[];
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

  for (const cap of spec.capabilities) {
    const data: CapabilityData = { spec: cap, domains: new Map(), byUuid: new Map() };
    capabilities.push(data);
    if (!present.has(cap.directory)) {
      problems.push(`groundtruth/${cap.directory}: folder missing for capability "${cap.id}"`);
      continue;
    }
    const files = (await readdir(path.join(gtRoot, cap.directory))).filter((f) => f.endsWith(".json")).sort();
    for (const f of files) {
      const rel = `groundtruth/${cap.directory}/${f}`;
      const domain = f.slice(0, -".json".length);
      const sink = new DiagnosticSink(rel);
      const json = readJson(await readFile(path.join(gtRoot, cap.directory, f)));
      if (!json.ok) {
        problems.push(`${rel}: ${json.message}`);
        continue;
      }
      const dialogues = readGroundTruthFile(json.value, sink, { fileDomain: domain });
      for (const d of dialogues) {
        const prior = data.byUuid.get(d.uuid);
        if (prior) sink.error("duplicate_uuid", `uuid appears twice in capability ${cap.id} (also in ${prior.domain}.json)`, { uuid: d.uuid });
        else data.byUuid.set(d.uuid, d);
      }
      for (const d of sink.items) (d.severity === "error" ? problems.push(formatDiagnostic(d)) : warnings.push(d));
      data.domains.set(domain, dialogues);
    }
  }
  for (const dir of present) {
    if (!spec.capabilities.some((c) => c.directory === dir)) warnings.push({ severity: "warning", code: "unknown_capability_dir", file: `groundtruth/${dir}`, message: "folder is not a capability of this benchmark; ignored" });
  }
  if (problems.length) throw new BenchmarkError(problems);
  return { root, spec, capabilities, policyTable: policyTableIndex(spec.policyTable), warnings };
}
