/**
 * A submission's outputs for an evaluator capability: `<capability_dir>/<domain>.json` in the
 * outputs-file shape (keyed by item id, or `{id, ...}` records), with reports inline or in
 * files of the bundle named relative to the outputs file. Every id must be an item of that
 * domain; a report that cannot be read is an error naming the id and its JSON path, so the
 * submitter fixes it before scoring rather than losing the item.
 */
import path from "node:path";
import type { DatasetCapability } from "../benchmark/load-benchmark";
import { childPath, type DiagnosticSink } from "../formats/diagnostic";
import type { AgentOutput, EvalKind } from "../formats/eval-dataset";
import { reportFiles, type FileSource } from "../formats/eval-load";
import { readOutputsFile } from "../formats/eval-outputs";
import { MAX_JSON_DEPTH, scanJson, tooDeepAt } from "../formats/read-json";
import { outputGap } from "../evaluators/evaluator";
import type { BundleFile } from "./bundle-source";
import { defaultValidationLimits, type ValidationLimits } from "./limits";

/** An error whose code is the reason shown in the report's diagnostic. */
const refused = (reason: string) => Object.assign(new Error(reason), { code: reason });

/** The bundle's files as a source for report paths; a path may not leave the bundle. `named` collects the files outputs name. */
export function bundleFiles(byPath: ReadonlyMap<string, BundleFile>, named: Set<string> = new Set(), limits: ValidationLimits = defaultValidationLimits): FileSource {
  return {
    resolve(baseDir, rel) {
      if (rel.startsWith("/") || /^[A-Za-z]:[\\/]/.test(rel)) throw new Error("expected a path relative to the outputs file");
      const joined = path.posix.normalize(path.posix.join(baseDir, rel.replace(/\\/g, "/")));
      if (joined === ".." || joined.startsWith("../")) throw new Error("the path leads outside the bundle");
      return joined;
    },
    async read(file) {
      named.add(file);
      const f = byPath.get(file);
      if (!f) throw Object.assign(new Error("no such file in the bundle"), { code: "not in the bundle" });
      if (f.size > limits.maxFileBytes) throw refused(`${f.size} bytes; at most ${limits.maxFileBytes} are allowed (limits.maxFileBytes)`);
      const bytes = await f.read();
      // A JSON report is parsed next: bound what parsing would build first.
      if (/\.json$/i.test(file)) {
        const scan = scanJson(bytes, { maxDepth: limits.maxJsonDepth, maxValues: limits.maxValuesPerFile, maxRecords: limits.maxValuesPerFile });
        if (!scan.ok) throw refused(`${scan.message} at ${scan.path}`);
      }
      return bytes;
    },
  };
}

export interface DatasetOutputsInput {
  cap: DatasetCapability;
  /** The capability's evaluator: what an output must hold to be scored. */
  kind: EvalKind;
  domain: string;
  /** Path of the outputs file inside the bundle. */
  file: string;
  value: unknown;
  sink: DiagnosticSink;
  source: FileSource;
  /** Outputs already read for this capability (other domain files), added to in place. */
  bucket: Map<string, AgentOutput>;
}

/** Reads one outputs file into `bucket`; returns the number of records read. */
export async function readDatasetOutputs({ cap, kind, domain, file, value, sink, source, bucket }: DatasetOutputsInput): Promise<number> {
  const drafts = readOutputsFile(value, sink);
  const known = new Map<string, string>();
  for (const [d, items] of cap.entries) for (const it of items) known.set(it.uuid, d);
  const files = reportFiles(source);
  const baseDir = path.posix.dirname(file);
  for (const [id, draft] of drafts) {
    const where = { uuid: id, path: draft.path };
    const home = known.get(id);
    if (home === undefined) {
      sink.error("unknown_id", `id is not an item of ${cap.spec.directory}`, where);
      continue;
    }
    if (home !== domain) {
      sink.error("wrong_domain_file", `item belongs to domain "${home}"; expected it in ${home}.json`, where);
      continue;
    }
    if (bucket.has(id)) {
      sink.error("duplicate_id", "outputs for this id appear twice in the capability", where);
      continue;
    }
    const output = await files.output(draft, baseDir);
    const reportDeep = output.report?.ok ? tooDeepAt(output.report.value, MAX_JSON_DEPTH, output.report.source) : null;
    if (reportDeep) {
      sink.error("too_deep", `the report nests more than ${MAX_JSON_DEPTH} levels deep (at ${reportDeep})`, { ...where, path: childPath(draft.path, "report_path") });
      continue;
    }
    if (output.report && !output.report.ok) {
      sink.error("bad_report", output.report.error, { ...where, path: childPath(draft.path, draft.report?.kind === "file" ? "report_path" : "report") });
      continue;
    }
    bucket.set(id, output);
    // Turns routed elsewhere are history only: nothing scores them here.
    if (cap.byUuid.has(id)) warnUnscorable(kind, output, sink, where);
  }
  return drafts.size;
}

/** What the capability's evaluator will need and the output lacks: the item will score 0. */
function warnUnscorable(kind: EvalKind, o: AgentOutput, sink: DiagnosticSink, where: { uuid: string; path: string }): void {
  const lack = outputGap(kind, o);
  if (lack) sink.warn("unscorable_output", `the output has ${lack}; the item scores 0`, where);
}
