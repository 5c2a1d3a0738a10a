/**
 * `validate <bundle>` with no benchmark: the checks that need no ground truth, which is what
 * VAKRA's `validate_output.py` checks. Each domain file is read as a benchmark's validation
 * reads it (the same bounded parse, string limits and tolerant reader, with the same errors and
 * warnings), uuids must be unique per capability, and wherever VAKRA's checker would still
 * reject what Agentboard reads (vakra-submission-schema.ts) a `vakra_rejects` warning says so.
 * The bundle is laid out as for a benchmark with VAKRA's four capability folders (names matched
 * by their `capability_N_` prefix, so the runner's timestamped folders are read too); a folder
 * that is itself one capability's output folder is read as a bundle of that capability.
 *
 * Severities follow Agentboard's reader, so the verdict is the one a benchmark's validation
 * gives minus its ground-truth checks (`BENCHMARK_ADDS` names them).
 */
import path from "node:path";
import { benchmarkSpecSchema, type CapabilitySpec } from "../benchmark/spec";
import { vakraDefaults } from "../benchmark/vakra-defaults";
import { DiagnosticSink, DiagnosticStore, type Diagnostic, type Where } from "../formats/diagnostic";
import { vakraSchemaFindings } from "../formats/vakra-submission-schema";
import { dialogueRecords } from "./outputs-readers/dialogue-records";
import { openBundle, type BundleFile } from "./bundle-source";
import { mapLayout, matchCapability } from "./bundle-layout";
import { resolveLimits, type ValidationLimits } from "./limits";
import { readOutputsJson } from "./outputs-file";
import { diagnosticLists, mdDiagnosticSections, md, summariseDiagnostics, type DiagnosticLists, type ValidationReport } from "./report";
import { checkStringLimits } from "./string-limits";
import { createWorkBudget } from "./work-budget";

/** What a benchmark's validation checks on top of these, in one line. */
export const BENCHMARK_ADDS =
  "A benchmark (--benchmark <dir>: an Agentboard benchmark or VAKRA's data folder) adds the ground-truth checks: every uuid known to its capability and filed under its domain, the scored (last) turn predicted, and coverage (missing predictions) per capability and domain.";

/** VAKRA's four capability folders: the only ones its checker looks for. */
const VAKRA_CAPABILITIES: CapabilitySpec[] = benchmarkSpecSchema.parse(vakraDefaults).capabilities;

/** VAKRA findings kept per file; past it they are only counted as records VAKRA rejects. */
const MAX_FINDINGS_PER_FILE = 1_000;

export interface CapabilityFiles {
  files: number;
  records: number;
  domains: string[];
}

export interface OutputsCheckReport extends DiagnosticLists {
  schema: "agentboard.validation-without-benchmark/1";
  valid: boolean;
  bundle: ValidationReport["bundle"];
  benchmark: null;
  summary: {
    errors: number;
    warnings: number;
    files: number;
    records: number;
    dialogues: number;
    trials: number;
    /** Records (or whole files) VAKRA's validate_output.py would reject. */
    vakraRejected: number;
  };
  /** Per capability folder (VAKRA's name): the files and records read. */
  capabilities: Record<string, CapabilityFiles>;
  benchmarkAdds: string;
  stopped?: string;
}

export interface CheckOptions {
  limits?: Partial<ValidationLimits>;
  errorLimit?: number;
}

export async function validateWithoutBenchmark(location: string, opts: CheckOptions = {}): Promise<OutputsCheckReport> {
  const limits = resolveLimits(opts.limits);
  const store = new DiagnosticStore({ perCode: limits.maxDiagnosticsPerCode, total: limits.maxDiagnostics });
  const opened = await openBundle(location, limits);
  if (!opened.ok) {
    store.addAll(opened.problems);
    return report(store, { location, kind: "unknown", sha256: null, files: 0 }, {}, { records: 0, dialogues: 0, trials: 0, vakraRejected: 0 }, opts);
  }
  const source = opened.source;
  try {
    // A capability's own output folder (`output/capability_2_dashboard_apis/`): read as a bundle of it.
    const own = matchCapability(path.basename(path.resolve(location)), VAKRA_CAPABILITIES);
    const prefix = source.kind === "folder" && own ? `${path.basename(path.resolve(location))}/` : "";
    const byPath = new Map<string, BundleFile>(source.files.map((f) => [prefix + f.path, f]));
    const layout = mapLayout([...byPath.keys()], VAKRA_CAPABILITIES, { maxTrials: limits.maxTrials, dirs: source.dirs.map((d) => prefix + d) });
    store.addAll(layout.diagnostics);
    const budget = createWorkBudget(limits, store, source.location, layout.domainFiles.length);
    const capabilities: Record<string, CapabilityFiles> = {};
    /** Where each uuid was first read, per trial and capability: a second is a duplicate. */
    const seen = new Map<string, string>();
    let dialogues = 0;
    let vakraRejected = 0;
    for (const [i, ref] of layout.domainFiles.entries()) {
      if (budget.stopBefore(i)) break;
      const dir = ref.capability.directory;
      const entry = (capabilities[dir] ??= { files: 0, records: 0, domains: [] });
      entry.files++;
      if (!entry.domains.includes(ref.domain)) entry.domains.push(ref.domain);
      const plain = new DiagnosticSink(ref.path, store);
      const value = await readOutputsJson(byPath.get(ref.path)!, plain, limits, true);
      if (value === undefined) {
        // VAKRA's checker rejects a file it cannot parse too.
        vakraRejected++;
        continue;
      }
      if (checkStringLimits(value, plain, limits) > 0) continue;
      const findings = vakraSchemaFindings(value, MAX_FINDINGS_PER_FILE);
      const sink = new PathNotingSink(ref.path, store, new Set(findings.map((f) => f.path)));
      const reads = dialogueRecords.read(value, sink, ref.domain, false);
      const records = Array.isArray(value) ? value.length : 0;
      budget.countRecords(records, ref.path);
      entry.records += records;
      vakraRejected += new Set(findings.map((f) => f.record ?? -1)).size;
      // Where Agentboard's reader already said something at that place, it is not said twice.
      for (const f of findings) {
        if (sink.noted.has(f.path)) continue;
        plain.warn("vakra_rejects", `VAKRA's validate_output.py rejects this: ${f.message}`, { ...(f.record !== undefined ? { record: f.record } : {}), ...(f.uuid ? { uuid: f.uuid } : {}), path: f.path });
      }
      for (const r of reads) {
        const key = `${ref.trial}\0${dir}\0${r.uuid}`;
        const prior = seen.get(key);
        if (prior) {
          plain.error("duplicate_uuid", `uuid already predicted at ${prior}; expected each uuid once per capability`, { record: r.record, uuid: r.uuid, path: `$[${r.record}].uuid` });
          continue;
        }
        seen.set(key, `${ref.path} record ${r.record}`);
        dialogues++;
      }
    }
    if (layout.domainFiles.length === 0) {
      store.add({
        severity: "error",
        code: "empty_bundle",
        file: source.location,
        message: `no output files found; expected <capability_dir>/<domain>.json with capability_dir one of ${VAKRA_CAPABILITIES.map((c) => c.directory).join(", ")} (or its capability_N_ prefix)`,
      });
    }
    const sha256 = await source.sha256();
    const bundle = { location: source.location, kind: source.kind, sha256, files: source.files.length };
    return report(store, bundle, capabilities, { records: budget.records, dialogues, trials: layout.trials, vakraRejected }, opts, budget.stopped);
  } finally {
    await source.close();
  }
}

/** A sink that notes which of the given JSON paths it was told something about. */
class PathNotingSink extends DiagnosticSink {
  readonly noted = new Set<string>();
  constructor(
    file: string,
    store: DiagnosticStore,
    private readonly watched: ReadonlySet<string>,
  ) {
    super(file, store);
  }
  override error(code: string, message: string, where: Where = {}): void {
    if (where.path && this.watched.has(where.path)) this.noted.add(where.path);
    super.error(code, message, where);
  }
  override warn(code: string, message: string, where: Where = {}): void {
    if (where.path && this.watched.has(where.path)) this.noted.add(where.path);
    super.warn(code, message, where);
  }
}

function report(
  store: DiagnosticStore,
  bundle: OutputsCheckReport["bundle"],
  capabilities: Record<string, CapabilityFiles>,
  counts: { records: number; dialogues: number; trials: number; vakraRejected: number },
  opts: CheckOptions,
  stopped?: Diagnostic,
): OutputsCheckReport {
  const s = summariseDiagnostics(store, opts.errorLimit ?? 1000, stopped);
  const files = Object.values(capabilities).reduce((n, c) => n + c.files, 0);
  return {
    schema: "agentboard.validation-without-benchmark/1",
    valid: s.errorCount === 0,
    bundle,
    benchmark: null,
    summary: { errors: s.errorCount, warnings: s.warningCount, files, ...counts },
    ...diagnosticLists(s),
    capabilities,
    benchmarkAdds: BENCHMARK_ADDS,
    ...(stopped ? { stopped: stopped.message } : {}),
  };
}

/** Markdown for a terminal: verdict, VAKRA's verdict, errors, warnings, the files read, what a benchmark adds. */
export function renderOutputsCheckMarkdown(r: OutputsCheckReport, opts: { maxErrors?: number; maxWarnings?: number } = {}): string {
  const maxErrors = opts.maxErrors ?? 50;
  const maxWarnings = opts.maxWarnings ?? 20;
  const out: string[] = [];
  out.push(`## Validation without a benchmark: ${r.valid ? "✅ valid" : "❌ invalid"}`, "");
  out.push(
    `Bundle \`${r.bundle.sha256 ? r.bundle.sha256.slice(0, 12) : "n/a"}\` (${r.bundle.kind}, ${r.summary.files} output files) · ` +
      `${r.summary.trials > 1 ? `${r.summary.trials} trials · ` : ""}${r.summary.dialogues} dialogues read · ${r.summary.errors} error(s), ${r.summary.warnings} warning(s)`,
  );
  out.push(
    "",
    r.summary.vakraRejected === 0 && r.summary.files > 0
      ? "VAKRA's validate_output.py would accept every file."
      : `VAKRA's validate_output.py would reject ${r.summary.vakraRejected} record(s) or file(s)${r.warningCounts.vakra_rejects ? " (`vakra_rejects` below, and the errors)" : ""}.`,
  );
  out.push(...mdDiagnosticSections(r, maxErrors, maxWarnings));
  const caps = Object.entries(r.capabilities);
  if (caps.length) {
    out.push("", "| Capability folder | Files | Records | Domains |", "|---|---:|---:|---|");
    for (const [dir, c] of caps) out.push(`| \`${dir}\` | ${c.files} | ${c.records} | ${md(c.domains.slice(0, 8).join(", "))}${c.domains.length > 8 ? ", …" : ""} |`);
  }
  out.push("", r.benchmarkAdds);
  return out.join("\n") + "\n";
}
