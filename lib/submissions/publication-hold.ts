/**
 * What a submission's current run needs of its judge's calibration before it is published
 * (`judge.minKappa`, lib/aggregate/calibration-gate.ts), read inside the writer's transaction;
 * and the calibration a run's judge has, for its manifest.
 */
import { and, eq } from "drizzle-orm";
import type { Db, Tx } from "../../db/client";
import { benchmarkVersions, judgeCalibrations, scoringRuns, submissions } from "../../db/schema";
import type { BenchmarkSpec } from "../benchmark/spec";
import { promptHashesDigest, type CalibrationRef } from "../aggregate/calibration-report";
import { calibrationHold, type StoredCalibrationHeadline } from "../aggregate/calibration-gate";

/** The version's calibrations, as the gate reads them. */
export function versionCalibrations(db: Tx | Db, versionId: number): Promise<StoredCalibrationHeadline[]> {
  return db
    .select({ id: judgeCalibrations.id, judgeId: judgeCalibrations.judgeId, promptDigest: judgeCalibrations.promptDigest, n: judgeCalibrations.n, kappa: judgeCalibrations.kappa })
    .from(judgeCalibrations)
    .where(eq(judgeCalibrations.benchmarkVersionId, versionId));
}

/** Why the submission's current run may not be published yet (`judge.minKappa`), or null. */
export async function publicationHold(db: Tx | Db, submissionId: number): Promise<string | null> {
  const [row] = await db
    .select({ versionId: submissions.benchmarkVersionId, spec: benchmarkVersions.spec, run: { judgeKind: scoringRuns.judgeKind, judgeId: scoringRuns.judgeId, manifest: scoringRuns.manifest } })
    .from(submissions)
    .innerJoin(benchmarkVersions, eq(benchmarkVersions.id, submissions.benchmarkVersionId))
    .leftJoin(scoringRuns, eq(scoringRuns.id, submissions.currentRunId))
    .where(eq(submissions.id, submissionId))
    .limit(1);
  const minKappa = (row?.spec as Partial<BenchmarkSpec> | undefined)?.judge?.minKappa;
  if (!row?.run || minKappa === undefined) return null;
  const judge = row.run.manifest?.judge;
  const run = { judgeKind: judge?.kind ?? row.run.judgeKind, judgeId: row.run.judgeId, promptHashes: judge?.promptHashes ?? null, ...(judge ? { endpoint: judge.endpoint } : {}) };
  return calibrationHold(minKappa, run, await versionCalibrations(db, row.versionId));
}

/** The stored calibration of this judge and these prompts on the version, as a run's manifest names it; null when there is none. */
export async function calibrationRefFor(db: Tx | Db, versionId: number, judgeId: string, promptHashes: Readonly<Record<string, string>>): Promise<CalibrationRef | null> {
  const [c] = await db
    .select({ id: judgeCalibrations.id, kappa: judgeCalibrations.kappa, accuracy: judgeCalibrations.accuracy, n: judgeCalibrations.n })
    .from(judgeCalibrations)
    .where(and(eq(judgeCalibrations.benchmarkVersionId, versionId), eq(judgeCalibrations.judgeId, judgeId), eq(judgeCalibrations.promptDigest, promptHashesDigest(promptHashes))))
    .limit(1);
  return c ?? null;
}
