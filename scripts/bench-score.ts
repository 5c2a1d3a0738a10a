/**
 * `npm run bench:score`: the engine's numbers on a synthetic VAKRA-sized bundle
 * (4 capabilities, 62 domains, 5,187 dialogues) and a 10× one.
 *   1. validate (bundle against loaded ground truth) and score (rules judge, recorded
 *      replay), each measured in a fresh child process with its peak RSS;
 *   2. score with the openai judge against a local fake endpoint answering in 50 ms at
 *      concurrency 16, against the ideal wall time calls × 50 ms / 16.
 * Data is generated once under .agentboard/bench/ (fixed seeds).
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { vakraSized, writeAgentBundle, writeSyntheticBenchmark, type SyntheticSpec } from "./synthetic/generate";

const root = path.resolve(".agentboard/bench");
const args = new Set(process.argv.slice(2));
const skipTen = args.has("--no-10x");
const skipJudge = args.has("--no-judge");

async function prepare(name: string, spec: SyntheticSpec) {
  const dir = path.join(root, name);
  const bundle = path.join(dir, "bundle");
  if (!existsSync(path.join(bundle, "metadata.json"))) {
    process.stderr.write(`generating ${name} (${spec.perCapability.reduce((a, b) => a + b, 0)} dialogues)…\n`);
    const bench = await writeSyntheticBenchmark(path.join(dir, "benchmark"), spec);
    await writeAgentBundle(bench, bundle, { name: "bench-agent", accuracy: 0.7, errorRate: 0.02, missRate: 0.01 }, 99);
  }
  return { benchmark: path.join(dir, "benchmark"), bundle };
}

interface Measure {
  loadMs: number;
  validateMs: number;
  scoreMs?: number;
  maxRssMiB: number;
  dialogues: number;
  judgeCalls?: number;
  overall?: number;
}

function measure(mode: string, benchmark: string, bundle: string, extra: string[] = []): Promise<Measure> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", "scripts/bench/measure.ts", mode, benchmark, bundle, ...extra], { stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    child.stdout.on("data", (c) => (out += c));
    child.on("error", reject);
    child.on("close", (code) => (code === 0 ? resolve(JSON.parse(out) as Measure) : reject(new Error(`measure ${mode} exited ${code}`))));
  });
}

const f = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const lines: string[] = [];
const say = (s: string) => {
  lines.push(s);
  process.stdout.write(s + "\n");
};

const one = await prepare("vakra-1x", vakraSized);
const v1 = await measure("validate", one.benchmark, one.bundle);
say(`validate 1× (${v1.dialogues} dialogues): ${f(v1.validateMs)}  [ground truth load ${f(v1.loadMs)}; peak RSS ${v1.maxRssMiB} MiB]   target ≤ 3 s; VAKRA's validator 0.46 s`);
const s1 = await measure("score-rules", one.benchmark, one.bundle);
say(`score 1× rules+recorded: ${f(s1.scoreMs!)} after validate ${f(s1.validateMs)} (overall ${s1.overall!.toFixed(1)}); peak RSS of load+validate+score ${s1.maxRssMiB} MiB   targets ≤ 10 s, ≤ 1024 MiB`);

if (!skipTen) {
  const ten = await prepare("vakra-10x", { ...vakraSized, seed: 8, perCapability: vakraSized.perCapability.map((n) => n * 10) as SyntheticSpec["perCapability"] });
  const v10 = await measure("validate", ten.benchmark, ten.bundle);
  say(`validate 10× (${v10.dialogues} dialogues): ${f(v10.validateMs)}  [ground truth load ${f(v10.loadMs)}; peak RSS ${v10.maxRssMiB} MiB]   VAKRA's validator 3.8 s`);
}

if (!skipJudge) {
  const j = await measure("score-openai", one.benchmark, one.bundle, ["50", "16"]);
  const ideal = (j.judgeCalls! * 50) / 16;
  say(`score 1× openai judge (fake, 50 ms, concurrency 16): ${f(j.scoreMs!)} for ${j.judgeCalls} calls; ideal ${f(ideal)}; ratio ${(j.scoreMs! / ideal).toFixed(3)}   target ≤ 1.25`);
}
