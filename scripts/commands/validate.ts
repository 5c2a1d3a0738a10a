/** `validate <bundle> --benchmark <dir> [--json] [--out report.json] [--no-cache]`: exit 0 valid, 1 invalid, 2 usage. */
import { writeFile } from "node:fs/promises";
import { enableCollector } from "../../lib/validate/heap-bound";
import { renderReportMarkdown } from "../../lib/validate/report";
import { validateBundle } from "../../lib/validate/validate-bundle";
import { bundleOrFail, fileThreads, loadIndexOrFail } from "./load";

export interface ValidateFlags {
  benchmark: string;
  json?: boolean;
  out?: string;
  /** false with --no-cache: read the whole ground truth. */
  cache?: boolean;
}

export async function validateCommand(bundle: string, flags: ValidateFlags): Promise<number> {
  await bundleOrFail(bundle);
  const { index, note } = await loadIndexOrFail(flags.benchmark, flags.cache !== false);
  if (note) process.stderr.write(`note: ${note}\n`);
  // Only the report is needed: predictions are not kept, and the heap is collected between
  // files once it grows, so memory follows the largest file.
  enableCollector();
  const { report } = await validateBundle(bundle, index, { keepPredictions: false, boundHeap: true, threads: fileThreads() });
  const json = JSON.stringify(report, null, 2);
  if (flags.out) await writeFile(flags.out, json + "\n");
  process.stdout.write(flags.json ? json + "\n" : renderReportMarkdown(report));
  return report.valid ? 0 : 1;
}
