/**
 * Validates a submission bundle against a benchmark's ground truth and returns the report
 * plus the normalised predictions, so scoring never parses a file twice.
 */
import { parse as parseYaml } from "yaml";
import type { Benchmark } from "../benchmark/load-benchmark";
import { DiagnosticSink, type Diagnostic } from "../formats/diagnostic";
import type { PredictedDialogue } from "../formats/dialogue";
import type { AgentOutput } from "../formats/eval-dataset";
import { scorerOf } from "../scoring/capability-scorers/registry";
import { MAX_JSON_DEPTH, readJson, tooDeepAt } from "../formats/read-json";
import { openBundle, type BundleFile, type BundleSource, type ZipLimits } from "./bundle-source";
import { mapLayout } from "./bundle-layout";
import { bundleFiles } from "./dataset-outputs";
import { summariseDiagnostics, type CapabilityCoverage, type ValidationReport } from "./report";

export interface Submission {
  sha256: string;
  /** Predicted dialogues per submitted waterfall capability id, keyed by uuid. */
  capabilities: Map<string, Map<string, PredictedDialogue>>;
  /** Agent outputs per submitted evaluator capability id, keyed by item id. */
  outputs: Map<string, Map<string, AgentOutput>>;
  /** Where each prediction was read (`file record i`), keyed `capability\0uuid`: for duplicate errors. */
  origins: Map<string, string>;
  metadata: Record<string, unknown> | null;
}

/** The capability ids a submission covers, of either kind. */
export function submittedCapabilities(s: Pick<Submission, "capabilities" | "outputs">): Set<string> {
  return new Set([...s.capabilities.keys(), ...s.outputs.keys()]);
}

const emptySubmission = (sha256: string): Submission => ({ sha256, capabilities: new Map(), outputs: new Map(), origins: new Map(), metadata: null });

export interface ValidationOutcome {
  report: ValidationReport;
  /** Present whenever the bundle could be opened; only score it when `report.valid`. */
  submission?: Submission;
}

export interface ValidateOptions {
  zipLimits?: Partial<ZipLimits>;
  /** Errors listed in the JSON report (the count is always exact). */
  errorLimit?: number;
}

export async function validateBundle(location: string, benchmark: Benchmark, opts: ValidateOptions = {}): Promise<ValidationOutcome> {
  const opened = await openBundle(location, opts.zipLimits);
  if (!opened.ok) {
    return { report: buildReport(benchmark, { location, kind: "unknown", sha256: null, files: 0 }, opened.problems, emptySubmission(""), 0, null, opts) };
  }
  try {
    return await validateSource(opened.source, benchmark, opts);
  } finally {
    await opened.source.close();
  }
}

export async function validateSource(source: BundleSource, benchmark: Benchmark, opts: ValidateOptions = {}): Promise<ValidationOutcome> {
  const layout = mapLayout(
    source.files.map((f) => f.path),
    benchmark.capabilities.map((c) => c.spec),
  );
  const diagnostics: Diagnostic[] = [...layout.diagnostics];
  const byPath = new Map(source.files.map((f) => [f.path, f]));
  const submission = emptySubmission(source.sha256);
  const named = new Set<string>();
  const files = bundleFiles(byPath, named);
  let records = 0;

  for (const ref of layout.domainFiles) {
    const cap = benchmark.capabilities.find((c) => c.spec.id === ref.capability.id)!;
    const sink = new DiagnosticSink(ref.path);
    const bytes = await readEntry(byPath.get(ref.path)!, sink);
    if (!bytes) {
      diagnostics.push(...sink.items);
      continue;
    }
    const json = readJson(bytes);
    if (!json.ok) {
      sink.error(json.code, json.message);
      diagnostics.push(...sink.items);
      continue;
    }
    if (json.hadBom) sink.warn("utf8_bom", "file starts with a UTF-8 byte order mark; ignored");
    // Scoring recurses into arguments and answers (canonical JSON, prompts, storage): refuse what would overflow it.
    const deep = tooDeepAt(json.value, MAX_JSON_DEPTH);
    if (deep) {
      sink.error("too_deep", `value nested more than ${MAX_JSON_DEPTH} levels deep; expected plain records, tool calls and answers`, { path: deep });
      diagnostics.push(...sink.items);
      continue;
    }
    const gtDomain = cap.domains.get(ref.domain);
    if (!gtDomain) {
      sink.error("unknown_domain", `domain "${ref.domain}" has no ground truth in ${cap.spec.directory}; expected one of ${[...cap.domains.keys()].slice(0, 10).join(", ")}${cap.domains.size > 10 ? ", …" : ""}`);
      diagnostics.push(...sink.items);
      continue;
    }
    records += await scorerOf(cap.spec.scorer).readOutputs({ cap, domain: ref.domain, file: ref.path, value: json.value, sink, source: files, submission });
    diagnostics.push(...sink.items);
  }

  for (const file of layout.attachments) {
    if (!named.has(file)) diagnostics.push({ severity: "warning", code: "ignored_file", file, message: "not an outputs file (<capability_dir>/<domain>.json) and no output's report_path names it; ignored" });
  }

  if (layout.metadataPath) {
    const sink = new DiagnosticSink(layout.metadataPath);
    const bytes = await readEntry(byPath.get(layout.metadataPath)!, sink);
    diagnostics.push(...sink.items);
    if (bytes) submission.metadata = readMetadata(bytes, layout.metadataPath, diagnostics);
  }
  if (layout.domainFiles.length === 0) {
    diagnostics.push({
      severity: "error",
      code: "empty_bundle",
      file: source.location,
      message: `no prediction files found; expected <capability_dir>/<domain>.json with capability_dir one of ${benchmark.capabilities.map((c) => c.spec.directory).join(", ")}`,
    });
  }
  const report = buildReport(
    benchmark,
    { location: source.location, kind: source.kind, sha256: source.sha256, files: source.files.length },
    diagnostics,
    submission,
    records,
    submission.metadata,
    opts,
  );
  return { report, submission };
}

/** Reads a file's bytes; a corrupt ZIP entry (e.g. sizes that lie) becomes an error, not a crash. */
async function readEntry(file: BundleFile, sink: DiagnosticSink): Promise<Buffer | undefined> {
  try {
    return await file.read();
  } catch (err) {
    sink.error("unreadable_file", `cannot read this file from the bundle: ${err instanceof Error ? err.message : String(err)}`);
    return undefined;
  }
}

function readMetadata(bytes: Buffer, file: string, diagnostics: Diagnostic[]): Record<string, unknown> | null {
  try {
    const value: unknown = file.endsWith(".json") ? JSON.parse(bytes.toString("utf8")) : parseYaml(bytes.toString("utf8"));
    if (value && typeof value === "object" && !Array.isArray(value)) return value as Record<string, unknown>;
    diagnostics.push({ severity: "warning", code: "bad_metadata", file, message: "expected an object of submission metadata; ignored" });
  } catch (err) {
    diagnostics.push({ severity: "warning", code: "bad_metadata", file, message: `unreadable metadata (${err instanceof Error ? err.message : String(err)}); ignored` });
  }
  return null;
}

function buildReport(
  benchmark: Benchmark,
  bundle: ValidationReport["bundle"],
  diagnostics: Diagnostic[],
  predicted: Submission,
  records: number,
  metadata: Record<string, unknown> | null,
  opts: ValidateOptions,
): ValidationReport {
  const s = summariseDiagnostics(diagnostics, opts.errorLimit ?? 1000);
  const submitted = submittedCapabilities(predicted);
  const coverage: Record<string, CapabilityCoverage> = {};
  for (const cap of benchmark.capabilities) {
    const ids = scorerOf(cap.spec.scorer).predicted(predicted, cap.spec.id);
    const c: CapabilityCoverage = { directory: cap.spec.directory, label: cap.spec.label, submitted: ids !== undefined, expected: 0, predicted: 0, missing: 0, domains: {} };
    for (const [domain, gts] of cap.domains) {
      const missingUuids = gts.filter((g) => !ids?.has(g.uuid)).map((g) => g.uuid);
      c.domains[domain] = { expected: gts.length, predicted: gts.length - missingUuids.length, missing: missingUuids.length, missingUuids };
      c.expected += gts.length;
      c.missing += missingUuids.length;
    }
    c.predicted = c.expected - c.missing;
    coverage[cap.spec.id] = c;
  }
  return {
    schema: "agentboard.validation/1",
    valid: s.errorCount === 0,
    bundle,
    benchmark: { slug: benchmark.spec.slug, version: benchmark.spec.version },
    summary: {
      errors: s.errorCount,
      warnings: s.warningCount,
      records,
      dialogues: [...predicted.capabilities.values(), ...predicted.outputs.values()].reduce((n, m) => n + m.size, 0),
      submittedCapabilities: benchmark.capabilities.map((c) => c.spec.id).filter((id) => submitted.has(id)),
    },
    errors: s.errors,
    errorsOmitted: s.errorsOmitted,
    warnings: s.warnings,
    warningCounts: s.warningCounts,
    coverage,
    metadata,
  };
}
