/**
 * Loads an evaluation dataset from disk: the dataset (`.json` array or `.jsonl`), an
 * optional outputs file keyed by id, the reference report of every report item (a path
 * relative to the dataset) and the agent's report files. Schema problems are diagnostics
 * with file and JSON path; a reference or report that cannot be read is the item's error
 * (reported when it is evaluated), not a reason to stop the run.
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { DiagnosticSink, type Diagnostic } from "./diagnostic";
import { readEvalDataset, stripAgentThinking, type DatasetKeys, type AgentOutput, type EvalItem, type HistoryTurn, type ItemDraft, type LoadedReport } from "./eval-dataset";
import { readOutputsFile, type AgentOutputDraft, type ReportDraft } from "./eval-outputs";
import { parseMarkdownReport } from "./eval-report-markdown";
import { toolResultsByName } from "./eval-trajectory";
import { compilePythonPattern } from "./python-regex";
import { readJson } from "./read-json";

export interface EvalLoadOptions {
  datasetFile: string;
  outputsFile?: string;
  /** Where report references resolve; the dataset's folder by default. */
  referenceBaseDir?: string;
  /** `evaluation_method` ids handled by report evaluators: their items need a reference report. */
  reportMethods: ReadonlySet<string>;
  /** Report evaluators that find the report through a link in the answer: by method id. */
  reportStores?: ReadonlyMap<string, ReportStore>;
  /** Record keys (NAT's `dataset.structure`). */
  keys?: DatasetKeys;
  datasetFormat?: "json" | "jsonl";
  /** How files are named in diagnostics (default: as given). */
  displayName?: (file: string) => string;
}

export interface EvalLoadResult {
  items: EvalItem[];
  diagnostics: Diagnostic[];
  errorCount: number;
}

export async function loadEvalDataset(opts: EvalLoadOptions): Promise<EvalLoadResult> {
  const show = opts.displayName ?? ((f: string) => f);
  const diagnostics: Diagnostic[] = [];
  const datasetSink = new DiagnosticSink(show(opts.datasetFile));
  const value = await readJsonOrLines(opts.datasetFile, datasetSink, opts.datasetFormat);
  const drafts = value === undefined ? [] : readEvalDataset(value, datasetSink, opts.keys);
  for (const d of datasetSink.items) diagnostics.push(d);

  let outputs = new Map<string, AgentOutputDraft>();
  let errorCount = datasetSink.errorCount;
  if (opts.outputsFile) {
    const sink = new DiagnosticSink(show(opts.outputsFile));
    const raw = await readJsonOrLines(opts.outputsFile, sink);
    if (raw !== undefined) outputs = readOutputsFile(raw, sink, opts.keys);
    const known = new Set(drafts.map((d) => d.id));
    for (const [id, o] of outputs) if (!known.has(id)) sink.warn("unknown_output_id", `outputs for id "${id}" match no dataset item or turn; ignored`, { path: o.path });
    for (const d of drafts) {
      if (d.inlineOutput && outputs.has(d.id)) sink.warn("output_shadowed", `the dataset's inline outputs for "${d.id}" are replaced by this file's`, { path: outputs.get(d.id)!.path });
    }
    for (const d of sink.items) diagnostics.push(d);
    errorCount += sink.errorCount;
  }

  if (errorCount > 0) return { items: [], diagnostics, errorCount };

  const datasetDir = path.dirname(opts.datasetFile);
  const referenceDir = opts.referenceBaseDir ?? datasetDir;
  const files = reportFiles(diskFiles, show);
  const items: EvalItem[] = [];
  for (const d of drafts) {
    const fromFile = outputs.get(d.id);
    const draft = fromFile ?? d.inlineOutput;
    const baseDir = fromFile ? path.dirname(opts.outputsFile!) : datasetDir;
    let output = draft ? await files.output(draft, baseDir) : null;
    const needsReference = d.methods.some((m) => opts.reportMethods.has(m));
    const referenceReport = needsReference ? await files.reference(d, referenceDir) : null;
    const store = d.methods.map((m) => opts.reportStores?.get(m)).find((s) => s !== undefined);
    if (store && output && !output.report) output = { ...output, report: await reportFromStore(store, output.answer ?? "", referenceReport?.source ?? "", show) };
    items.push({ ...withoutDraftFields(d), history: [], output, referenceReport });
  }
  attachHistory(items);
  return { items, diagnostics, errorCount: 0 };
}

export function withoutDraftFields(d: ItemDraft): Omit<EvalItem, "history" | "output" | "referenceReport"> {
  const { inlineOutput: _inline, ...rest } = d;
  return rest;
}

/** A folder standing in for NAT's object store, and the pattern that finds a report's name in an answer. */
export interface ReportStore {
  folder: string;
  pattern: string;
}

/**
 * The report an answer links to, as VSS finds it: the first match of the pattern in the
 * answer, its group 1 (or the link's last path segment) the file name, read from
 * `<folder>/<camera_N>/<name>` when the reference path names a camera, else `<folder>/<name>`,
 * and parsed from markdown.
 */
export async function reportFromStore(store: ReportStore, answer: string, referencePath: string, show: (f: string) => string = (f) => f): Promise<LoadedReport> {
  const c = compilePythonPattern(store.pattern);
  if (!c.ok) return { ok: false, error: `report_url_pattern is not a valid regular expression: ${c.error}`, source: "" };
  const m = c.re.exec(answer);
  if (!m) return { ok: false, error: `No report URL found in response matching pattern: ${store.pattern}`, source: "" };
  const name = m[1] ?? m[0].split("/").at(-1) ?? "";
  const camera = /camera_\d+/.exec(referencePath)?.[0];
  const rel = camera ? `${camera}/${name}` : name;
  const root = path.resolve(store.folder);
  const file = path.resolve(root, rel);
  if (!file.startsWith(root + path.sep)) return { ok: false, error: `Report not found in object store: ${rel}`, source: rel, notInStore: true };
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch {
    return { ok: false, error: `Report not found in object store: ${rel}`, source: rel, notInStore: true };
  }
  if (text.trim() === "") return { ok: false, error: `Report not found in object store: ${rel}`, source: rel };
  return { ok: true, value: parseMarkdownReport(text), source: show(file), markdown: text };
}

/** Each turn sees the turns before it, with the agent's own answers. */
export function attachHistory(items: EvalItem[]): void {
  const byConversation = new Map<string, EvalItem[]>();
  for (const it of items) {
    if (!it.conversation) continue;
    const list = byConversation.get(it.conversation.id) ?? [];
    list.push(it);
    byConversation.set(it.conversation.id, list);
  }
  for (const turns of byConversation.values()) {
    turns.sort((a, b) => a.conversation!.index - b.conversation!.index);
    const history: HistoryTurn[] = [];
    const prior: Record<string, Record<string, unknown[]>> = {};
    for (const t of turns) {
      t.history = [...history];
      t.priorToolResults = { ...prior };
      history.push({ turnId: t.conversation!.turnId, query: t.query, answer: t.output?.answer != null ? stripAgentThinking(t.output.answer) : "" });
      prior[t.conversation!.turnId] = toolResultsByName(t.output?.events ?? [], t.output?.toolCalls ?? []);
    }
  }
}

/** Where report files come from: the disk, or a submission bundle. */
export interface FileSource {
  /** The file a path names, relative to a folder; throws when it leaves the source. */
  resolve(baseDir: string, rel: string): string;
  /** The file's bytes; throws an error with a `code` (ENOENT…) when it cannot be read. */
  read(file: string): Promise<Uint8Array>;
}

export const diskFiles: FileSource = {
  resolve: (baseDir, rel) => path.resolve(baseDir, rel),
  read: (file) => readFile(file),
};

/** Reads the reports that outputs and report items name, each file once. */
export interface ReportFiles {
  output(d: AgentOutputDraft, baseDir: string): Promise<AgentOutput>;
  reference(d: Pick<ItemDraft, "groundTruth" | "path">, baseDir: string): Promise<LoadedReport>;
}

export function reportFiles(source: FileSource, show: (file: string) => string = (f) => f): ReportFiles {
  const files = new Map<string, Promise<LoadedReport>>();
  const once = (file: string, read: () => Promise<LoadedReport>) => {
    let p = files.get(file);
    if (!p) files.set(file, (p = read()));
    return p;
  };
  const locate = (baseDir: string, rel: string): { file: string } | { error: string } => {
    try {
      return { file: source.resolve(baseDir, rel) };
    } catch (err) {
      return { error: err instanceof Error ? err.message : String(err) };
    }
  };
  const bytesOf = async (file: string): Promise<Uint8Array | string> => {
    try {
      return await source.read(file);
    } catch (err) {
      return (err as NodeJS.ErrnoException).code ?? (err instanceof Error ? err.message : String(err));
    }
  };

  const report = async (r: ReportDraft, baseDir: string): Promise<LoadedReport> => {
    if (r.kind === "json") return { ok: true, value: r.value, source: "inline JSON" };
    if (r.kind === "markdown") return markdownReport(r.text, "inline markdown");
    const at = locate(baseDir, r.path);
    if ("error" in at) return { ok: false, error: `cannot read the report ${r.path}: ${at.error}`, source: r.path };
    return once(at.file, async () => {
      const shown = show(at.file);
      const bytes = await bytesOf(at.file);
      if (typeof bytes === "string") return { ok: false, error: `cannot read the report ${shown}: ${bytes}`, source: shown };
      if (!/\.json$/i.test(at.file)) return markdownReport(Buffer.from(bytes).toString("utf8"), shown);
      return jsonObject(bytes, shown, "report");
    });
  };

  return {
    async output(d, baseDir) {
      return { answer: d.answer, toolCalls: d.toolCalls, events: d.events, ...(d.rawTrajectory !== undefined ? { rawTrajectory: d.rawTrajectory } : {}), timestamps: d.timestamps, report: d.report ? await report(d.report, baseDir) : null };
    },
    async reference(d, baseDir) {
      if (d.groundTruth === null || d.groundTruth.trim() === "") {
        return { ok: false, error: `a report item needs "ground_truth": the path of its reference JSON (${d.path})`, source: "" };
      }
      const at = locate(baseDir, d.groundTruth.trim());
      if ("error" in at) return { ok: false, error: `cannot read the reference report ${d.groundTruth.trim()}: ${at.error}`, source: d.groundTruth.trim() };
      return once(at.file, async () => {
        const shown = show(at.file);
        const bytes = await bytesOf(at.file);
        if (typeof bytes === "string") return { ok: false, error: `cannot read the reference report ${shown}: ${bytes}`, source: shown };
        return jsonObject(bytes, shown, "reference report");
      });
    },
  };
}

function markdownReport(text: string, source: string): LoadedReport {
  const value = parseMarkdownReport(text);
  if (Object.keys(value).length === 0) return { ok: false, error: `the markdown report (${source}) has no title, sections or fields`, source };
  return { ok: true, value, source, markdown: text };
}

function jsonObject(bytes: Uint8Array, source: string, what: string): LoadedReport {
  // Read as json.load reads it, so 3.0 stays "3.0" when a field is compared as Python's str().
  const json = readJson(bytes, { pythonValues: true });
  if (!json.ok) return { ok: false, error: `the ${what} ${source} is not valid JSON: ${json.message}`, source };
  const v = json.value;
  if (typeof v !== "object" || v === null || Array.isArray(v)) return { ok: false, error: `the ${what} ${source} must be a JSON object`, source };
  return { ok: true, value: v as Record<string, unknown>, source };
}

/** A JSON file, or JSON Lines when it ends in `.jsonl` (read as an array, one record per line). */
async function readJsonOrLines(file: string, sink: DiagnosticSink, format?: "json" | "jsonl"): Promise<unknown> {
  let bytes: Buffer;
  try {
    bytes = await readFile(file);
  } catch (err) {
    sink.error("unreadable", `cannot read the file: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
    return undefined;
  }
  if (format === "json" || (format === undefined && !/\.jsonl$/i.test(file))) {
    const r = readJson(bytes);
    if (!r.ok) {
      sink.error(r.code, r.message);
      return undefined;
    }
    return r.value;
  }
  const out: unknown[] = [];
  const lines = bytes.toString("utf8").split(/\r?\n/);
  let ok = true;
  lines.forEach((line, i) => {
    if (line.trim() === "") return;
    const r = readJson(Buffer.from(line));
    if (!r.ok) {
      sink.error(r.code, `line ${i + 1}: ${r.message}`, { record: out.length });
      ok = false;
    } else out.push(r.value);
  });
  return ok ? out : undefined;
}
