/**
 * `validate <bundle> [--benchmark <dir>] [--json] [--out report.json] [--no-cache]`: exit 0
 * valid, 1 invalid, 2 usage. Without `--benchmark`, the checks that need no ground truth (what
 * VAKRA's validate_output.py checks; validate-without-benchmark.ts). The budgets of the
 * bundle's total work come from the environment (AGENTBOARD_VALIDATE_MAX_ERRORS,
 * AGENTBOARD_VALIDATE_MAX_RECORDS; limit-settings.ts).
 */
import { writeFile } from "node:fs/promises";
import { enableCollector } from "../../lib/validate/heap-bound";
import { LimitSettingsError, validationLimitsFromEnv } from "../../lib/validate/limit-settings";
import type { ValidationLimits } from "../../lib/validate/limits";
import { renderReportMarkdown } from "../../lib/validate/report";
import { validateBundle } from "../../lib/validate/validate-bundle";
import { renderOutputsCheckMarkdown, validateWithoutBenchmark } from "../../lib/validate/validate-without-benchmark";
import { usageError } from "./cli-errors";
import { bundleOrFail, fileThreads, loadIndexOrFail } from "./load";

export interface ValidateFlags {
  benchmark?: string;
  json?: boolean;
  out?: string;
  /** false with --no-cache: read the whole ground truth. */
  cache?: boolean;
}

/** The environment's validation limits; a wrong one is a usage error (exit 2) before any work. */
export function limitsOrFail(env: NodeJS.ProcessEnv = process.env): Partial<ValidationLimits> {
  try {
    return validationLimitsFromEnv(env);
  } catch (err) {
    throw err instanceof LimitSettingsError ? usageError(err.message) : err;
  }
}

export async function validateCommand(bundle: string, flags: ValidateFlags): Promise<number> {
  const limits = limitsOrFail();
  await bundleOrFail(bundle);
  if (flags.benchmark === undefined) {
    const report = await validateWithoutBenchmark(bundle, { limits });
    return emit(report, renderOutputsCheckMarkdown(report), flags);
  }
  const { index, note } = await loadIndexOrFail(flags.benchmark, flags.cache !== false);
  if (note) process.stderr.write(`note: ${note}\n`);
  // Only the report is needed: predictions are not kept, and the heap is collected between
  // files once it grows, so memory follows the largest file.
  enableCollector();
  const { report } = await validateBundle(bundle, index, { limits, keepPredictions: false, boundHeap: true, threads: fileThreads() });
  return emit(report, renderReportMarkdown(report), flags);
}

/** Prints the report (markdown, or JSON with --json), writes it to --out; the exit code is its verdict. */
async function emit(report: { valid: boolean }, markdown: string, flags: ValidateFlags): Promise<number> {
  const json = JSON.stringify(report, null, 2);
  if (flags.out) await writeFile(flags.out, json + "\n");
  process.stdout.write(flags.json ? json + "\n" : markdown);
  return report.valid ? 0 : 1;
}
