/**
 * Validates a submission bundle against a benchmark's ground truth and returns the report
 * plus the normalised predictions, so scoring never parses a file twice.
 */
import { parse as parseYaml } from "yaml";
import { indexBenchmark, type GroundTruthIndex } from "./ground-truth-index";
import type { Benchmark } from "../benchmark/load-benchmark";
import { DiagnosticSink, DiagnosticStore, preview, type Diagnostic } from "../formats/diagnostic";
import type { PredictedDialogue } from "../formats/dialogue";
import type { AgentOutput } from "../formats/eval-dataset";
import { loaderOf } from "../benchmark/capability-loaders/registry";
import { readJson, scanJson, tooDeepAt } from "../formats/read-json";
import { StringPool } from "../formats/string-pool";
import { openBundle, type BundleFile, type BundleSource, type ZipLimits } from "./bundle-source";
import { mapLayout, type BundleLayout } from "./bundle-layout";
import { resolveLimits, type ValidationLimits } from "./limits";
import { checkMetadata } from "./metadata-checks";
import { readUsage } from "../formats/usage";
import { checkStringLimits } from "./string-limits";
import { bundleFiles } from "./dataset-outputs";
import { checkOutputsFile, readEntry, readOutputsJson, type OutputsFileCheck } from "./outputs-file";
import { startFileThreads, type FileThreadOptions } from "./file-threads";
import { readerOf } from "./outputs-readers/registry";
import { boundHeap, createHeapGrowthBound } from "./heap-bound";
import { createWorkBudget } from "./work-budget";
import { diagnosticLists, summariseDiagnostics, type CapabilityCoverage, type ValidationReport } from "./report";

/** One trial's predictions (a plain bundle is one trial). */
export interface TrialPredictions {
  /** Predicted dialogues per submitted waterfall capability id, keyed by uuid. */
  capabilities: Map<string, Map<string, PredictedDialogue>>;
  /** Agent outputs per submitted evaluator capability id, keyed by item id. */
  outputs: Map<string, Map<string, AgentOutput>>;
  /** Where each prediction was read (`file record i`), keyed `capability\0uuid`: for duplicate errors. */
  origins: Map<string, string>;
}

/** A bundle's predictions; for a bundle of trials, the fields of TrialPredictions are trial 1's. */
export interface Submission extends TrialPredictions {
  sha256: string;
  metadata: Record<string, unknown> | null;
  /** A bundle of k > 1 trials (`trial_1/ … trial_k/`): every trial's predictions, trial 1 first. Absent for one trial. */
  trials?: TrialPredictions[];
}

/** Every trial's predictions, trial 1 first: a plain bundle is one trial. */
export function trialsOf(s: Submission): TrialPredictions[] {
  return s.trials ?? [s];
}

/** Trial `n`'s predictions (1-based) as a submission of their own, for the scorers. */
export function trialSubmission(s: Submission, n: number): Submission {
  const t = trialsOf(s)[n - 1];
  if (!t) throw new RangeError(`the submission has no trial ${n}`);
  return { sha256: s.sha256, metadata: s.metadata, capabilities: t.capabilities, outputs: t.outputs, origins: t.origins };
}

/** The capability ids a submission covers, of either kind. */
export function submittedCapabilities(s: Pick<Submission, "capabilities" | "outputs">): Set<string> {
  return new Set([...s.capabilities.keys(), ...s.outputs.keys()]);
}

const emptySubmission = (sha256: string): Submission => ({ sha256, capabilities: new Map(), outputs: new Map(), origins: new Map(), metadata: null });

export interface ValidationOutcome {
  report: ValidationReport;
  /** Present whenever the bundle could be opened (and `keepPredictions` is not false); only score it when `report.valid`. */
  submission?: Submission;
}

/** What validation needs of a benchmark: the whole ground truth, or its index (ground-truth-index.ts). */
export type ValidationTarget = Benchmark | GroundTruthIndex;

export interface ValidateOptions {
  /** Overrides of the bundle's limits (see limits.ts for each default). */
  limits?: Partial<ValidationLimits>;
  /** The ZIP limits, by their older name; `limits` wins where both are given. */
  zipLimits?: Partial<ZipLimits>;
  /** Errors listed in the JSON report (the count is always exact). */
  errorLimit?: number;
  /**
   * Keep the parsed predictions for scoring (the default). `false` keeps only their ids, so
   * memory follows the largest file rather than the bundle, and returns no submission.
   */
  keepPredictions?: boolean;
  /** Worker threads for reading outputs files, used only when predictions are not kept (file-threads.ts). */
  threads?: FileThreadOptions;
  /**
   * Collect garbage between files when the heap has grown (heap-bound.ts), on this thread (for a
   * caller that enabled a collector) and the worker threads. Predictions not kept: past a fixed
   * bound (only ids stay); kept: once the heap has grown past what the last collection left.
   */
  boundHeap?: boolean;
}

export async function validateBundle(location: string, target: ValidationTarget, opts: ValidateOptions = {}): Promise<ValidationOutcome> {
  const benchmark = asIndex(target);
  const limits = resolveLimits(opts.zipLimits, opts.limits);
  const opened = await openBundle(location, limits);
  if (!opened.ok) {
    const store = newStore(limits);
    store.addAll(opened.problems);
    return { report: buildReport(benchmark, { location, kind: "unknown", sha256: null, files: 0 }, store, emptySubmission(""), { records: 0, dialogues: 0, trials: 0 }, null, opts, undefined) };
  }
  try {
    return await validateSource(opened.source, benchmark, opts);
  } finally {
    await opened.source.close();
  }
}

const newStore = (limits: ValidationLimits) => new DiagnosticStore({ perCode: limits.maxDiagnosticsPerCode, total: limits.maxDiagnostics });

/** Validation reads the ground truth through its index: the same lookups whichever the caller has. */
const asIndex = (t: ValidationTarget): GroundTruthIndex => ("policyTable" in t ? indexBenchmark(t) : t);

export async function validateSource(source: BundleSource, target: ValidationTarget, opts: ValidateOptions = {}): Promise<ValidationOutcome> {
  const benchmark = asIndex(target);
  const limits = resolveLimits(opts.zipLimits, opts.limits);
  const keep = opts.keepPredictions !== false;
  const layout = mapLayout(
    source.files.map((f) => f.path),
    benchmark.capabilities.map((c) => c.spec),
    { maxTrials: limits.maxTrials, dirs: source.dirs },
  );
  const store = newStore(limits);
  store.addAll(layout.diagnostics);
  const byPath = new Map(source.files.map((f) => [f.path, f]));
  // One set of predictions per trial (a plain bundle is one), each checked as a bundle of its own.
  const k = Math.max(1, layout.trials);
  const trials = Array.from({ length: k }, () => emptySubmission(""));
  const named = new Set<string>();
  const files = bundleFiles(byPath, named, limits);
  /** Whether any admitted record carries its own usage (so the metadata's is ignored). */
  let recordUsage = false;
  /** Per trial, the uuids admitted per capability whose files are read by records (coverage counts them). */
  const admitted = Array.from({ length: k }, () => new Map<string, Set<string>>());
  const strings = new StringPool();

  // Files of record-reading capabilities are checked apart (on worker threads when given and
  // worth it), then absorbed and admitted here in bundle order: the report is the same either way.
  const jobs = layout.domainFiles.map((ref) => {
    const cap = benchmark.capabilities.find((c) => c.spec.id === ref.capability.id)!;
    const reader = readerOf(cap.spec.scorer);
    const job = { path: ref.path, domain: ref.domain, pythonValues: loaderOf(cap.spec.scorer).readsPythonValues, keep, scorer: cap.spec.scorer };
    return { ref, cap, reader, job, known: cap.domains.has(ref.domain), file: byPath.get(ref.path)! };
  });
  // A file of a domain the benchmark does not have is refused by its name: never read or parsed.
  const readable = jobs.map((j) => (j.known ? j.file : undefined));
  const threadBytes = jobs.reduce((n, j, i) => n + (j.reader.records && readable[i] ? j.file.size : 0), 0);
  const threads = !keep && opts.threads && threadBytes >= opts.threads.minBytes ? startFileThreads(opts.threads, limits, opts.boundHeap) : undefined;
  const onThreads = jobs.map((j, i) => !!threads && !!j.reader.records && !!readable[i]);
  const budget = createWorkBudget(limits, store, source.location, jobs.length);
  // Kept predictions grow the live heap file after file: a fixed bound would stop collecting.
  const bound = opts.boundHeap ? (keep ? createHeapGrowthBound() : () => boundHeap()) : undefined;
  const checks = new Map<number, Promise<OutputsFileCheck>>();
  try {
    // With threads, the next files are kept queued (the threads, this one included, take them
    // in turn) but never more: once a budget is spent, little has been read past it. Without,
    // files are checked here one at a time, each read started a few files ahead.
    let queued = 0;
    const queueUpTo = (end: number) => {
      for (; queued < Math.min(end, jobs.length); queued++) if (onThreads[queued]) checks.set(queued, threads!.check(jobs[queued]!.file, jobs[queued]!.job));
    };
    const fileAt = readAhead(readable.map((f, i) => (onThreads[i] ? undefined : f)), READ_AHEAD, limits.maxFileBytes);
    for (const [i, { ref, cap, reader, job, known }] of jobs.entries()) {
      if (budget.stopBefore(i)) break;
      const sink = new DiagnosticSink(ref.path, store);
      if (!known) {
        sink.error("unknown_domain", unknownDomain(ref.domain, cap));
        continue;
      }
      if (reader.records) {
        if (threads) queueUpTo(i + 1 + threads.depth);
        const checked = await (checks.get(i) ?? checkOutputsFile(fileAt(i), job, reader.records, limits));
        checks.delete(i);
        store.absorb(checked.diagnostics);
        if (checked.outcome !== "read") continue;
        const mine = admitted[ref.trial - 1]!;
        const ids = mine.get(cap.spec.id) ?? new Set<string>();
        mine.set(cap.spec.id, ids);
        if (reader.records.admit({ cap, domain: ref.domain, file: ref.path, reads: checked.reads, sink, submission: trials[ref.trial - 1]!, ids, strings })) recordUsage = true;
        budget.countRecords(checked.records, ref.path);
        bound?.();
        continue;
      }
      const value = await readOutputsJson(fileAt(i), sink, limits, job.pythonValues);
      if (value === undefined) continue;
      // Oversize strings would reach prompts, storage and pages: refuse the file before any reader keeps one.
      if (checkStringLimits(value, sink, limits) > 0) continue;
      budget.countRecords(await reader.readOutputs!({ cap, domain: ref.domain, file: ref.path, value, sink, source: files, submission: trials[ref.trial - 1]! }), ref.path);
    }
  } finally {
    await threads?.close();
  }

  // A report file is named by an output read: after a stop, the unread ones may name the rest.
  for (const file of budget.stopped === undefined ? layout.attachments : []) {
    if (!named.has(file)) store.add({ severity: "warning", code: "ignored_file", file, message: "not an outputs file (<capability_dir>/<domain>.json) and no output's report_path names it; ignored" });
  }

  const idsOf = (trial: number, capability: string) => admitted[trial - 1]!.get(capability) ?? readerOf(benchmark.capabilities.find((c) => c.spec.id === capability)!.spec.scorer).predicted?.(trials[trial - 1]!, capability);
  // Trials read in part would differ by the files not read: compared only when all were.
  if (k > 1 && budget.stopped === undefined) checkTrialItems(benchmark, layout, idsOf, store);
  const minTrials = benchmark.spec.trials?.min;
  if (minTrials !== undefined && layout.trials < minTrials) {
    store.add({
      severity: "error",
      code: "too_few_trials",
      file: source.location,
      message: `this benchmark asks for at least ${minTrials} trials (benchmark.yaml trials.min); the bundle has ${layout.trials}${layout.trialDirs.length === 0 ? " (a bundle without trial_N/ folders is one trial)" : ""}: put each run in its own folder, trial_1/ … trial_${minTrials}/`,
    });
  }

  const submission: Submission = { ...trials[0]!, ...(k > 1 ? { trials: trials.map(({ capabilities, outputs, origins }) => ({ capabilities, outputs, origins })) } : {}) };
  if (layout.metadataPath) {
    const sink = new DiagnosticSink(layout.metadataPath, store);
    submission.metadata = await readMetadata(byPath.get(layout.metadataPath)!, sink, limits);
    const usage = readUsage(submission.metadata?.usage, "$.usage", (w) => sink.warn("bad_usage", w.message, { path: w.path }));
    if (usage && recordUsage) {
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
  // After the files were read: a folder's are hashed as they are read.
  submission.sha256 = await source.sha256();
  const dialogues = trials.reduce((n, t, i) => n + [...admitted[i]!.values(), ...t.outputs.values()].reduce((m, ids) => m + ids.size, 0), 0);
  const report = buildReport(
    benchmark,
    { location: source.location, kind: source.kind, sha256: submission.sha256, files: source.files.length },
    store,
    submission,
    { records: budget.records, dialogues, trials: layout.trials },
    submission.metadata,
    opts,
    budget.stopped,
    admitted[0],
  );
  return keep ? { report, submission } : { report };
}

/** Files read ahead of their turn on this thread (bounded memory: `depth` files). */
const READ_AHEAD = 4;

/**
 * The i-th file, its read started `depth` files before its turn. A file over `maxBytes` is
 * never read ahead (it is refused unread); a failed read fails when its turn comes.
 */
function readAhead(files: (BundleFile | undefined)[], depth: number, maxBytes: number): (i: number) => BundleFile {
  const started = new Map<number, Promise<Buffer>>();
  const start = (k: number) => {
    const f = files[k];
    if (!f || started.has(k) || f.size > maxBytes) return;
    const p = f.read();
    p.catch(() => {}); // awaited at its turn; until then not an unhandled rejection
    started.set(k, p);
  };
  return (i) => {
    for (let k = i; k <= i + depth; k++) start(k);
    const p = started.get(i);
    started.delete(i);
    const f = files[i]!;
    return p ? { ...f, read: () => p } : f;
  };
}

function unknownDomain(domain: string, cap: { spec: { directory: string }; domains: Map<string, unknown> }): string {
  return `domain ${preview(domain)} has no ground truth in ${cap.spec.directory}; expected one of ${[...cap.domains.keys()].slice(0, 10).join(", ")}${cap.domains.size > 10 ? ", …" : ""}`;
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

/**
 * Every trial must cover the same items as trial 1, capability by capability: an item (or a
 * whole capability) in one and not the other is an error naming the trial, the capability's
 * folder and file, and the uuid. A trial folder that is missing or holds no files was reported
 * as such (trial_gap, empty_trial); the others are compared with the first that has files.
 */
function checkTrialItems(benchmark: GroundTruthIndex, layout: BundleLayout, idsOf: (trial: number, capability: string) => ReadonlySet<string> | undefined, store: DiagnosticStore): void {
  const rule = "every trial must cover the same items";
  const present = [...new Set(layout.domainFiles.map((f) => f.trial))].sort((a, b) => a - b);
  const ref = present[0];
  if (ref === undefined) return;
  const refName = `trial_${ref}`;
  for (const cap of benchmark.capabilities) {
    const dir = cap.spec.directory;
    const first = idsOf(ref, cap.spec.id);
    let domainOf: Map<string, string> | undefined;
    const fileOf = (trial: number, uuid: string) => {
      domainOf ??= new Map([...cap.domains].flatMap(([domain, gts]) => gts.map((g) => [g.uuid, domain] as const)));
      return `${layout.trialDirs[trial - 1]}${dir}/${domainOf.get(uuid) ?? "?"}.json`;
    };
    for (const t of present.slice(1)) {
      const ids = idsOf(t, cap.spec.id);
      const name = `trial_${t}`;
      if (!first && !ids) continue;
      if (!first || !ids) {
        const message = first ? `${name} has no predictions for this capability and ${refName} has: ${rule}` : `${refName} has no predictions for this capability and ${name} has: ${rule}`;
        store.add({ severity: "error", code: "trial_items_differ", file: `${layout.trialDirs[t - 1]}${dir}`, message });
        continue;
      }
      for (const uuid of first) if (!ids.has(uuid)) store.add({ severity: "error", code: "trial_items_differ", file: fileOf(t, uuid), uuid, message: `item is in ${refName} but not in ${name}: ${rule}` });
      for (const uuid of ids) if (!first.has(uuid)) store.add({ severity: "error", code: "trial_items_differ", file: fileOf(t, uuid), uuid, message: `item is in ${name} but not in ${refName}: ${rule}` });
    }
  }
}

function buildReport(
  benchmark: GroundTruthIndex,
  bundle: ValidationReport["bundle"],
  store: DiagnosticStore,
  predicted: Submission,
  counts: { records: number; dialogues: number; trials: number },
  metadata: Record<string, unknown> | null,
  opts: ValidateOptions,
  stopped: Diagnostic | undefined,
  admitted: ReadonlyMap<string, ReadonlySet<string>> = new Map(),
): ValidationReport {
  const s = summariseDiagnostics(store, opts.errorLimit ?? 1000, stopped);
  const submitted = new Set([...admitted.keys(), ...submittedCapabilities(predicted)]);
  const coverage: Record<string, CapabilityCoverage> = {};
  const idsOf = (capability: string, reader: ReturnType<typeof readerOf>) => admitted.get(capability) ?? reader.predicted?.(predicted, capability);
  for (const cap of benchmark.capabilities) {
    const ids = idsOf(cap.spec.id, readerOf(cap.spec.scorer));
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
      records: counts.records,
      dialogues: counts.dialogues,
      trials: counts.trials,
      submittedCapabilities: benchmark.capabilities.map((c) => c.spec.id).filter((id) => submitted.has(id)),
    },
    ...diagnosticLists(s),
    coverage,
    metadata,
    ...(stopped ? { stopped: stopped.message } : {}),
  };
}
