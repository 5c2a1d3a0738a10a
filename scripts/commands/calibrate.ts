/**
 * `calibrate --benchmark <dir>`: grades the benchmark's labelled judge cases
 * (`calibration/*.jsonl`) with the judge the usual flags resolve, and prints per stage and
 * capability how often it agrees with the labels (accuracy, Cohen's κ and the confusion
 * matrix for pass/fail labels; mean absolute error and Spearman's ρ for scores), each with its
 * bootstrap interval. `--out` writes the report (with the judge's identity), `--store` keeps it
 * on the board (the database), where /about shows it and `judge.minKappa` reads it.
 * `calibration store <report.json>` stores a report written earlier.
 *
 * Exit 0 every case judged, 1 the calibration set is invalid (nothing graded), 2 usage error,
 * 3 some cases could not be judged (counted, never taken as a fail; such a report is not stored).
 */
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { closeDatabase, connectDatabase, type Db } from "../../db/client";
import type { Estimate, PassFailAgreement, ScoreAgreement } from "../../lib/aggregate/agreement";
import { loadCalibrationSet } from "../../lib/benchmark/load-calibration";
import { formatCalibrationProblem } from "../../lib/formats/calibration-case";
import { createMemoryGradeCache, type GradeCache } from "../../lib/judges/grade-cache";
import { recordedJudge, type JudgeFlags } from "../../lib/judges/judge-settings";
import { calibrateJudge, parseCalibrationReport, type CalibrationReport } from "../../lib/aggregate/calibration-report";
import { registerBenchmark } from "../../lib/submissions/benchmarks";
import { CalibrationStoreError, storeCalibration } from "../../lib/submissions/calibrations";
import { createDbGradeCache } from "../../lib/submissions/db-grade-cache";
import { agentboardVersion } from "./build-info";
import { CliError, usageError } from "./cli-errors";
import { databaseName } from "./db-url";
import { graderOrFail, judgeSettingsOrFail } from "./judge-options";
import { benchmarkOrFail, loadBenchmarkOrFail, loadSpecOrFail } from "./load";
import { createProgress } from "./progress";

export interface CalibrateFlags extends JudgeFlags {
  benchmark: string;
  out?: string;
  store?: boolean;
  db?: string;
  json?: boolean;
  quiet?: boolean;
}

export async function calibrateCommand(flags: CalibrateFlags): Promise<number> {
  const { spec } = await loadSpecOrFail(flags.benchmark);
  const settings = judgeSettingsOrFail({ flags, env: process.env, config: spec.judge });
  if (settings.kind === "verdicts") throw usageError("calibration measures a judge: use --judge rules, literal, openai or panel (the verdicts judge only answers what a run already asked)");
  const set = await loadCalibrationSet(flags.benchmark, spec);
  if (set.problems.length) {
    for (const p of set.problems) process.stderr.write(`${formatCalibrationProblem(p)}\n`);
    throw new CliError(`the calibration set is invalid (${set.problems.length} problem(s)); nothing was graded`, 1);
  }
  const benchmark = await loadBenchmarkOrFail(flags.benchmark);
  // With the board's database, grades go through its cache: a case the scorer already asked costs nothing, and the reverse.
  const db: Db | undefined = flags.store ? await connectDatabase(flags.db) : undefined;
  try {
    const cache: GradeCache = db ? createDbGradeCache(db, () => new Date()) : createMemoryGradeCache();
    const grader = graderOrFail(settings, { cache });
    const report = await calibrateJudge(benchmark, set, { grader, recorded: recordedJudge(settings) }, { agentboard: agentboardVersion(), createdAt: new Date(), ...(flags.quiet ? {} : { onProgress: createProgress("calibrating") }) });
    if (flags.out) {
      await mkdir(path.dirname(path.resolve(flags.out)), { recursive: true });
      await writeFile(flags.out, `${JSON.stringify(report, null, 2)}\n`);
    }
    process.stdout.write(flags.json ? `${JSON.stringify(report, null, 2)}\n` : renderCalibration(report));
    if (report.summary.unjudged > 0) {
      process.stderr.write(`warning: ${report.summary.unjudged} case(s) could not be judged; they are counted apart, not as fails, and the report cannot be stored until every case is judged\n`);
      return 3;
    }
    if (db) {
      const { versionId } = await benchmarkOrFail(() => registerBenchmark(db, path.resolve(flags.benchmark), { now: new Date() }));
      const stored = await storeOrFail(db, report);
      process.stderr.write(`stored calibration #${stored.id} for ${stored.judgeId} on benchmark version ${versionId} in ${databaseName(flags.db)}${releasedNote(stored.released)}\n`);
    }
    return 0;
  } finally {
    if (db) await closeDatabase(db);
  }
}

export interface CalibrationStoreFlags {
  db?: string;
}

export async function calibrationStoreCommand(file: string, flags: CalibrationStoreFlags): Promise<number> {
  let value: unknown;
  try {
    value = JSON.parse(await readFile(file, "utf8"));
  } catch (err) {
    throw usageError(`cannot read ${file}: ${err instanceof SyntaxError ? `not JSON (${err.message})` : ((err as NodeJS.ErrnoException).code ?? String(err))}`);
  }
  const parsed = parseCalibrationReport(value);
  if (!parsed.ok) throw usageError(`${file}: ${parsed.error}`);
  const db = await connectDatabase(flags.db);
  try {
    const stored = await storeOrFail(db, parsed.report);
    process.stdout.write(`stored calibration #${stored.id} for ${stored.judgeId} on ${parsed.report.benchmark.slug} v${parsed.report.benchmark.version}${releasedNote(stored.released)}\n`);
    return 0;
  } finally {
    await closeDatabase(db);
  }
}

async function storeOrFail(db: Db, report: CalibrationReport) {
  try {
    return await storeCalibration(db, report, { actor: "cli", at: new Date() });
  } catch (err) {
    if (err instanceof CalibrationStoreError) throw usageError(err.message);
    throw err;
  }
}

const releasedNote = (ids: number[]) => (ids.length ? `; published ${ids.length} held entr${ids.length === 1 ? "y" : "ies"} (#${ids.join(", #")})` : "");

const pct = (v: number | null) => (v === null ? "—" : (100 * v).toFixed(1));
const two = (v: number | null) => (v === null ? "—" : v.toFixed(2));
/** `93.0% [90.0, 96.0]`, `0.85 [0.79, 0.90]`, or `undefined` where the statistic is. */
const shown = (e: Estimate, f: (v: number | null) => string, unit = "") => (e.value === null ? "undefined" : `${f(e.value)}${unit} [${f(e.ciLow)}, ${f(e.ciHigh)}]`);

function passFailCells(pf: PassFailAgreement | null): string[] {
  if (!pf) return ["", "", ""];
  const c = pf.confusion;
  return [shown(pf.accuracy, pct, "%"), shown(pf.kappa, two), `${c.passPass}/${c.passFail}/${c.failPass}/${c.failFail}`];
}

function scoreCells(s: ScoreAgreement | null): string[] {
  if (!s) return ["", ""];
  return [shown(s.meanAbsoluteError, two), shown(s.spearman, two)];
}

/** The report as a table: one row per stage and capability, then every case pooled. */
export function renderCalibration(r: CalibrationReport): string {
  const rows: string[][] = [["Stage", "Capability", "Cases", "Unjudged", "n pass/fail", "Accuracy [95% CI]", "κ [95% CI]", "Confusion pp/pf/fp/ff", "n scores", "MAE [95% CI]", "ρ [95% CI]"]];
  const row = (stage: string, capability: string, g: { cases: number; unjudged: number; passFail: PassFailAgreement | null; scores: ScoreAgreement | null }) => [
    stage,
    capability,
    String(g.cases),
    String(g.unjudged),
    g.passFail ? String(g.passFail.n) : "",
    ...passFailCells(g.passFail),
    g.scores ? String(g.scores.n) : "",
    ...scoreCells(g.scores),
  ];
  for (const g of r.groups) rows.push(row(g.stage, g.capability, g));
  rows.push(row("All", "", r.summary));
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((x) => x[i]!.length)));
  const line = (x: string[]) => x.map((cell, i) => (i < 2 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join("  ").trimEnd();
  const sep = widths.map((w) => "-".repeat(w)).join("  ");
  const judge = r.judge.kind === "openai" ? `openai:${r.judge.model} (${r.judge.endpoint} endpoint)` : r.judge.kind;
  const head = `${r.benchmark.slug} v${r.benchmark.version} · judge ${judge} · ${r.summary.cases} labelled case(s) · 95% intervals from ${r.bootstrap.resamples} seeded bootstrap resamples (seed ${r.bootstrap.seed})`;
  const legend = "Confusion: labelled pass judged pass / labelled pass judged fail / labelled fail judged pass / labelled fail judged fail. A score grade counts as pass at 0.5 or above.";
  return [head, line(rows[0]!), sep, ...rows.slice(1, -1).map(line), sep, line(rows[rows.length - 1]!), legend].join("\n") + "\n";
}
