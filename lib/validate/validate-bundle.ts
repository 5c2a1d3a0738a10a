/**
 * Validates a submission bundle against a benchmark's ground truth and returns the report
 * plus the normalised predictions, so scoring never parses a file twice.
 */
import { parse as parseYaml } from "yaml";
import type { Benchmark } from "../benchmark/load-benchmark";
import { DiagnosticSink, DiagnosticStore, preview } from "../formats/diagnostic";
import type { PredictedDialogue } from "../formats/dialogue";
import type { AgentOutput } from "../formats/eval-dataset";
import { scorerOf } from "../scoring/capability-scorers/registry";
import { readJson, scanJson, tooDeepAt } from "../formats/read-json";
import { openBundle, type BundleFile, type BundleSource, type ZipLimits } from "./bundle-source";
import { mapLayout } from "./bundle-layout";
import { resolveLimits, type ValidationLimits } from "./limits";
import { checkMetadata } from "./metadata-checks";
import { readUsage } from "../formats/usage";
import { checkStringLimits } from "./string-limits";
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
  /** Overrides of the bundle's limits (see limits.ts for each default). */
  limits?: Partial<ValidationLimits>;
  /** The ZIP limits, by their older name; `limits` wins where both are given. */
  zipLimits?: Partial<ZipLimits>;
  /** Errors listed in the JSON report (the count is always exact). */
  errorLimit?: number;
}

export async function validateBundle(location: string, benchmark: Benchmark, opts: ValidateOptions = {}): Promise<ValidationOutcome> {
  const limits = resolveLimits(opts.zipLimits, opts.limits);
  const opened = await openBundle(location, limits);
  if (!opened.ok) {
    const store = newStore(limits);
    store.addAll(opened.problems);
    return { report: buildReport(benchmark, { location, kind: "unknown", sha256: null, files: 0 }, store, emptySubmission(""), 0, null, opts) };
  }
  try {
    return await validateSource(opened.source, benchmark, opts);
  } finally {
    await opened.source.close();
  }
}

const newStore = (limits: ValidationLimits) => new DiagnosticStore({ perCode: limits.maxDiagnosticsPerCode, total: limits.maxDiagnostics });

export async function validateSource(source: BundleSource, benchmark: Benchmark, opts: ValidateOptions = {}): Promise<ValidationOutcome> {
  const limits = resolveLimits(opts.zipLimits, opts.limits);
  const layout = mapLayout(
    source.files.map((f) => f.path),
    benchmark.capabilities.map((c) => c.spec),
  );
  const store = newStore(limits);
  store.addAll(layout.diagnostics);
  const byPath = new Map(source.files.map((f) => [f.path, f]));
  const submission = emptySubmission(source.sha256);
  const named = new Set<string>();
  const files = bundleFiles(byPath, named, limits);
  let records = 0;

  for (const ref of layout.domainFiles) {
    const cap = benchmark.capabilities.find((c) => c.spec.id === ref.capability.id)!;
    const sink = new DiagnosticSink(ref.path, store);
    const value = await readOutputsJson(byPath.get(ref.path)!, sink, limits, scorerOf(cap.spec.scorer).readsPythonValues);
    if (value === undefined) continue;
    const gtDomain = cap.domains.get(ref.domain);
    if (!gtDomain) {
      sink.error("unknown_domain", `domain ${preview(ref.domain)} has no ground truth in ${cap.spec.directory}; expected one of ${[...cap.domains.keys()].slice(0, 10).join(", ")}${cap.domains.size > 10 ? ", …" : ""}`);
      continue;
    }
    // Oversize strings would reach prompts, storage and pages: refuse the file before any reader keeps one.
    if (checkStringLimits(value, sink, limits) > 0) continue;
    records += await scorerOf(cap.spec.scorer).readOutputs({ cap, domain: ref.domain, file: ref.path, value, sink, source: files, submission });
  }

  for (const file of layout.attachments) {
    if (!named.has(file)) store.add({ severity: "warning", code: "ignored_file", file, message: "not an outputs file (<capability_dir>/<domain>.json) and no output's report_path names it; ignored" });
  }

  if (layout.metadataPath) {
    const sink = new DiagnosticSink(layout.metadataPath, store);
    submission.metadata = await readMetadata(byPath.get(layout.metadataPath)!, sink, limits);
    const usage = readUsage(submission.metadata?.usage, "$.usage", (w) => sink.warn("bad_usage", w.message, { path: w.path }));
    if (usage && [...submission.capabilities.values()].some((ds) => [...ds.values()].some((d) => d.usage))) {
      sink.warn("usage_ignored", "records carry their own usage, which wins: the metadata's usage is ignored", { path: "$.usage" });
    }
  }
  if (layout.domainFiles.length === 0) {
    store.add({
      severity: "error",
      code: "empty_bundle",
      file: source.location,
      message: `no prediction files found; expected <capability_dir>/<domain>.json with capability_dir one of ${benchmark.capabilities.map((c) => c.spec.directory).join(", ")}`,
    });
  }
  const report = buildReport(
    benchmark,
    { location: source.location, kind: source.kind, sha256: source.sha256, files: source.files.length },
    store,
    submission,
    records,
    submission.metadata,
    opts,
  );
  return { report, submission };
}

/** Reads a file's bytes; a corrupt ZIP entry (e.g. sizes that lie) becomes an error, not a crash. */
async function readEntry(file: BundleFile, sink: DiagnosticSink, maxBytes: number, limitName: string): Promise<Buffer | undefined> {
  // The bundle refuses larger files when opened; this guards a caller that skipped that.
  if (file.size > maxBytes) {
    sink.error("file_too_large", `file is ${file.size} bytes; at most ${maxBytes} are allowed (limits.${limitName})`);
    return undefined;
  }
  try {
    return await file.read();
  } catch (err) {
    sink.error("unreadable_file", `cannot read this file from the bundle: ${preview(err instanceof Error ? err.message : String(err), 300)}`);
    return undefined;
  }
}

/**
 * An outputs file's parsed JSON, or undefined with the reason in the sink. A byte scan bounds
 * depth, values and records before JSON.parse builds anything.
 */
async function readOutputsJson(file: BundleFile, sink: DiagnosticSink, limits: ValidationLimits, pythonValues: boolean): Promise<unknown> {
  const bytes = await readEntry(file, sink, limits.maxFileBytes, "maxFileBytes");
  if (!bytes) return undefined;
  return parseBounded(bytes, sink, limits, limits.maxRecordsPerFile, pythonValues);
}

function parseBounded(bytes: Buffer, sink: DiagnosticSink, limits: ValidationLimits, maxRecords: number, pythonValues: boolean): unknown {
  const scan = scanJson(bytes, { maxDepth: limits.maxJsonDepth, maxValues: limits.maxValuesPerFile, maxRecords });
  if (!scan.ok) {
    const limitName = { too_deep: "maxJsonDepth", too_many_values: "maxValuesPerFile", too_many_records: "maxRecordsPerFile" }[scan.code];
    const message = scan.code === "too_deep" ? `value nested more than ${limits.maxJsonDepth} levels deep; expected plain records, tool calls and answers` : `${scan.message} (limits.${limitName}); the file is not read`;
    sink.error(scan.code, message, { path: scan.path, ...(scan.record !== undefined ? { record: scan.record } : {}) });
    return undefined;
  }
  const json = readJson(bytes, { pythonValues });
  if (!json.ok) {
    sink.error(json.code, json.message);
    return undefined;
  }
  if (json.hadBom) sink.warn("utf8_bom", "file starts with a UTF-8 byte order mark; ignored");
  // Scoring recurses into arguments and answers (canonical JSON, prompts, storage): refuse what would overflow it.
  const deep = tooDeepAt(json.value, limits.maxJsonDepth);
  if (deep) {
    sink.error("too_deep", `value nested more than ${limits.maxJsonDepth} levels deep; expected plain records, tool calls and answers`, { path: deep });
    return undefined;
  }
  return json.value;
}

/** The submission's metadata, or null (with the reason in the sink) when it is refused or unreadable. */
async function readMetadata(file: BundleFile, sink: DiagnosticSink, limits: ValidationLimits): Promise<Record<string, unknown> | null> {
  const bytes = await readEntry(file, sink, limits.maxMetadataBytes, "maxMetadataBytes");
  if (!bytes) return null;
  let value: unknown;
  if (file.path.endsWith(".json")) {
    const scan = scanJson(bytes, { maxDepth: limits.maxJsonDepth, maxValues: limits.maxValuesPerFile, maxRecords: limits.maxValuesPerFile });
    if (!scan.ok) {
      sink.error(scan.code, `${scan.message}; the metadata is not read`, { path: scan.path });
      return null;
    }
    const json = readJson(bytes);
    if (!json.ok) {
      sink.warn("bad_metadata", `unreadable metadata (${json.message}); ignored`);
      return null;
    }
    value = json.value;
  } else {
    try {
      value = parseYaml(bytes.toString("utf8"), { maxAliasCount: 100 });
    } catch (err) {
      // The YAML parser recurses: nesting past the stack surfaces as a RangeError or a parse error saying so.
      if (err instanceof RangeError || (err instanceof Error && /call stack/i.test(err.message))) {
        sink.error("too_deep", `metadata nests too deeply to read; expected at most ${limits.maxJsonDepth} levels (limits.maxJsonDepth)`);
        return null;
      }
      sink.warn("bad_metadata", `unreadable metadata (${preview(err instanceof Error ? err.message : String(err), 300)}); ignored`);
      return null;
    }
  }
  if (!value || typeof value !== "object" || Array.isArray(value)) {
    sink.warn("bad_metadata", "expected an object of submission metadata; ignored");
    return null;
  }
  const deep = tooDeepAt(value, limits.maxJsonDepth);
  if (deep) {
    sink.error("too_deep", `metadata nested more than ${limits.maxJsonDepth} levels deep (limits.maxJsonDepth); expected a flat object of strings`, { path: deep });
    return null;
  }
  if (checkMetadata(value as Record<string, unknown>, sink, limits) > 0) return null;
  return value as Record<string, unknown>;
}

function buildReport(
  benchmark: Benchmark,
  bundle: ValidationReport["bundle"],
  store: DiagnosticStore,
  predicted: Submission,
  records: number,
  metadata: Record<string, unknown> | null,
  opts: ValidateOptions,
): ValidationReport {
  const s = summariseDiagnostics(store, opts.errorLimit ?? 1000);
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
    errorCounts: s.errorCounts,
    warnings: s.warnings,
    warningsOmitted: s.warningsOmitted,
    warningCounts: s.warningCounts,
    coverage,
    metadata,
  };
}
