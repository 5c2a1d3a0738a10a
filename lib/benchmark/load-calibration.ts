/**
 * A benchmark folder's calibration set: every `calibration/*.jsonl` (in name order), read by
 * `readCalibrationCases`, and each case checked against the benchmark: its capability must
 * exist and be scored by the judge the stage names (correctness and groundedness by the
 * waterfall, qa/trajectory by that evaluator, report_field by the report evaluator), since a
 * case is graded exactly as that capability's scorer would ask.
 */
import { readdir, readFile, stat } from "node:fs/promises";
import path from "node:path";
import { CALIBRATION_LIMITS, readCalibrationCases, type CalibrationCase, type CalibrationProblem, type CalibrationStage } from "../formats/calibration-case";
import type { BenchmarkSpec, ScorerName } from "./spec";

export const CALIBRATION_DIR = "calibration";

const SCORER_OF: Record<CalibrationStage, ScorerName> = {
  correctness: "waterfall",
  groundedness: "waterfall",
  qa: "qa",
  trajectory: "trajectory",
  report_field: "report",
};

export interface CalibrationSet {
  cases: CalibrationCase[];
  problems: CalibrationProblem[];
  /** The files read, relative to the benchmark folder. */
  files: string[];
}

export async function loadCalibrationSet(root: string, spec: Pick<BenchmarkSpec, "capabilities">): Promise<CalibrationSet> {
  const dir = path.join(root, CALIBRATION_DIR);
  let names: string[];
  try {
    names = (await readdir(dir)).filter((n) => n.endsWith(".jsonl")).sort();
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const message = code === "ENOENT" ? "the benchmark has no calibration/ folder: add labelled judge cases as calibration/*.jsonl (docs/judges.md)" : `cannot read calibration/: ${code ?? String(err)}`;
    return { cases: [], problems: [{ file: CALIBRATION_DIR, line: null, message }], files: [] };
  }
  const problems: CalibrationProblem[] = [];
  if (names.length === 0) problems.push({ file: CALIBRATION_DIR, line: null, message: "no .jsonl files: add labelled judge cases as calibration/*.jsonl (docs/judges.md)" });
  if (names.length > CALIBRATION_LIMITS.files) {
    problems.push({ file: CALIBRATION_DIR, line: null, message: `${names.length} files; a calibration set may have at most ${CALIBRATION_LIMITS.files} (the first ${CALIBRATION_LIMITS.files} by name are read)` });
    names = names.slice(0, CALIBRATION_LIMITS.files);
  }
  const capabilities = new Map(spec.capabilities.map((c) => [c.id, c.scorer]));
  const seen = new Map<string, string>();
  const cases: CalibrationCase[] = [];
  const files: string[] = [];
  for (const name of names) {
    const rel = `${CALIBRATION_DIR}/${name}`;
    const full = path.join(dir, name);
    const info = await stat(full);
    if (!info.isFile()) continue;
    if (info.size > CALIBRATION_LIMITS.fileBytes) {
      problems.push({ file: rel, line: null, message: `the file is ${info.size} bytes; a calibration file may hold at most ${CALIBRATION_LIMITS.fileBytes} bytes (split it)` });
      continue;
    }
    files.push(rel);
    const read = readCalibrationCases(rel, await readFile(full), seen);
    problems.push(...read.problems);
    for (const c of read.cases) {
      const scorer = capabilities.get(c.capability);
      if (scorer === undefined) {
        problems.push({ file: rel, line: c.line, message: `$.capability: the benchmark has no capability "${c.capability}"; expected one of ${[...capabilities.keys()].map((id) => `"${id}"`).join(", ")}` });
        continue;
      }
      if (scorer !== SCORER_OF[c.stage]) {
        problems.push({ file: rel, line: c.line, message: `$.stage: capability "${c.capability}" is scored by ${scorer === "waterfall" ? "the waterfall" : `the ${scorer} evaluator`}, which never asks a ${c.stage} judge; expected ${stagesOf(scorer)}` });
        continue;
      }
      if (cases.length >= CALIBRATION_LIMITS.cases) {
        problems.push({ file: rel, line: c.line, message: `more than ${CALIBRATION_LIMITS.cases} cases; a calibration set may hold at most ${CALIBRATION_LIMITS.cases} (the rest are not read)` });
        return { cases, problems, files };
      }
      cases.push(c);
    }
  }
  return { cases, problems, files };
}

function stagesOf(scorer: ScorerName): string {
  const stages = (Object.keys(SCORER_OF) as CalibrationStage[]).filter((s) => SCORER_OF[s] === scorer);
  return stages.map((s) => `"${s}"`).join(" or ");
}
