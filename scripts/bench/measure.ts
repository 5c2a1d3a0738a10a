/**
 * One measurement in a fresh process, so peak RSS belongs to the work measured:
 * `measure.ts <validate|score-rules|score-openai> <benchmark> <bundle> [delayMs concurrency]`.
 * Prints one JSON object on stdout.
 */
import { loadBenchmark } from "../../lib/benchmark/load-benchmark";
import { createRecordedReplay } from "../../lib/replay/recorded-replay";
import { createGrader } from "../../lib/judges/judge-settings";
import { scoreBundle } from "../../lib/aggregate/score-bundle";
import { validateBundle } from "../../lib/validate/validate-bundle";
import { startFakeJudge } from "./fake-judge";

const [mode, benchmarkDir, bundle, delay, concurrency] = process.argv.slice(2) as [string, string, string, string?, string?];
let t = performance.now();
const lap = () => {
  const now = performance.now();
  const ms = now - t;
  t = now;
  return Math.round(ms);
};

const benchmark = await loadBenchmark(benchmarkDir);
const loadMs = lap();
const { report, submission } = await validateBundle(bundle, benchmark);
const validateMs = lap();
if (!report.valid || !submission) throw new Error(`bench bundle is invalid: ${JSON.stringify(report.errors.slice(0, 3))}`);
const out: Record<string, number> = { loadMs, validateMs, dialogues: report.summary.dialogues };

if (mode !== "validate") {
  const server = mode === "score-openai" ? await startFakeJudge(Number(delay ?? 50)) : undefined;
  const grader = createGrader(server ? { kind: "openai", baseUrl: server.url, model: "fake-judge", concurrency: Number(concurrency ?? 16) } : { kind: "rules", concurrency: 16 });
  lap();
  // The engine's entry point, as `score` runs it: validation included.
  const run = await scoreBundle(benchmark, bundle, { grader, replay: createRecordedReplay() });
  out.scoreMs = lap();
  if (run.kind !== "scored") throw new Error("bench bundle did not score");
  out.overall = run.results.overall.score;
  if (server) {
    out.judgeCalls = await server.served();
    await server.close();
  }
}
out.maxRssMiB = Math.round(process.resourceUsage().maxRSS / 1024);
process.stdout.write(JSON.stringify(out));
