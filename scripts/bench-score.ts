/**
 * `npm run bench:score [-- --vakra <checkout>] [--runs 5] [--no-10x] [--no-judge] [--compat-only]`:
 * the engine's numbers on a synthetic VAKRA-sized bundle (4 capabilities, 62 domains, 5,187
 * dialogues) and a 10× one. Data is generated once under .agentboard/bench/ (fixed seeds).
 *
 *   1. Whole process, as a user runs it: `./agentboard <command>` in a fresh process (the
 *      launcher at the repository's root, running the bundle built first from the current
 *      source), start-up and ground-truth loading included; median wall time of --runs, peak
 *      RSS from /usr/bin/time. validate's first run builds the ground-truth index (its cache is
 *      deleted first); the others read it. Side by side, VAKRA's own validator
 *      (validate_output.py, run with python3 and pydantic; never copied here) on the same
 *      bundles, from the checkout given by --vakra, else .agentboard/vakra/ (`git clone
 *      https://github.com/IBM/vakra .agentboard/vakra`); without one, or without python3 and
 *      pydantic, the bench says so and goes on.
 *   2. In process: ground-truth load, validate and score (rules judge, recorded replay) timed
 *      inside a fresh child process, without start-up.
 *   3. The openai judge against a local fake endpoint answering in 50 ms at concurrency 16,
 *      against the ideal wall time calls × 50 ms / 16.
 *   4. With VAKRA's source (--vakra), the compat run at VAKRA's cost: `./agentboard score` with
 *      `compat: vakra` and VAKRA's own scorer on the same 5,187 varied dialogues, one stand-in
 *      judge over HTTP for both, CPU seconds and peak memory of each whole process
 *      (bench/compat-run.ts). `--compat-only` measures just that.
 * The load average is printed before and after: figures taken on a busy machine are not its own.
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, readdirSync, rmSync, statSync } from "node:fs";
import { loadavg } from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { buildCli } from "./build-cli";
import { compatRunLines, compatRunMissing, measureCompatRun } from "./bench/compat-run";
import { vakraSized, writeAgentBundle, writeSyntheticBenchmark, type SyntheticSpec } from "./synthetic/generate";

const root = path.resolve(".agentboard/bench");
const USAGE = "usage: npm run bench:score [-- --vakra <checkout>] [--runs 5] [--no-10x] [--no-judge] [--compat-only]\n";
// Strict: a mistyped or unknown flag (--help included) stops here, before minutes of benchmarking.
const args = (() => {
  try {
    return parseArgs({ options: { vakra: { type: "string" }, runs: { type: "string", default: "5" }, "no-10x": { type: "boolean" }, "no-judge": { type: "boolean" }, "compat-only": { type: "boolean" }, help: { type: "boolean", short: "h" } } }).values;
  } catch (err) {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n${USAGE}`);
    process.exit(2);
  }
})();
const runs = Number(args.runs);
if (args.help || !Number.isInteger(runs) || runs < 1) {
  process.stdout.write(USAGE);
  process.exit(args.help ? 0 : 2);
}
const skipTen = args["no-10x"] === true;
const skipJudge = args["no-judge"] === true;
const compatOnly = args["compat-only"] === true;
const REPO = path.resolve(import.meta.dirname, "..");
const AGENTBOARD = path.join(REPO, "agentboard");

const vakraCheckout = path.resolve(args.vakra ?? path.join(REPO, ".agentboard/vakra"));

/** VAKRA's validator to run beside ours, or why it is not run. */
function vakraValidator(): { script: string } | { missing: string } {
  const dir = vakraCheckout;
  const script = path.join(dir, "validate_output.py");
  if (!existsSync(script)) return { missing: `no VAKRA checkout at ${dir} (git clone https://github.com/IBM/vakra ${path.relative(process.cwd(), path.join(REPO, ".agentboard/vakra"))}, or --vakra <checkout>)` };
  const py = spawnSync("python3", ["-c", "import pydantic"], { stdio: "ignore" });
  if (py.error || py.status !== 0) return { missing: `python3 with pydantic is not available (${py.error ? "no python3" : "pip install pydantic"}), which validate_output.py needs` };
  return { script };
}
const vakra = vakraValidator();
const TIME = "/usr/bin/time";
const hasTime = existsSync(TIME);

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

interface Run {
  ms: number;
  /** Peak RSS in MiB, when /usr/bin/time is there to say. */
  rssMiB: number | null;
  code: number | null;
}

/** One fresh process: wall time around it, peak RSS from /usr/bin/time -f %M (KiB). */
function once(command: string, args: string[]): Run {
  const [cmd, cmdArgs] = hasTime ? [TIME, ["-f", "@@rss %M", command, ...args]] : [command, args];
  const started = performance.now();
  const r = spawnSync(cmd, cmdArgs, { encoding: "utf8", stdio: ["ignore", "ignore", "pipe"], maxBuffer: 64 * 1024 ** 2 });
  const ms = performance.now() - started;
  const m = /@@rss (\d+)/.exec(r.stderr ?? "");
  return { ms, rssMiB: m ? Math.round(Number(m[1]) / 1024) : null, code: r.status };
}

/** Bytes of the files under a folder (the bundle, the ground truth). */
function bytesUnder(p: string): number {
  const st = statSync(p);
  if (!st.isDirectory()) return st.size;
  return readdirSync(p).reduce((n, name) => n + bytesUnder(path.join(p, name)), 0);
}
const mb = (bytes: number) => `${(bytes / 1e6).toFixed(0)} MB`;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

function timed(command: string, args: string[], n = runs, okCodes = [0]) {
  const all = Array.from({ length: n }, () => once(command, args));
  const bad = all.find((r) => !okCodes.includes(r.code ?? -1));
  if (bad) throw new Error(`${command} ${args.join(" ")} exited ${bad.code}`);
  const rss = all.map((r) => r.rssMiB).filter((x): x is number => x !== null);
  return { ms: median(all.map((r) => r.ms)), min: Math.min(...all.map((r) => r.ms)), max: Math.max(...all.map((r) => r.ms)), rssMiB: rss.length ? Math.max(...rss) : null };
}

const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const mib = (x: number | null) => (x === null ? "RSS n/a" : `${x} MiB`);
const verdict = (ok: boolean) => (ok ? "met" : "NOT met");
const say = (line: string) => process.stdout.write(`${line}\n`);
const load = () => loadavg().map((x) => x.toFixed(2)).join(", ");

say(`load average before: ${load()} (${process.arch}, Node ${process.versions.node})`);

/** Section 4: the compat run beside VAKRA's, or why not. */
async function compatRun() {
  say("\n== the compat run at VAKRA's cost");
  const missing = compatRunMissing(vakraCheckout);
  if (missing) return say(`not run: ${missing} (--vakra <checkout>)`);
  say(`load average: ${load()}`);
  const figures = await measureCompatRun({ dir: path.join(root, "vakra-compat"), repo: REPO, agentboard: AGENTBOARD, vakra: vakraCheckout, runs });
  for (const line of compatRunLines(figures)) say(line);
  say(`load average: ${load()}`);
}
if (compatOnly) {
  const built = await buildCli();
  say(`CLI bundle ${built.id} built in ${built.ms} ms`);
  await compatRun();
  say(`\nload average after: ${load()}`);
  process.exit(0);
}

const one = await prepare("vakra-1x", vakraSized);
const ten = skipTen ? undefined : await prepare("vakra-10x", { ...vakraSized, seed: 8, perCapability: vakraSized.perCapability.map((n) => n * 10) as SyntheticSpec["perCapability"] });
const built = await buildCli();
say(`CLI bundle ${built.id} built in ${built.ms} ms; each figure is the median of ${runs} fresh processes (./agentboard …)`);
say("script" in vakra ? `VAKRA's validator: ${vakra.script}` : `VAKRA's validate_output.py is not run: ${vakra.missing}`);

say("\n== whole process");
for (const args of [["--help"], ["--version"]]) {
  const r = timed(AGENTBOARD, args);
  say(`agentboard ${args[0]}: ${s(r.ms)} [${s(r.min)}–${s(r.max)}], ${mib(r.rssMiB)}   target ≤ 0.15 s: ${verdict(r.ms <= 150)}`);
}
const npx = timed("npx", ["agentboard", "--version"], Math.min(runs, 3));
say(`npx agentboard --version (npm's own start-up included): ${s(npx.ms)}`);

const validateTargets: Record<string, { ms: number; rss?: number }> = {
  "vakra-1x": { ms: 310 },
  "vakra-10x": { ms: 1000, rss: 200 },
};
for (const [name, data] of [["vakra-1x", one], ["vakra-10x", ten]] as const) {
  if (!data) continue;
  const args = ["validate", data.bundle, "--benchmark", data.benchmark];
  rmSync(path.join(data.benchmark, ".agentboard-cache"), { recursive: true, force: true });
  const first = timed(AGENTBOARD, args, 1);
  const r = timed(AGENTBOARD, args);
  const t = validateTargets[name]!;
  say(
    `validate ${name} (bundle ${mb(bytesUnder(data.bundle))}; ground truth ${mb(bytesUnder(path.join(data.benchmark, "groundtruth")))}): ${s(r.ms)} [${s(r.min)}–${s(r.max)}], ${mib(r.rssMiB)}; first run (index built, ground truth parsed) ${s(first.ms)}, ${mib(first.rssMiB)}` +
      `   target ≤ ${s(t.ms)}${t.rss ? ` and ≤ ${t.rss} MiB` : ""}: ${verdict(r.ms <= t.ms && (!t.rss || (r.rssMiB ?? 0) <= t.rss))}`,
  );
  // What VAKRA's validator checks (no ground truth): the like-for-like figure.
  const alone = timed(AGENTBOARD, ["validate", data.bundle], runs, [0, 1]);
  say(`validate ${name} without --benchmark (VAKRA's checks): ${s(alone.ms)} [${s(alone.min)}–${s(alone.max)}], ${mib(alone.rssMiB)}`);
  if ("script" in vakra) {
    const v = timed("python3", [vakra.script, "--all", "--output-dir", data.bundle], runs, [0, 1]);
    say(`  VAKRA validate_output.py ${name}, same bundle: ${s(v.ms)} [${s(v.min)}–${s(v.max)}], ${mib(v.rssMiB)}; Agentboard/VAKRA ${(alone.ms / v.ms).toFixed(2)}× without ground truth, ${(r.ms / v.ms).toFixed(2)}× with it   target ≤ 1.00×: ${verdict(alone.ms <= v.ms)} without, ${verdict(r.ms <= v.ms)} with`);
  } else say(`  VAKRA validate_output.py ${name}: not run (see above)`);
}
{
  const args = ["score", one.bundle, "--benchmark", one.benchmark, "--judge", "rules", "--replay", "recorded", "--quiet"];
  const r = timed(AGENTBOARD, args);
  say(`score vakra-1x (rules judge, recorded replay): ${s(r.ms)} [${s(r.min)}–${s(r.max)}], ${mib(r.rssMiB)}   target ≤ 1.50 s: ${verdict(r.ms <= 1500)}`);
  if (ten) {
    const r10 = timed(AGENTBOARD, ["score", ten.bundle, "--benchmark", ten.benchmark, "--judge", "rules", "--replay", "recorded", "--quiet"], Math.min(runs, 3));
    say(`score vakra-10x (rules judge, recorded replay, worker threads): ${s(r10.ms)} [${s(r10.min)}–${s(r10.max)}], ${mib(r10.rssMiB)}`);
    const single = timed("env", ["AGENTBOARD_THREADS=1", AGENTBOARD, "score", ten.bundle, "--benchmark", ten.benchmark, "--judge", "rules", "--replay", "recorded", "--quiet"], Math.min(runs, 3));
    say(`  the same on this thread alone (AGENTBOARD_THREADS=1): ${s(single.ms)} [${s(single.min)}–${s(single.max)}], ${mib(single.rssMiB)}; threads ${((1 - r10.ms / single.ms) * 100).toFixed(0)}% faster`);
  }
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

say("\n== in process (after start-up; one run each)");
const v1 = await measure("validate", one.benchmark, one.bundle);
say(`validate 1× (${v1.dialogues} dialogues): ${s(v1.validateMs)} after loading the whole ground truth in ${s(v1.loadMs)}; peak RSS ${v1.maxRssMiB} MiB`);
const s1 = await measure("score-rules", one.benchmark, one.bundle);
say(`score 1× rules+recorded: ${s(s1.scoreMs!)} after validate ${s(s1.validateMs)} (overall ${s1.overall!.toFixed(1)}); peak RSS of load+validate+score ${s1.maxRssMiB} MiB   targets ≤ 10 s, ≤ 1024 MiB`);
if (ten) {
  const v10 = await measure("validate", ten.benchmark, ten.bundle);
  say(`validate 10× (${v10.dialogues} dialogues): ${s(v10.validateMs)} after loading the whole ground truth in ${s(v10.loadMs)}; peak RSS ${v10.maxRssMiB} MiB`);
}
if (!skipJudge) {
  const j = await measure("score-openai", one.benchmark, one.bundle, ["50", "16"]);
  const ideal = (j.judgeCalls! * 50) / 16;
  say(`score 1× openai judge (fake, 50 ms, concurrency 16): ${s(j.scoreMs!)} for ${j.judgeCalls} calls; ideal ${s(ideal)}; ratio ${(j.scoreMs! / ideal).toFixed(3)}   target ≤ 1.25`);
}
await compatRun();
say(`\nload average after: ${load()}`);
