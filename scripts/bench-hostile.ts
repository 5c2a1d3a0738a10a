/**
 * `npm run bench:hostile`: wall time and peak RSS of `validate` on the hostile bundles of
 * issues 12 and 26, each in a fresh process (the CLI, as a submitter or the worker would run
 * it), against the target of ≤ 10 s and ≤ 256 MiB each, the whole process. Unit tests check the behaviour
 * (test/unit/validate/hostile-bundles.test.ts); this prints the numbers. Bundles are written
 * to a temp dir and removed afterwards; peak RSS is read from `/usr/bin/time -v` when it
 * exists, else from `process.resourceUsage()` in a preloaded exit hook.
 *
 *   1. 340,000 empty records in one file: as a ~1 KB ZIP (refused by its ratio), as a folder
 *      (refused by the records limit before parsing), and as a folder with maxRecordsPerFile
 *      raised past 340,000 so every record is read and diagnosed (the linear path);
 *   2. a valid demo bundle whose answer is one 400 MB string (a folder);
 *   3. metadata.json nested 6,000 levels;
 *   4. a high-ratio ZIP: 2,000 entries of 1 MiB at ~1000:1; and a ~13.5 MB ZIP whose one entry
 *      declares 1.9 GiB (~147:1);
 *   5. (issue 26) small bundles whose every file is within its limits: a ~186 KB ZIP of 32
 *      trials × 12 files × 99,999 `{}` (38.4 M errors: the error budget stops it), and a
 *      ~400 KB ZIP of 850 files of unknown domains, each 99,999 `{}` (refused by name, unread).
 */
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { closeSync, cpSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync, writeSync } from "node:fs";
import { cpus, loadavg, tmpdir, totalmem } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { buildCli } from "./build-cli";
import { writeTrialsOfEmptyRecords, writeUnknownDomainFiles } from "../test/helpers/hostile-shapes";
import { deflateOnce, writeZip } from "../test/helpers/zip-writer";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const BENCHMARK = "benchmarks/demo";
const DEMO = path.join(ROOT, BENCHMARK, "submissions/strong-agent");
const CAP1 = "capability_1_bi_apis";
const TARGET_S = 10;
const TARGET_MIB = 256;
const MiB = 1024 ** 2;

interface Row {
  name: string;
  seconds: number;
  peakMiB: number;
  exit: number | null;
  verdict: string;
}

/** Child mode: validate in process as the worker does (predictions kept), with the given limits (the CLI takes no limit flags). */
async function childValidate(bundle: string, limitsJson: string): Promise<void> {
  const { loadBenchmark } = await import("../lib/benchmark/load-benchmark");
  const { validateBundle } = await import("../lib/validate/validate-bundle");
  const benchmark = await loadBenchmark(path.join(ROOT, BENCHMARK));
  const { report } = await validateBundle(bundle, benchmark, { limits: JSON.parse(limitsJson) });
  process.stdout.write(JSON.stringify(report) + "\n");
  process.exitCode = report.valid ? 0 : 1;
}

function writeBundles(dir: string): { name: string; args: string[] }[] {
  const cli = (bundle: string) => ["--import", "tsx", path.join(ROOT, "scripts/cli.ts"), "validate", bundle, "--benchmark", path.join(ROOT, BENCHMARK), "--json"];
  const out: { name: string; args: string[] }[] = [];

  const empty = path.join(dir, "empty-records.zip");
  writeZip(empty, [{ name: `${CAP1}/harbor.json`, data: `[${Array(340_000).fill("{}").join(",")}]` }]);
  out.push({ name: "340,000 empty records (ZIP, as filed)", args: cli(empty) });
  // The same file in a folder, where no compression ratio stops it first.
  const emptyDir = path.join(dir, "empty-records");
  mkdirSync(path.join(emptyDir, CAP1), { recursive: true });
  writeFileSync(path.join(emptyDir, CAP1, "harbor.json"), `[${Array(340_000).fill("{}").join(",")}]`);
  out.push({ name: "340,000 empty records (folder)", args: cli(emptyDir) });
  out.push({
    name: "340,000 empty records (folder), maxRecordsPerFile 1e6",
    args: ["--import", "tsx", fileURLToPath(import.meta.url), "--child", emptyDir, JSON.stringify({ maxRecordsPerFile: 1_000_000 })],
  });

  // A valid bundle (the demo's strong agent) whose first answer is one 400 MB string.
  const big = path.join(dir, "big-answer");
  cpSync(DEMO, big, { recursive: true });
  const file = path.join(big, CAP1, "harbor.json");
  const records = JSON.parse(readFileSync(file, "utf8")) as { output: { answer: unknown }[] }[];
  records[0]!.output.at(-1)!.answer = "\u0000BIG\u0000";
  const [head, tail] = JSON.stringify(records).split("\\u0000BIG\\u0000");
  const fd = openSync(file, "w");
  writeSync(fd, head!);
  const chunk = Buffer.alloc(8 * MiB, "a");
  for (let i = 0; i < 50; i++) writeSync(fd, chunk);
  writeSync(fd, tail!);
  closeSync(fd);
  out.push({ name: "400 MB answer string (folder)", args: cli(big) });

  const deep = path.join(dir, "deep-metadata");
  mkdirSync(path.join(deep, CAP1), { recursive: true });
  cpSync(path.join(DEMO, CAP1, "harbor.json"), path.join(deep, CAP1, "harbor.json"));
  writeFileSync(path.join(deep, "metadata.json"), `${'{"a":'.repeat(6_000)}1${"}".repeat(6_000)}`);
  out.push({ name: "metadata nested 6,000 levels", args: cli(deep) });

  const ratio = path.join(dir, "high-ratio.zip");
  const bomb = deflateOnce(Buffer.alloc(MiB));
  writeZip(ratio, Array.from({ length: 2_000 }, (_, i) => ({ name: `${CAP1}/d${i}.json`, deflated: bomb })));
  out.push({ name: "2,000 × 1 MiB entries at ~1000:1 (ZIP)", args: cli(ratio) });

  const huge = path.join(dir, "huge-entry.zip");
  writeZip(huge, [{ name: `${CAP1}/harbor.json`, data: randomBytes(13.5 * 1e6), declaredSize: Math.round(1.9 * 1024 ** 3) }]);
  out.push({ name: "one 1.9 GiB entry at ~147:1 (13.5 MB ZIP)", args: cli(huge) });

  // Issue 26: small bundles that held the worker, by total work rather than any one file.
  const capabilities = [CAP1, "capability_2_dashboard_apis", "capability_3_multihop_reasoning", "capability_4_multiturn"];
  const trials = path.join(dir, "trials-of-empty-records.zip");
  const trialsBytes = writeTrialsOfEmptyRecords(trials, { trials: 32, capabilities, domains: ["harbor", "library", "velodrome"], records: 99_999 });
  out.push({ name: `32 trials × 12 files × 99,999 {} (${kb(trialsBytes.length)} ZIP)`, args: cli(trials) });
  // As `./agentboard` runs it: the built CLI, whose outputs files (115 MB here) are checked on worker threads.
  out.push({ name: "the same, the built CLI (worker threads)", args: [path.join(dir, "cli/cli.mjs"), ...cli(trials).slice(3)] });
  // The worker validates in process and keeps the predictions for scoring (the child mode, no overrides).
  out.push({ name: "the same, as the worker validates (predictions kept)", args: ["--import", "tsx", fileURLToPath(import.meta.url), "--child", trials, "{}"] });
  const unknown = path.join(dir, "unknown-domains.zip");
  const unknownBytes = writeUnknownDomainFiles(unknown, { capabilities, files: 850, records: 99_999 });
  out.push({ name: `850 unknown-domain files × 99,999 {} (${kb(unknownBytes.length)} ZIP)`, args: cli(unknown) });
  return out;
}

const kb = (bytes: number) => `${Math.round(bytes / 1000)} KB`;

function measure(name: string, args: string[], dir: string): Row {
  const useTime = existsSync("/usr/bin/time");
  const rusage = path.join(dir, "rusage.json");
  const hook = path.join(dir, "rusage-hook.mjs");
  writeFileSync(hook, `import { writeFileSync } from "node:fs";\nprocess.on("exit", () => writeFileSync(${JSON.stringify(rusage)}, JSON.stringify(process.resourceUsage())));\n`);
  const nodeArgs = useTime ? args : ["--import", hook, ...args];
  const t = performance.now();
  const r = useTime
    ? spawnSync("/usr/bin/time", ["-v", process.execPath, ...nodeArgs], { cwd: ROOT, maxBuffer: 64 * MiB, encoding: "utf8" })
    : spawnSync(process.execPath, nodeArgs, { cwd: ROOT, maxBuffer: 64 * MiB, encoding: "utf8" });
  const seconds = (performance.now() - t) / 1000;
  let peakKiB = 0;
  if (useTime) peakKiB = Number(/Maximum resident set size \(kbytes\): (\d+)/.exec(r.stderr)?.[1] ?? 0);
  else if (existsSync(rusage)) peakKiB = (JSON.parse(readFileSync(rusage, "utf8")) as { maxRSS: number }).maxRSS;
  let verdict = "no report";
  try {
    const report = JSON.parse(r.stdout) as { valid: boolean; summary: { errors: number }; errorCounts: Record<string, number> };
    const codes = Object.entries(report.errorCounts).map(([c, n]) => `${c}×${n}`).join(", ");
    verdict = report.valid ? "valid" : `invalid: ${codes}`;
  } catch {
    verdict = `no report (${r.stderr.trim().split("\n").slice(-3).join(" | ").slice(0, 200)})`;
  }
  return { name, seconds, peakMiB: peakKiB / 1024, exit: r.status, verdict };
}

async function main(): Promise<void> {
  if (process.argv[2] === "--child") return childValidate(process.argv[3]!, process.argv[4]!);
  const dir = mkdtempSync(path.join(tmpdir(), "agentboard-bench-hostile-"));
  // Other work on the machine slows every row: the load average before says how busy it was.
  const load = loadavg().map((x) => x.toFixed(2)).join(", ");
  try {
    // The built CLI row runs a bundle built here from the current source (dist/cli may be stale).
    await buildCli(path.join(dir, "cli"));
    process.stderr.write(`writing hostile bundles to ${dir}…\n`);
    const bundles = writeBundles(dir);
    const rows: Row[] = [];
    for (const b of bundles) {
      process.stderr.write(`validating: ${b.name}…\n`);
      rows.push(measure(b.name, b.args, dir));
    }
    console.log(`bench:hostile ${new Date().toISOString()} · node ${process.version} · ${cpus().length} × ${cpus()[0]?.model ?? "cpu"} · ${(totalmem() / 1024 ** 3).toFixed(1)} GiB · load average before: ${load}`);
    console.log(`target: each ≤ ${TARGET_S} s and ≤ ${TARGET_MIB} MiB peak RSS (whole process)\n`);
    const w = Math.max(...rows.map((r) => r.name.length));
    for (const r of rows) {
      const ok = r.seconds <= TARGET_S && r.peakMiB > 0 && r.peakMiB <= TARGET_MIB && r.verdict !== "no report";
      console.log(`${ok ? "ok  " : "FAIL"} ${r.name.padEnd(w)}  ${r.seconds.toFixed(2).padStart(6)} s  ${r.peakMiB.toFixed(0).padStart(5)} MiB  exit ${r.exit}  ${r.verdict}`);
    }
    if (rows.some((r) => !(r.seconds <= TARGET_S && r.peakMiB > 0 && r.peakMiB <= TARGET_MIB && r.verdict !== "no report"))) process.exitCode = 1;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
