/**
 * Loads a demo benchmark into the database and publishes its sample submissions as demo
 * entries. Idempotent: a second load finds every bundle already ingested and changes nothing.
 * A demo that ships a calibration set (`calibration/*.jsonl`) has its judge calibrated on it
 * and the report stored first (as `calibrate --store` does), so `/about` shows the judge's
 * agreement and every run's manifest names that calibration.
 */
import { existsSync } from "node:fs";
import { readdir } from "node:fs/promises";
import path from "node:path";
import { and, eq } from "drizzle-orm";
import type { Db } from "../../db/client";
import { judgeCalibrations, submissions } from "../../db/schema";
import { calibrateJudge } from "../aggregate/calibration-report";
import { CALIBRATION_DIR, loadCalibrationSet } from "../benchmark/load-calibration";
import type { Benchmark } from "../benchmark/load-benchmark";
import { formatCalibrationProblem } from "../formats/calibration-case";
import { UNKNOWN_VERSION } from "../scoring/manifest";
import { storeCalibration } from "./calibrations";
import { registerBenchmark } from "./benchmarks";
import { ingestBundle } from "./ingest";
import { approve } from "./review";
import { defaultRunSpec } from "./runs";
import type { ScoringDeps } from "./score-job";
import { runWorker } from "./worker";

export async function loadDemoEntries(db: Db, demoDir: string, deps: ScoringDeps, log: (line: string) => void = () => {}, opts: { isDefault?: boolean } = {}) {
  const { versionId, benchmark } = await registerBenchmark(db, demoDir, { isDefault: opts.isDefault ?? true, now: deps.now() });
  await calibrateDemoJudge(db, demoDir, versionId, benchmark, deps, log);
  const dir = path.join(demoDir, "submissions");
  let created = 0;
  for (const name of (await readdir(dir)).sort()) {
    const out = await ingestBundle(db, { versionId, bundlePath: path.join(dir, name), source: "demo", sourceRef: `benchmarks/${path.basename(demoDir)}/submissions/${name}`, actor: "demo-loader", isDemo: true }, deps.now);
    if (out.created) {
      created++;
      log(`ingested ${name}: ${out.state}`);
    }
  }
  const ran = await runWorker(db, deps, { untilIdle: true, log });
  let published = 0;
  for (const s of await db.select({ id: submissions.id }).from(submissions).where(and(eq(submissions.isDemo, true), eq(submissions.state, "scored"))).orderBy(submissions.id)) {
    await approve(db, s.id, { actor: "demo-loader", at: deps.now() }, { reason: "demo entry" });
    published++;
  }
  return { versionId, created, scored: ran, published };
}

/**
 * Calibrates the demo's own judge (the one its runs are graded by, through the same grade cache)
 * on the demo's labelled cases and stores the report, unless one is stored for that judge and
 * version already. A set with problems, or a case the judge could not judge, is reported and
 * stored nothing: the entries load all the same.
 */
async function calibrateDemoJudge(db: Db, demoDir: string, versionId: number, benchmark: Benchmark, deps: ScoringDeps, log: (line: string) => void): Promise<void> {
  if (!existsSync(path.join(demoDir, CALIBRATION_DIR))) return;
  const set = await loadCalibrationSet(demoDir, benchmark.spec);
  if (set.problems.length) {
    log(`calibration set not graded: ${set.problems.length} problem(s), the first: ${formatCalibrationProblem(set.problems[0]!)}`);
    return;
  }
  const { grader, judge } = deps.graderFor(benchmark, defaultRunSpec(benchmark));
  const [stored] = await db.select({ id: judgeCalibrations.id }).from(judgeCalibrations).where(and(eq(judgeCalibrations.benchmarkVersionId, versionId), eq(judgeCalibrations.judgeId, grader.id))).limit(1);
  if (stored) return;
  const report = await calibrateJudge(benchmark, set, { grader, recorded: judge }, { agentboard: deps.agentboard ?? UNKNOWN_VERSION, createdAt: deps.now() });
  if (report.summary.unjudged > 0) {
    log(`calibration not stored: ${report.summary.unjudged} case(s) could not be judged`);
    return;
  }
  const { id } = await storeCalibration(db, report, { actor: "demo-loader", at: deps.now() });
  const pf = report.summary.passFail;
  log(`calibrated ${grader.id} on ${report.summary.cases} labelled case(s)${pf ? `: accuracy ${(pf.accuracy.value! * 100).toFixed(1)}%, κ ${pf.kappa.value === null ? "undefined" : pf.kappa.value.toFixed(2)}` : ""} (stored as calibration #${id})`);
}
