/** The hand-written mini benchmark and bundles, and a clock that ticks a second per call. */
import { cpSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";

const repo = path.resolve(import.meta.dirname, "../..");
export const MINI_BENCHMARK = path.join(repo, "test/fixtures/mini-benchmark");
export const GOOD_BUNDLE = path.join(repo, "test/fixtures/mini-bundles/good");
export const INVALID_BUNDLE = path.join(repo, "test/fixtures/mini-bundles/invalid");

export function tickingClock(start = Date.UTC(2026, 10, 22)): () => Date {
  let n = 0;
  return () => new Date(start + n++ * 1000);
}

/** A copy of the good bundle in `dir` under another agent name: a new sha256, so a new submission. */
export function renamedGoodBundle(dir: string, agent: string): string {
  cpSync(GOOD_BUNDLE, dir, { recursive: true });
  writeFileSync(path.join(dir, "output/metadata.json"), JSON.stringify({ agent_name: agent, models: ["m"] }));
  return dir;
}

/** A copy of the good bundle in `dir` with `plant` appended to every answer of its two judged capabilities. */
export function plantedGoodBundle(dir: string, plant: string): string {
  cpSync(GOOD_BUNDLE, dir, { recursive: true });
  for (const f of ["output/capability_2_dashboard_apis/harbor.json", "output/capability_4_multiturn/harbor.json"]) {
    const file = path.join(dir, f);
    const records = JSON.parse(readFileSync(file, "utf8")) as { output: { answer: string }[] }[];
    for (const r of records) for (const turn of r.output) turn.answer += plant;
    writeFileSync(file, JSON.stringify(records));
  }
  return dir;
}
