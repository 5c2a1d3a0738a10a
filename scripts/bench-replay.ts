/**
 * `npm run bench:replay`: MCP replay throughput on this machine.
 *   1. From a cold start (no stored ground truth, no running servers): replay and score every
 *      demo sample submission; tool calls per second, per-call p50/p95.
 *   2. A synthetic submission of 5,000 dialogues over the demo domains, ~4 calls each
 *      (clones of the stateless capabilities 2-4 under new uuids), replayed and scored.
 */
import { mkdir, readdir, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { stringify } from "yaml";
import { createRng } from "../lib/aggregate/rng";
import { dialogueCapability, loadBenchmark, type Benchmark } from "../lib/benchmark/load-benchmark";
import type { BenchmarkSpecInput } from "../lib/benchmark/spec";
import { createMcpReplay } from "../lib/replay/mcp-replay";
import { createGrader } from "../lib/judges/judge-settings";
import { scoreBundle } from "../lib/aggregate/score-bundle";
import { DEMO_DIR, demoSpec } from "./demo/build-demo";

const percentile = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(p * s.length))] ?? 0;
};

async function measure(label: string, benchmark: Benchmark, bundles: string[]) {
  const replay = createMcpReplay(benchmark);
  const started = performance.now();
  let dialogues = 0;
  try {
    for (const b of bundles) {
      const run = await scoreBundle(benchmark, b, { grader: createGrader({ kind: "rules", concurrency: 16 }), replay });
      dialogues += run.report.summary.dialogues;
      if (run.kind === "scored") {
        const errors = run.results.items.filter((i) => i.status === "replay_error").length;
        if (errors) throw new Error(`${b}: ${errors} replay errors`);
      }
    }
  } finally {
    await replay.close();
  }
  const seconds = (performance.now() - started) / 1000;
  const s = replay.stats();
  process.stdout.write(
    `${label}: ${bundles.length} bundle(s), ${dialogues} dialogues, ${s.calls} tool calls in ${seconds.toFixed(1)} s ` +
      `(${Math.round(s.calls / seconds)} calls/s; per call p50 ${percentile(s.callLatenciesMs, 0.5).toFixed(2)} ms, p95 ${percentile(s.callLatenciesMs, 0.95).toFixed(2)} ms; ${s.sessionsStarted} server starts)\n`,
  );
  return seconds;
}

const demo = await loadBenchmark(DEMO_DIR);
const bundles = (await readdir(path.join(DEMO_DIR, "submissions"))).sort().map((n) => path.join(DEMO_DIR, "submissions", n));
const t1 = await measure("demo sample submissions, cold start", demo, bundles);
process.stdout.write(`  target ≤ 60 s: ${t1 <= 60 ? "met" : "MISSED"}\n`);

// 2. The synthetic 5,000-dialogue submission.
const root = path.resolve(".agentboard/bench-replay");
await rm(root, { recursive: true, force: true });
const rng = createRng(5000);
const spec = demoSpec();
const serverPath = path.join(DEMO_DIR, "environment/server.ts");
const synthetic: BenchmarkSpecInput = {
  ...spec,
  slug: "demo-synthetic",
  capabilities: spec.capabilities
    .filter((c) => c.id !== "api_chaining")
    .map((c) => ({ ...c, environment: { ...c.environment!, server: { command: process.execPath, args: ["--import", "tsx", serverPath, "--domain", "{domain}", "--capability", "{capability}"], env: {} } } })),
};
await mkdir(root, { recursive: true });
await writeFile(path.join(root, "benchmark.yaml"), stringify(synthetic));
const caps = demo.capabilities.filter((c) => c.spec.id !== "api_chaining").map(dialogueCapability);
const pool = caps.flatMap((c) => [...c.byUuid.values()].map((gt) => ({ cap: c, gt })));
const files = new Map<string, { gt: unknown[]; pred: unknown[] }>();
let calls = 0;
for (let i = 0; i < 5000; i++) {
  const { cap, gt } = pool[Math.floor(rng() * pool.length)]!;
  const uuid = `bench-${String(i).padStart(5, "0")}`;
  const key = `${cap.spec.directory}/${gt.domain}.json`;
  const entry = files.get(key) ?? { gt: [], pred: [] };
  files.set(key, entry);
  entry.gt.push({
    uuid,
    domain: gt.domain,
    additional_instructions: gt.instructions,
    ...(gt.policy ? { policy: gt.policy } : {}),
    output: gt.turns.map((t) => ({ turn_id: t.turnId, query: t.query, answer: t.answer, sequence: { tool_call: t.calls, tool_response: t.responses ?? [] } })),
  });
  const last = gt.turns[gt.turns.length - 1]!;
  // About four calls: the right ones plus the lookups an agent makes while exploring.
  const predCalls = [...last.calls];
  while (predCalls.length < 4) predCalls.unshift({ name: `get_${["ships", "books", "riders"][["harbor", "library", "velodrome"].indexOf(gt.domain)]}_count`, arguments: {} });
  calls += predCalls.length;
  entry.pred.push({ uuid, domain: gt.domain, status: "success", error: "", duration_s: 1, output: [{ turn_id: last.turnId, query: last.query, answer: `The answer is ${JSON.stringify(last.answer)}.`, sequence: { tool_call: predCalls } }] });
}
for (const [key, { gt, pred }] of files) {
  for (const [dir, data] of [["groundtruth", gt], ["bundle", pred]] as const) {
    await mkdir(path.dirname(path.join(root, dir, key)), { recursive: true });
    await writeFile(path.join(root, dir, key), JSON.stringify(data));
  }
}
process.stdout.write(`synthetic submission: 5000 dialogues, ${(calls / 5000).toFixed(2)} predicted calls per dialogue\n`);
const t2 = await measure("synthetic 5,000 dialogues, cold start", await loadBenchmark(root), [path.join(root, "bundle")]);
process.stdout.write(`  target < 300 s: ${t2 < 300 ? "met" : "MISSED"}\n`);
