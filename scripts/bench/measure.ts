/**
 * One measurement in a fresh process, so peak RSS belongs to the work measured:
 * `measure.ts <validate|score-rules|score-openai> <benchmark> <bundle> [delayMs concurrency]`.
 * Prints one JSON object on stdout.
 */
import { loadBenchmark } from "../../lib/benchmark/load-benchmark";
import { createRecordedReplay } from "../../lib/replay/recorded-replay";
import { createOpenAiJudge } from "../../lib/scoring/judges/openai-judge";
import { createRulesJudge } from "../../lib/scoring/judges/rules-judge";
import { scoreSubmission } from "../../lib/scoring/score-submission";
import { buildResults } from "../../lib/scoring/score-results";
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
  const judge = server ? createOpenAiJudge({ baseUrl: server.url, model: "fake-judge", concurrency: Number(concurrency ?? 16) }) : createRulesJudge();
  lap();
  const items = await scoreSubmission(benchmark, submission, { judge, replay: createRecordedReplay() });
  const results = buildResults(benchmark, submission, items, { judgeId: judge.id, replay: "recorded", verified: false, createdAt: new Date() });
  out.scoreMs = lap();
  out.overall = results.overall.score;
  if (server) {
    out.judgeCalls = await server.served();
    await server.close();
  }
}
out.maxRssMiB = Math.round(process.resourceUsage().maxRSS / 1024);
process.stdout.write(JSON.stringify(out));
