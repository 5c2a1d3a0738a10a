/** `validate <bundle> --benchmark <dir> [--json] [--out report.json]`: exit 0 valid, 1 invalid, 2 usage. */
import { writeFile } from "node:fs/promises";
import { loadBenchmarkOrFail } from "./load";
import { renderReportMarkdown } from "../../lib/validate/report";
import { validateBundle } from "../../lib/validate/validate-bundle";

export interface ValidateFlags {
  benchmark: string;
  json?: boolean;
  out?: string;
}

export async function validateCommand(bundle: string, flags: ValidateFlags): Promise<number> {
  const benchmark = await loadBenchmarkOrFail(flags.benchmark);
  const { report } = await validateBundle(bundle, benchmark);
  const json = JSON.stringify(report, null, 2);
  if (flags.out) await writeFile(flags.out, json + "\n");
  process.stdout.write(flags.json ? json + "\n" : renderReportMarkdown(report));
  return report.valid ? 0 : 1;
}
