/**
 * `eval --config <eval.yaml | NAT agent config> [--only qa,trajectory] [--output <dir>]`:
 * NVIDIA-style evaluators (QA, trajectory, report) over a dataset and the agent's outputs
 * (NAT's workflow_output.json). DATASET_FILTER is read as VSS reads it; `--only` is the same
 * as a flag. Writes `<evaluator>_output.json`, `latency_summary.json`, `workflow_output.json`
 * and `config_effective.yml`; prints a table on stdout and progress on stderr. Exit 0 all
 * evaluated, 1 invalid config or dataset, 2 usage error, 3 evaluated but some items are errors.
 */
import { mkdir, readFile, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { stringify as stringifyYaml } from "yaml";
import { formatDiagnostic } from "../../lib/formats/diagnostic";
import { loadEvalConfig, withCompat, type EvalConfig, type JudgeConfig } from "../../lib/formats/eval-config";
import { loadEvalDataset } from "../../lib/formats/eval-load";
import { createChatClient, type ChatClient } from "../../lib/judges/chat-client";
import { createMemoryGradeCache } from "../../lib/judges/grade-cache";
import type { Grader } from "../../lib/judges/grader";
import { chatOptions, createGrader, isDeterministicJudge, type JudgeFlags } from "../../lib/judges/judge-settings";
import { evaluatorOutputDocument, evaluatorOutputFile, latencySummaryDocument, workflowOutputDocument } from "../../lib/evaluators/eval-output";
import { buildEvaluators, reportMethodIds, reportStores } from "../../lib/evaluators/from-config";
import { parseOnlyOption, unroutedMethods } from "../../lib/evaluators/routing";
import { runEvaluation, selectByKinds, type EvalRun } from "../../lib/evaluators/run-evaluation";
import { CliError, usageError } from "./cli-errors";
import { judgeSettingsOrFail } from "./judge-options";
import { createProgress } from "./progress";

export interface EvalFlags {
  config: string;
  only?: string;
  output?: string;
  quiet?: boolean;
  /** NAT's workflow_output.json (or any outputs file): the agent's answers and trajectories. */
  workflowOutput?: string;
  compat?: string;
}

/** A path as the user would type it: relative below the working directory, absolute elsewhere. */
const rel = (p: string) => {
  const r = path.relative(process.cwd(), p);
  return r === "" ? "." : r.startsWith("..") || path.isAbsolute(r) ? p : r;
};

export async function evalCommand(flags: EvalFlags, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const only = flags.only !== undefined ? parseOnlyOption(flags.only) : parseOnlyOption(env.DATASET_FILTER, "DATASET_FILTER");
  if (!only.ok) throw usageError(only.error);
  if (flags.only !== undefined && env.DATASET_FILTER !== undefined && env.DATASET_FILTER.trim() !== "" && env.DATASET_FILTER.trim().toLowerCase() !== flags.only.trim().toLowerCase()) {
    process.stderr.write(`warning: --only ${flags.only} is used; DATASET_FILTER=${env.DATASET_FILTER} is ignored\n`);
  }
  if (flags.compat !== undefined && flags.compat !== "nat" && flags.compat !== "none") throw usageError(`--compat: expected "nat" or "none", got "${flags.compat}"`);
  const cwd = process.cwd();
  const configFile = path.resolve(cwd, flags.config);
  await stat(configFile).catch((e: NodeJS.ErrnoException) => {
    throw usageError(`--config ${flags.config}: ${e.code === "ENOENT" ? "no such file" : e.message}`);
  });
  // Paths come back absolute: a NAT config's from the working directory, eval.yaml's from its folder.
  const parsed = await loadEvalConfig(configFile, { env, cwd, displayName: rel });
  if (!parsed.ok) throw new CliError(`invalid config:\n  ${parsed.errors.join("\n  ")}`, 1);
  for (const k of parsed.ignored) process.stderr.write(`note: ${rel(configFile)}: ${k} is NAT's and means nothing offline; ignored\n`);
  if (parsed.unsetIgnored.length) {
    const names = parsed.unsetIgnored.slice(0, 20).join(", ") + (parsed.unsetIgnored.length > 20 ? ", …" : "");
    process.stderr.write(`note: ${rel(configFile)}: ${parsed.unsetIgnored.length} variable(s) unset in parts evaluation does not read, read as empty strings as NAT reads them: ${names}\n`);
  }
  const config = withCompat(parsed.config, flags.compat === undefined ? parsed.config.compat : flags.compat === "nat" ? "nat" : undefined);

  const makeJudge = judgeFactory(env);
  const built = await buildEvaluators(config, configFile, { readText: (f) => readFile(f, "utf8"), makeJudge, displayName: rel });
  if (!built.ok) throw new CliError(`invalid config:\n  ${built.errors.join("\n  ")}`, 1);
  for (const w of built.warnings) process.stderr.write(`warning: ${w}\n`);

  const outDir = flags.output ? path.resolve(flags.output) : config.outputDir;
  const outputsFile = await agentOutputsFile(flags, config, outDir);
  // With no reference_base_dir, VSS reads reference reports from the working directory; eval.yaml, from the dataset's folder.
  const referenceBaseDir = config.referenceBaseDir ?? Object.values(config.evaluators).flatMap((e) => (e.type === "report" && e.referenceBaseDir ? [e.referenceBaseDir] : []))[0] ?? (parsed.shape === "nat" ? cwd : undefined);
  const st = config.structure;
  const keys = { question: st.questionKey, answer: st.answerKey, id: st.idKey, generatedAnswer: st.generatedAnswerKey, trajectory: st.trajectoryKey };
  const loaded = await loadEvalDataset({
    datasetFile: config.dataset,
    ...(outputsFile ? { outputsFile } : {}),
    ...(referenceBaseDir ? { referenceBaseDir } : {}),
    reportMethods: reportMethodIds(config),
    reportStores: reportStores(config, configFile),
    keys,
    ...(config.datasetFormat ? { datasetFormat: config.datasetFormat } : {}),
    displayName: rel,
  });
  for (const d of loaded.diagnostics) process.stderr.write(`${d.severity === "error" ? "error" : "warning"}: ${formatDiagnostic(d)}\n`);
  if (loaded.errorCount > 0) throw new CliError(`the dataset is invalid (${loaded.errorCount} error(s)); nothing was evaluated`, 1);

  const unrouted = unroutedMethods(loaded.items, new Set(built.evaluators.map((e) => e.methodId)));
  for (const [m, n] of unrouted) process.stderr.write(`warning: evaluation_method "${m}" (on ${n} item(s)) names no configured evaluator\n`);

  const { items, evaluators } = selectByKinds(loaded.items, built.evaluators, only.kinds);

  const run = await runEvaluation({
    items,
    evaluators,
    concurrency: config.concurrency,
    ...(flags.quiet ? {} : { onProgress: createProgress("evaluating") }),
  });

  await mkdir(outDir, { recursive: true });
  const compat = config.compat ?? null;
  for (const e of run.evaluators) {
    await writeJson(path.join(outDir, evaluatorOutputFile(e)), evaluatorOutputDocument(e, { compat, attempts: (config.evaluators[e.name]?.maxRetries ?? 2) + 1 }));
  }
  await writeJson(path.join(outDir, "latency_summary.json"), latencySummaryDocument(run.latency));
  await writeJson(path.join(outDir, "workflow_output.json"), workflowOutputDocument(items, keys));
  await writeFile(path.join(outDir, "config_effective.yml"), stringifyYaml(effectiveConfig(config, configFile, outDir, only.kinds)));

  process.stdout.write(renderEvalTable(run, outDir));
  if (run.nErrors > 0) {
    process.stderr.write(`warning: ${run.nErrors} item(s) could not be evaluated (status "error"); the run is incomplete\n`);
    return 3;
  }
  return 0;
}

/** The agent's outputs: the flag, the config's, or NAT's workflow_output.json in the output folder. */
async function agentOutputsFile(flags: EvalFlags, config: EvalConfig, outDir: string): Promise<string | undefined> {
  if (flags.workflowOutput) {
    const f = path.resolve(flags.workflowOutput);
    await stat(f).catch(() => {
      throw usageError(`--workflow-output ${flags.workflowOutput}: no such file`);
    });
    return f;
  }
  if (config.outputs) return config.outputs;
  const inOutDir = path.join(outDir, "workflow_output.json");
  return (await stat(inOutDir).then((s) => s.isFile()).catch(() => false)) ? inOutDir : undefined;
}

async function writeJson(file: string, doc: unknown): Promise<void> {
  await writeFile(file, JSON.stringify(doc, null, 2) + "\n");
}

/**
 * Judges by config through the one judge factory (flags > environment > the evaluator's
 * judge in eval.yaml > defaults); openai judges share one chat client (and its limit) per
 * endpoint and model.
 */
function judgeFactory(env: NodeJS.ProcessEnv, flags: JudgeFlags = {}): (config: JudgeConfig, evaluator: string) => Grader {
  const cache = createMemoryGradeCache();
  const clients = new Map<string, ChatClient>();
  return (config, evaluator) => {
    const settings = judgeSettingsOrFail({ flags, env, config }, `evaluator "${evaluator}": `);
    if (isDeterministicJudge(settings.kind)) return createGrader(settings);
    const key = JSON.stringify([settings.baseUrl, settings.model, settings.apiKey ?? null]);
    let client = clients.get(key);
    if (!client) clients.set(key, (client = createChatClient(chatOptions(settings))));
    return createGrader(settings, { cache, client });
  };
}

/** The config as run: defaults filled in, paths resolved, the filter and output folder applied. No secrets. */
function effectiveConfig(config: EvalConfig, configFile: string, outDir: string, kinds: readonly string[] | "all"): Record<string, unknown> {
  return { config: configFile, ...config, outputDir: outDir, only: kinds === "all" ? "all" : [...kinds] };
}

/** A 0–1 score on the board's 0–100 scale, one decimal (the output files keep NAT's 0–1). */
const pct = (x: number | null) => (x === null ? "—" : (100 * x).toFixed(1));

export function renderEvalTable(run: EvalRun, outDir: string): string {
  const rows: string[][] = [["Evaluator", "Kind", "Judge", "Score (0-100)", "Scored", "Skipped", "Errors", "File"]];
  for (const e of run.evaluators) {
    rows.push([e.name, e.kind, e.judge, pct(e.summary.averageScore), String(e.summary.nScored), String(e.summary.nSkipped), String(e.summary.nError), evaluatorOutputFile(e)]);
  }
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  const numeric = new Set([3, 4, 5, 6]);
  const line = (r: string[]) => r.map((c, i) => (numeric.has(i) ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join("  ").trimEnd();
  const out = [line(rows[0]!), widths.map((w) => "-".repeat(w)).join("  "), ...rows.slice(1).map(line)];
  for (const e of run.evaluators) {
    for (const [k, v] of Object.entries(e.summary.subScores)) out.push(`${e.name}: average ${k} score ${pct(v)}`);
  }
  const l = run.latency.perItem;
  const s = (x: number | null) => (x === null ? "—" : `${x.toFixed(2)}s`);
  out.push(l.n ? `Average Latency: ${s(l.average)} (the agent's, from its recorded events; p50 ${s(l.p50)}, p95 ${s(l.p95)}) over ${l.n} of ${run.latency.items.length} item(s)` : "Average Latency: — (no event timestamps in the agent's outputs)");
  out.push("Scores are 0-100 as the leaderboard shows them; average_score in the output files stays 0-1, as NAT writes it.");
  out.push(`Outputs: ${rel(outDir)}`);
  return out.join("\n") + "\n";
}
