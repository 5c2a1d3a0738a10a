/**
 * Judge calibrations for pages: what /about shows of each judge stored for a benchmark version
 * (its pooled pass/fail agreement with the labelled cases, never a case), and why an approved
 * entry waits on /admin when its judge falls short of `judge.minKappa` (the same rule the
 * writer holds it by, lib/aggregate/calibration-gate.ts).
 */
import { desc, eq, inArray } from "drizzle-orm";
import type { Db } from "../../db/client";
import { benchmarkVersions, judgeCalibrations, scoringRuns } from "../../db/schema";
import type { BenchmarkSpec } from "../benchmark/spec";
import { calibrationHold, type StoredCalibrationHeadline } from "../aggregate/calibration-gate";
import type { CalibrationSummary } from "./types";

/** Every judge calibrated on the version, the best κ first. */
export async function getCalibrations(db: Db, versionId: number): Promise<CalibrationSummary[]> {
  const rows = await db
    .select({
      id: judgeCalibrations.id,
      judgeId: judgeCalibrations.judgeId,
      endpoint: judgeCalibrations.endpoint,
      n: judgeCalibrations.n,
      cases: judgeCalibrations.cases,
      accuracy: judgeCalibrations.accuracy,
      accuracyLow: judgeCalibrations.accuracyLow,
      accuracyHigh: judgeCalibrations.accuracyHigh,
      kappa: judgeCalibrations.kappa,
      kappaLow: judgeCalibrations.kappaLow,
      kappaHigh: judgeCalibrations.kappaHigh,
      calibratedAt: judgeCalibrations.calibratedAt,
    })
    .from(judgeCalibrations)
    .where(eq(judgeCalibrations.benchmarkVersionId, versionId))
    .orderBy(desc(judgeCalibrations.kappa), judgeCalibrations.judgeId)
    .limit(50);
  return rows.map((r) => ({ ...r, calibratedAt: r.calibratedAt.toISOString() }));
}

/** Why each of these approved entries is not on the board yet, by submission id (absent: nothing holds it). */
export async function heldReasons(db: Db, rows: readonly { id: number; versionId: number; runId: number | null }[]): Promise<Map<number, string>> {
  const out = new Map<number, string>();
  const withRuns = rows.filter((r): r is { id: number; versionId: number; runId: number } => r.runId !== null);
  if (withRuns.length === 0) return out;
  const versionIds = [...new Set(withRuns.map((r) => r.versionId))];
  const specs = await db.select({ id: benchmarkVersions.id, spec: benchmarkVersions.spec }).from(benchmarkVersions).where(inArray(benchmarkVersions.id, versionIds));
  const minKappa = new Map(specs.map((v) => [v.id, (v.spec as Partial<BenchmarkSpec>).judge?.minKappa]));
  const gated = withRuns.filter((r) => minKappa.get(r.versionId) !== undefined);
  if (gated.length === 0) return out;
  const runs = await db.select({ id: scoringRuns.id, judgeKind: scoringRuns.judgeKind, judgeId: scoringRuns.judgeId, manifest: scoringRuns.manifest }).from(scoringRuns).where(inArray(scoringRuns.id, gated.map((r) => r.runId)));
  const calibrations = await db
    .select({ versionId: judgeCalibrations.benchmarkVersionId, id: judgeCalibrations.id, judgeId: judgeCalibrations.judgeId, promptDigest: judgeCalibrations.promptDigest, n: judgeCalibrations.n, kappa: judgeCalibrations.kappa })
    .from(judgeCalibrations)
    .where(inArray(judgeCalibrations.benchmarkVersionId, [...new Set(gated.map((r) => r.versionId))]));
  for (const r of gated) {
    const run = runs.find((x) => x.id === r.runId);
    if (!run) continue;
    const stored: StoredCalibrationHeadline[] = calibrations.filter((c) => c.versionId === r.versionId);
    const reason = calibrationHold(minKappa.get(r.versionId), { judgeKind: run.manifest?.judge.kind ?? run.judgeKind, judgeId: run.judgeId, promptHashes: run.manifest?.judge.promptHashes ?? null, ...(run.manifest ? { endpoint: run.manifest.judge.endpoint } : {}) }, stored);
    if (reason) out.set(r.id, reason);
  }
  return out;
}
