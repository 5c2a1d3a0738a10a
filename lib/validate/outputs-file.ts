/**
 * Reading one file of a bundle, bounded: its bytes (a corrupt ZIP entry is an error, not a
 * crash), then a byte scan that bounds depth, values and records before JSON.parse builds
 * anything. `checkOutputsFile` is everything about a waterfall outputs file that needs no
 * other file, so it can run on a worker thread (validate-worker.ts): its diagnostics go to a
 * store of its own, which validation then absorbs in bundle order.
 */
import { DiagnosticSink, DiagnosticStore, preview, type Diagnostic } from "../formats/diagnostic";
import { readJson, scanJson } from "../formats/read-json";
import type { DialogueRead, RecordReader } from "./outputs-readers/outputs-reader";
import type { BundleFile } from "./bundle-source";
import type { ValidationLimits } from "./limits";
import { checkStringLimits } from "./string-limits";

/** Reads a file's bytes; a corrupt ZIP entry (e.g. sizes that lie) becomes an error, not a crash. */
export async function readEntry(file: Pick<BundleFile, "size" | "read">, sink: DiagnosticSink, maxBytes: number, limitName: string): Promise<Buffer | undefined> {
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

/** Parsed JSON of a file's bytes, or undefined with the reason in the sink. */
export function parseBounded(bytes: Buffer, sink: DiagnosticSink, limits: ValidationLimits, maxRecords: number, pythonValues: boolean): unknown {
  const scan = scanJson(bytes, { maxDepth: limits.maxJsonDepth, maxValues: limits.maxValuesPerFile, maxRecords });
  if (!scan.ok) {
    const limitName = { too_deep: "maxJsonDepth", too_many_values: "maxValuesPerFile", too_many_records: "maxRecordsPerFile" }[scan.code];
    const message = scan.code === "too_deep" ? `value nested more than ${limits.maxJsonDepth} levels deep; expected plain records, tool calls and answers` : `${scan.message} (limits.${limitName}); the file is not read`;
    sink.error(scan.code, message, { path: scan.path, ...(scan.record !== undefined ? { record: scan.record } : {}) });
    return undefined;
  }
  const json = readJson(bytes, { pythonValues, mayLoseFidelity: scan.mayLoseFidelity });
  if (!json.ok) {
    sink.error(json.code, json.message);
    return undefined;
  }
  if (json.hadBom) sink.warn("utf8_bom", "file starts with a UTF-8 byte order mark; ignored");
  // No second walk for depth: the scan above already refused any nesting past maxJsonDepth
  // (scoring recurses into arguments and answers, so it must), and parsing adds none.
  return json.value;
}

/** An outputs file's parsed JSON, or undefined with the reason in the sink. */
export async function readOutputsJson(file: Pick<BundleFile, "size" | "read">, sink: DiagnosticSink, limits: ValidationLimits, pythonValues: boolean): Promise<unknown> {
  const bytes = await readEntry(file, sink, limits.maxFileBytes, "maxFileBytes");
  if (!bytes) return undefined;
  return parseBounded(bytes, sink, limits, limits.maxRecordsPerFile, pythonValues);
}

/** A store's diagnostics as plain data (what a worker thread sends back). */
export interface DiagnosticSnapshot {
  items: Diagnostic[];
  errorCounts: Record<string, number>;
  warningCounts: Record<string, number>;
}

export interface OutputsFileCheck {
  diagnostics: DiagnosticSnapshot;
  /**
   * How far the file got: "unread" (unreadable or refused by the scan or the parser),
   * "refused" (a string over its limit), "read". (A file of a domain the benchmark does not
   * have is never checked: validation refuses it by its name.)
   */
  outcome: "unread" | "refused" | "read";
  /** Top-level records of a file that was read. */
  records: number;
  /** Its records as read on their own, in file order. */
  reads: DialogueRead[];
}

export interface OutputsFileJob {
  /** Path inside the bundle (diagnostics name it). */
  path: string;
  domain: string;
  pythonValues: boolean;
  /** Keep each record's dialogue (for scoring), or only what validation needs. */
  keep: boolean;
}

/** Everything about one outputs file that needs no other file: read, bounded parse, string limits, records. */
export async function checkOutputsFile(file: Pick<BundleFile, "size" | "read">, job: OutputsFileJob, reader: RecordReader, limits: ValidationLimits): Promise<OutputsFileCheck> {
  const store = new DiagnosticStore({ perCode: limits.maxDiagnosticsPerCode, total: limits.maxDiagnostics });
  const sink = new DiagnosticSink(job.path, store);
  const done = (outcome: OutputsFileCheck["outcome"], records = 0, reads: DialogueRead[] = []): OutputsFileCheck => ({
    diagnostics: { items: store.items, errorCounts: store.errorCounts, warningCounts: store.warningCounts },
    outcome,
    records,
    reads,
  });
  const value = await readOutputsJson(file, sink, limits, job.pythonValues);
  if (value === undefined) return done("unread");
  // Oversize strings would reach prompts, storage and pages: refuse the file before any reader keeps one.
  if (checkStringLimits(value, sink, limits) > 0) return done("refused");
  return done("read", Array.isArray(value) ? value.length : 0, reader.read(value, sink, job.domain, job.keep));
}
