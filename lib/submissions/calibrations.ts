/**
 * Stores a judge's calibration report for a benchmark version on the board: one row per
 * (judge, prompt-template hashes, version), a newer report replacing the older, with its
 * audit row. In the same transaction every entry held for want of a calibration
 * (`publication:held`, review.ts) is looked at again: one whose judge now meets the
 * benchmark's `judge.minKappa` is published.
 */
import { and, desc, eq, inArray } from "drizzle-orm";
import type { Db } from "../../db/client";
import { auditLog, benchmarks, benchmarkVersions, judgeCalibrations, submissions } from "../../db/schema";
import { calibrationHeadline, promptHashesDigest, type CalibrationReport } from "../aggregate/calibration-report";
import { writeTx } from "./db-busy";
import { publicationHold } from "./publication-hold";
import { publishUnlessHeld, type Actor } from "./review";
import type { Tx } from "./transitions";

export class CalibrationStoreError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "CalibrationStoreError";
  }
}

/** `openai:<model>`, a panel's id, or the kind: how runs name their judge (judge-settings.ts `judgeId`). */
const judgeIdOf = (j: CalibrationReport["judge"]) => j.id ?? (j.kind === "openai" && j.model ? `openai:${j.model}` : j.kind);

export interface StoredCalibration {
  id: number;
  versionId: number;
  judgeId: string;
  /** Submissions published because this calibration meets their benchmark's bar. */
  released: number[];
}

export async function storeCalibration(db: Db, report: CalibrationReport, who: Actor): Promise<StoredCalibration> {
  if (report.summary.unjudged > 0) {
    throw new CalibrationStoreError(`the report has ${report.summary.unjudged} case(s) the judge could not judge: run calibrate again (judged cases come from the grade cache) until every case is judged`);
  }
  const judgeId = judgeIdOf(report.judge);
  const head = calibrationHeadline(report);
  const pf = report.summary.passFail;
  return writeTx(db, async (tx) => {
    const [version] = await tx
      .select({ id: benchmarkVersions.id })
      .from(benchmarkVersions)
      .innerJoin(benchmarks, eq(benchmarks.id, benchmarkVersions.benchmarkId))
      .where(and(eq(benchmarks.slug, report.benchmark.slug), eq(benchmarkVersions.version, report.benchmark.version)))
      .limit(1);
    if (!version) throw new CalibrationStoreError(`benchmark ${report.benchmark.slug} v${report.benchmark.version} is not on this board: register it first (agentboard submit, or calibrate --store --benchmark <dir>)`);
    const row = {
      benchmarkVersionId: version.id,
      judgeId,
      promptDigest: promptHashesDigest(report.judge.promptHashes),
      endpoint: report.judge.endpoint,
      n: head.n,
      accuracy: head.accuracy,
      accuracyLow: pf?.accuracy.ciLow ?? null,
      accuracyHigh: pf?.accuracy.ciHigh ?? null,
      kappa: head.kappa,
      kappaLow: pf?.kappa.ciLow ?? null,
      kappaHigh: pf?.kappa.ciHigh ?? null,
      cases: report.summary.cases,
      unjudged: report.summary.unjudged,
      report,
      calibratedAt: new Date(report.createdAt),
      storedAt: who.at,
    };
    const { benchmarkVersionId: _v, judgeId: _j, promptDigest: _p, ...replaced } = row;
    await tx
      .insert(judgeCalibrations)
      .values(row)
      .onConflictDoUpdate({ target: [judgeCalibrations.benchmarkVersionId, judgeCalibrations.judgeId, judgeCalibrations.promptDigest], set: replaced });
    const [stored] = await tx
      .select({ id: judgeCalibrations.id })
      .from(judgeCalibrations)
      .where(and(eq(judgeCalibrations.benchmarkVersionId, version.id), eq(judgeCalibrations.judgeId, judgeId), eq(judgeCalibrations.promptDigest, row.promptDigest)))
      .limit(1);
    const details = { calibrationId: stored!.id, benchmark: report.benchmark, judge: judgeId, endpoint: report.judge.endpoint, n: head.n, accuracy: head.accuracy, kappa: head.kappa, cases: report.summary.cases };
    await tx.insert(auditLog).values({ at: who.at, actor: who.actor, action: "calibration:stored", reason: `${judgeId} calibrated on ${report.benchmark.slug} v${report.benchmark.version}: κ ${head.kappa === null ? "undefined" : head.kappa.toFixed(2)} over ${head.n} labelled cases`, details });
    const released = await releaseHeld(tx, version.id, who);
    return { id: stored!.id, versionId: version.id, judgeId, released };
  });
}

/** Publishes the version's entries held for a calibration that their judge now has. */
async function releaseHeld(tx: Tx, versionId: number, who: Actor): Promise<number[]> {
  const approved = await tx.select({ id: submissions.id, runId: submissions.currentRunId }).from(submissions).where(and(eq(submissions.benchmarkVersionId, versionId), eq(submissions.state, "approved")));
  if (approved.length === 0) return [];
  const holds = await tx
    .select({ submissionId: auditLog.submissionId, details: auditLog.details })
    .from(auditLog)
    .where(and(eq(auditLog.action, "publication:held"), inArray(auditLog.submissionId, approved.map((a) => a.id))))
    .orderBy(desc(auditLog.id));
  const released: number[] = [];
  for (const sub of approved) {
    // Held for its current run: an approved entry waiting for another reason is not ours to publish.
    const held = holds.find((h) => h.submissionId === sub.id);
    if (!held || held.details?.runId !== sub.runId) continue;
    if (await publicationHold(tx, sub.id)) continue;
    if ((await publishUnlessHeld(tx, sub.id, who)) === null) released.push(sub.id);
  }
  return released;
}
