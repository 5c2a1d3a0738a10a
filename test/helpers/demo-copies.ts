/**
 * Copies of the demo's sample bundles for the integrity flags: one resubmitted under another
 * name (the same outputs, new metadata), and one with the demo's canary planted in an answer.
 */
import { cpSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { DEMO_CANARY, DEMO_DIR } from "@/scripts/demo/build-demo";

/** `agent`'s bundle copied to `dir` with new metadata: what a submitter reusing another's outputs sends. */
export function resubmitted(dir: string, agent: string, metadata: Record<string, unknown>): string {
  cpSync(path.join(DEMO_DIR, "submissions", agent), dir, { recursive: true });
  writeFileSync(path.join(dir, "metadata.json"), JSON.stringify(metadata, null, 2));
  return dir;
}

/**
 * `agent`'s bundle copied to `dir` with the demo's canary (upper-cased, its spaces doubled)
 * planted in the first answer of `capability_dir/harbor.json`; returns the bundle and that item's uuid.
 */
export function withCanary(dir: string, agent: string, capabilityDir = "capability_2_dashboard_apis"): { bundle: string; uuid: string } {
  cpSync(path.join(DEMO_DIR, "submissions", agent), dir, { recursive: true });
  const file = path.join(dir, capabilityDir, "harbor.json");
  const records = JSON.parse(readFileSync(file, "utf8")) as { uuid: string; output: { answer: unknown }[] }[];
  const record = records.find((r) => r.output.length > 0)!;
  record.output.at(-1)!.answer = `${String(record.output.at(-1)!.answer)} (${DEMO_CANARY.toUpperCase().replace(/ /g, "  ")})`;
  writeFileSync(file, JSON.stringify(records, null, 2));
  const meta = path.join(dir, "metadata.json");
  writeFileSync(meta, JSON.stringify({ ...JSON.parse(readFileSync(meta, "utf8")), agent_name: `${agent}-canary` }, null, 2));
  return { bundle: dir, uuid: record.uuid };
}
