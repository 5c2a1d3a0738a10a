/**
 * Every size limit validation applies to a submitted bundle, in one place. A hostile bundle
 * must not be able to stall validation, exhaust memory or crash the report: each limit is
 * checked as early as possible (the ZIP central directory and fs.stat before a byte is read,
 * a linear scan of the bytes before JSON.parse, the parsed value before the readers), and
 * each breach is a diagnostic naming the file (and record, uuid and JSON path where there is
 * one) and what was expected.
 *
 * How to change them: pass `limits` (any subset) in `ValidateOptions`
 * (`validateBundle(bundle, benchmark, { limits: { maxFileBytes: 128 * 1024 ** 2 } })`); the
 * CLI and the worker pass options through `scoreBundle`'s `validate` dependency. The engine
 * reads no environment: a caller that wants an environment variable reads it and passes the
 * value here. `ValidateOptions.zipLimits` (the older name) still overrides the ZIP limits.
 *
 * Per-file limits alone let a small bundle cost minutes (many files, each within its limits):
 * the bundle's total work is bounded too. A file of a domain or capability the benchmark does
 * not have is refused by its name, never read; records are counted across all files and
 * trials (`maxRecords`); and validation stops once `maxErrors` errors are found.
 *
 * With the defaults, validating any bundle stays under 10 s and 256 MiB of peak RSS (the
 * whole process; `npm run bench:hostile`): a file is at most 32 MiB and is parsed only after
 * a byte scan has bounded its value count and depth, and at most one file's worth of work is
 * done past a budget (a few files with worker threads).
 *
 * The CLI, the worker and intake read the two budgets from the environment
 * (limit-settings.ts: AGENTBOARD_VALIDATE_MAX_ERRORS, AGENTBOARD_VALIDATE_MAX_RECORDS).
 */
import { MAX_JSON_DEPTH } from "../formats/read-json";

export interface ValidationLimits {
  // --- The bundle (ZIP central directory, or fs.stat for a folder): before anything is read.
  /** Files in the bundle (ZIP entries, directories included). */
  maxEntries: number;
  /** Sum of the files' uncompressed sizes. */
  maxTotalBytes: number;
  /** One file's uncompressed size: anything larger is refused unread. */
  maxFileBytes: number;
  /** Largest uncompressed/compressed ratio of any ZIP entry. */
  maxRatio: number;
  /**
   * Compressed sizes below this count as this much in the ratio, so a tiny entry may inflate
   * to `maxRatio × ratioMinCompressedBytes` (800 KiB by default) whatever its ratio; above
   * that every entry is held to `maxRatio`.
   */
  ratioMinCompressedBytes: number;
  /** A file's path inside the bundle, in UTF-8 bytes. */
  maxPathBytes: number;
  /** Trials in a bundle of trials (`trial_1/ … trial_k/`); folders beyond it are not read. */
  maxTrials: number;

  // --- The bundle's total work: files are read in bundle order until a budget is spent.
  /**
   * Records in all outputs files of all trials together. A valid bundle holds each item of
   * the ground truth once per trial, so it stays far below this; past it the bundle is
   * refused (`too_many_records_in_bundle`) and no further file is read.
   */
  maxRecords: number;
  /**
   * The error budget: once this many errors are found, validation stops before the next
   * file (`validation_stopped`, and the report's `stopped` says how many files were not
   * read). A file is at most `maxRecordsPerFile` records, so its errors are bounded too.
   */
  maxErrors: number;

  // --- One outputs file: a byte scan before JSON.parse.
  /** Top-level records (array elements, or keys of an object keyed by id). */
  maxRecordsPerFile: number;
  /** JSON values of any kind in one file (objects, arrays, strings, numbers…). */
  maxValuesPerFile: number;
  /** Nesting depth of any JSON value (every file: outputs, reports, metadata). */
  maxJsonDepth: number;

  // --- Strings in a record, after parsing (JavaScript string length, UTF-16 code units).
  /** The agent's answer (`answer`, `generated_answer`), each string of a list answer. */
  maxAnswerChars: number;
  /** A report (`report` as markdown or any string inside a JSON report). */
  maxReportChars: number;
  /** Any string inside a tool call's arguments (`arguments`, `params`). */
  maxArgumentChars: number;
  /** Any string inside a tool response or trajectory event. */
  maxResponseChars: number;
  /** The user's query (`query`, `question`). */
  maxQueryChars: number;
  /** The agent's error text (`error`). */
  maxErrorChars: number;
  /** Tool names and labels (`name`, `label`). */
  maxNameChars: number;
  /** Identifiers: `uuid`, `id`, `domain`, `status`, `turn_id`, `report_path`. */
  maxIdentifierChars: number;
  /** Any object key. */
  maxKeyChars: number;
  /** Any other string. */
  maxTextChars: number;

  // --- metadata.json / submission.yaml (the GitHub form's own limits, for CLI bundles).
  maxMetadataBytes: number;
  /** `agent_name` / `agentName` / `name`. */
  maxAgentNameChars: number;
  maxMaintainerChars: number;
  maxDescriptionChars: number;
  /** Each model name, and how many. */
  maxModelChars: number;
  maxModels: number;
  /** Any other string value in the metadata. */
  maxMetadataValueChars: number;

  // --- The report: diagnostics stored (counts are always exact).
  /** Diagnostics stored per code; the rest are counted. */
  maxDiagnosticsPerCode: number;
  /** Diagnostics stored in all; the rest are counted. */
  maxDiagnostics: number;
}

const KiB = 1024;
const MiB = 1024 ** 2;

export const defaultValidationLimits: Readonly<ValidationLimits> = Object.freeze({
  maxEntries: 10_000,
  maxTotalBytes: 256 * MiB,
  maxFileBytes: 32 * MiB,
  maxRatio: 200,
  ratioMinCompressedBytes: 4 * KiB,
  maxPathBytes: 1_024,
  maxTrials: 32,

  maxRecords: 2_000_000,
  maxErrors: 10_000,

  maxRecordsPerFile: 100_000,
  maxValuesPerFile: 2_000_000,
  maxJsonDepth: MAX_JSON_DEPTH,

  maxAnswerChars: 100_000,
  maxReportChars: 1_000_000,
  maxArgumentChars: 100_000,
  maxResponseChars: 1_000_000,
  maxQueryChars: 100_000,
  maxErrorChars: 10_000,
  maxNameChars: 256,
  maxIdentifierChars: 256,
  maxKeyChars: 1_024,
  maxTextChars: 100_000,

  maxMetadataBytes: 64 * KiB,
  maxAgentNameChars: 100,
  maxMaintainerChars: 200,
  maxDescriptionChars: 5_000,
  maxModelChars: 200,
  maxModels: 20,
  maxMetadataValueChars: 2_000,

  maxDiagnosticsPerCode: 100,
  maxDiagnostics: 1_000,
});

/** The defaults with the caller's overrides; a negative or non-numeric override is ignored. */
export function resolveLimits(...overrides: (Partial<ValidationLimits> | undefined)[]): ValidationLimits {
  const out: ValidationLimits = { ...defaultValidationLimits };
  for (const o of overrides) {
    if (!o) continue;
    for (const [k, v] of Object.entries(o) as [keyof ValidationLimits, unknown][]) {
      if (k in out && typeof v === "number" && Number.isFinite(v) && v >= 0) out[k] = v;
    }
  }
  return out;
}
