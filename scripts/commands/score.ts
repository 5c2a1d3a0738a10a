/**
 * `score <bundle> --benchmark <dir>`: validate, replay, waterfall-score, aggregate.
 * Progress on stderr, the capability table on stdout. Exit 0 scored, 1 invalid bundle,
 * 2 usage error, 3 scored but incomplete (judge or replay errors).
 */
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import type { Benchmark } from "../../lib/benchmark/load-benchmark";
import { createNoReplay, createRecordedReplay } from "../../lib/replay/recorded-replay";
import type { ReplayPort } from "../../lib/replay/replay-port";
import { createMemoryGradeCache } from "../../lib/judges/grade-cache";
import { asksNoModel, recordedJudge, type JudgeFlags } from "../../lib/judges/judge-settings";
import { buildVerdictExport } from "../../lib/scoring/verdict-export";
import { isUnjudged } from "../../lib/scoring/item-result";
import { scoreBundle, type ScoreBundleDeps } from "../../lib/aggregate/score-bundle";
import { buildVakraOutputs, renderVakraOutput } from "../../lib/scoring/vakra-output";
import { resolveLayout } from "../../lib/benchmark/ground-truth-layout";
import { renderReportMarkdown } from "../../lib/validate/report";
import { collectGarbage, enableCollector } from "../../lib/validate/heap-bound";
import { trialSubmission } from "../../lib/validate/validate-bundle";
import { agreementRate, type PanelAgreement } from "../../lib/scoring/panel-agreement";
import { renderCapabilityTable } from "./capability-table";
import { CliError, usageError } from "./cli-errors";
import { agentboardVersion } from "./build-info";
import { graderOrFail, judgeSettingsOrFail } from "./judge-options";
import { bundleOrFail, loadBenchmarkOrFail, loadSpecOrFail, replayModeOf, scoreThreads } from "./load";
import { createProgress } from "./progress";
import { limitsOrFail } from "./validate";

export interface ScoreFlags extends JudgeFlags {
  benchmark: string;
  replay?: string;
  replayConcurrency?: string;
  out?: string;
  verdictsOut?: string;
  vakraOut?: string;
  quiet?: boolean;
}

export async function replayFor(mode: "mcp" | "recorded" | "none", benchmark: Benchmark, concurrency?: string): Promise<ReplayPort> {
  if (mode === "recorded") return createRecordedReplay();
  if (mode === "none") return createNoReplay();
  const n = Number(concurrency ?? 16);
  if (!Number.isInteger(n) || n < 1) throw usageError("--replay-concurrency must be a positive integer");
  // The MCP SDK is loaded only for MCP replay.
  const [{ loadGroundTruthStore }, { createMcpReplay }] = await Promise.all([import("../../lib/replay/groundtruth-file"), import("../../lib/replay/mcp-replay")]);
  const { store, note } = await loadGroundTruthStore(benchmark);
  process.stderr.write(`${note}\n`);
  return createMcpReplay(benchmark, { concurrency: n, groundTruth: store });
}

export async function scoreCommand(bundle: string, flags: ScoreFlags): Promise<number> {
  const limits = limitsOrFail();
  await bundleOrFail(bundle);
  const { spec } = await loadSpecOrFail(flags.benchmark);
  const settings = judgeSettingsOrFail({ flags, env: process.env, config: spec.judge });
  const mode = replayModeOf(flags.replay, spec);
  // Offline judging and replay: worker threads score shards from the start, while this thread
  // loads the ground truth and validates (score-threads.ts).
  const threads = asksNoModel(settings) && mode !== "mcp" ? await scoreThreads(flags.benchmark, bundle, settings, mode) : undefined;
  try {
    const benchmark = await loadBenchmarkOrFail(flags.benchmark);
    // The run keeps its ground truth, predictions and results: garbage is collected as it grows
    // past them (heap-bound.ts), and first here, so the ground truth's file texts and parse
    // garbage are gone before the bundle is read (they made the run's peak).
    enableCollector();
    collectGarbage();
    // The verdicts judge finds a run's exported grades by keys salted with the benchmark's content.
    const grader = graderOrFail(settings, { cache: createMemoryGradeCache(), keySalt: benchmark.content?.keySalt ?? "" });
    const replay = await replayFor(mode, benchmark, flags.replayConcurrency);
    try {
      // Only the figures are printed without an output file: each item keeps only what decides them.
      const detail = flags.out || flags.verdictsOut || flags.vakraOut ? "full" : "summary";
      return await scoreAndReport(benchmark, bundle, flags, { grader, detail, judge: { ...recordedJudge(settings), id: grader.id, model: grader.model ?? null }, replay, agentboard: agentboardVersion(), validate: { limits, boundHeap: true }, boundHeap: true, ...(threads ? { threads } : {}), ...(flags.quiet ? {} : { onProgress: createProgress("scoring") }) });
    } finally {
      await replay.close();
    }
  } finally {
    await threads?.close();
  }
}

async function scoreAndReport(benchmark: Benchmark, bundle: string, flags: ScoreFlags, deps: ScoreBundleDeps): Promise<number> {
  const run = await scoreBundle(benchmark, bundle, deps);
  if (run.kind !== "scored") {
    process.stderr.write(renderReportMarkdown(run.report));
    throw new CliError(`bundle is invalid (${run.report.summary.errors} error(s)); nothing was scored`, 1);
  }
  const { results } = run;
  if (flags.out) {
    await mkdir(path.dirname(path.resolve(flags.out)), { recursive: true });
    await writeFile(flags.out, JSON.stringify(results, null, 2) + "\n");
  }
  if (flags.verdictsOut) {
    // Your own run: the private half stays in, as in results.json.
    const verdicts = buildVerdictExport(results, results.items, { includePrivate: true });
    await mkdir(path.dirname(path.resolve(flags.verdictsOut)), { recursive: true });
    await writeFile(flags.verdictsOut, JSON.stringify(verdicts, null, 2) + "\n");
  }
  if (flags.vakraOut) {
    // VAKRA's --gt_root: the folder each capability's ground truth was read from, whichever of
    // VAKRA's layouts the benchmark uses.
    const layout = resolveLayout(flags.benchmark);
    const groundTruthDir = (directory: string) => {
      const folder = layout.folders.get(directory);
      const where = !folder ? `groundtruth/${directory}` : folder.kind === "vakra-sample" ? path.posix.dirname(folder.where) : folder.where;
      return `${flags.benchmark}/${where}`;
    };
    // VAKRA's files describe one run: a bundle of trials gets one folder of them per trial.
    for (let trial = 1; trial <= results.trials; trial++) {
      const dir = results.trials > 1 ? path.join(flags.vakraOut, `trial_${trial}`) : flags.vakraOut;
      await mkdir(dir, { recursive: true });
      const items = results.items.filter((i) => i.trial === trial);
      const outputs = buildVakraOutputs(benchmark, trialSubmission(run.submission, trial), items, { groundTruthDir, bundle });
      for (const o of outputs) await writeFile(path.join(dir, o.file), renderVakraOutput(o.document));
    }
  }
  process.stdout.write(renderCapabilityTable(results));
  // A judge panel's agreement: a note per capability, and how many grades its judges disputed.
  if (results.manifest.panel) process.stderr.write(renderPanelNote(results.manifest.panel, results.capabilities));
  // Integrity flags are a maintainer's to weigh, never a failure of the run: a note each.
  for (const f of results.flags) process.stderr.write(`integrity flag (${f.kind}): ${f.message}\n`);
  const errors = results.items.filter(isUnjudged).length;
  if (errors > 0) {
    process.stderr.write(`warning: ${errors} item(s) could not be judged or replayed; the run is incomplete and cannot be published until rescored\n`);
    return 3;
  }
  if (run.report.summary.warnings > 0) process.stderr.write(`note: the bundle had ${run.report.summary.warnings} validation warning(s); run "validate" to see them\n`);
  return 0;
}

function renderPanelNote(panel: PanelAgreement, capabilities: Record<string, { label: string }>): string {
  const lines = Object.entries(panel.agreement).map(([id, a]) => {
    const rate = agreementRate(a);
    return `judge panel, ${capabilities[id]?.label ?? id}: the judges agreed on ${a.agreed} of ${a.compared} grades${rate === null ? "" : ` (${(rate * 100).toFixed(1)}%)`}\n`;
  });
  return `${lines.join("")}judge panel: ${panel.disputed} disputed grade(s); ${panel.decided} decided by a maintainer\n`;
}
