/**
 * Disputed grades and a maintainer's decisions on them (docs/judges.md "Disputes and
 * adjudication"). A run graded by a judge panel records, when it completes, each grade its
 * judges disagreed on: one row per grade key (panel-grader.ts `decisionKey`), shared by every
 * run that asked the same request, and a link from each such run. A maintainer decides a
 * disputed grade once; the decision is audited, every linked run is re-aggregated from its
 * stored item results (no judge is asked: scoring/apply-decisions.ts), and every later grading
 * of the same request takes the decision instead of asking the judges (`createDbDecisions`).
 */
import { and, eq, inArray, isNotNull, isNull } from "drizzle-orm";
import type { Db, Tx } from "../../db/client";
import { auditLog, capabilityScores, domainScores, gradeDisputeRuns, gradeDisputes, itemResults, scoringRuns } from "../../db/schema";
import { aggregateTrials } from "../aggregate/aggregate";
import type { BenchmarkSpec } from "../benchmark/spec";
import type { Decision, DecisionLookup } from "../judges/panel-grader";
import { storedOverallResamples } from "../queries/resampled-entries";
import { runItemSummary } from "../queries/submission";
import { applyDecisions } from "../scoring/apply-decisions";
import type { ItemResult } from "../scoring/item-result";
import { verdictDigest } from "../scoring/manifest";
import { panelAgreement } from "../scoring/panel-agreement";
import { benchmarkOfVersion } from "./benchmarks";
import { isBusy, retryBusy, writeTx } from "./db-busy";
import { TransitionError } from "./transitions";

/** Decisions as the panel grader consults them: a database that stays away reads as no decision (the judges are asked). */
export function createDbDecisions(db: Db): DecisionLookup {
  return {
    async get(key) {
      try {
        const [row] = await retryBusy(() =>
          db
            .select({ outcome: gradeDisputes.decisionOutcome, score: gradeDisputes.decisionScore })
            .from(gradeDisputes)
            .where(and(eq(gradeDisputes.key, key), isNotNull(gradeDisputes.decisionOutcome)))
            .limit(1),
        );
        return row?.outcome && row.score !== null ? { outcome: row.outcome, score: row.score } : undefined;
      } catch (err) {
        if (isBusy(err)) return undefined;
        throw err;
      }
    },
  };
}

/**
 * Records the run's disputed grades (inside the transaction that completes it), and settles
 * the run with any decision already made on them (one made while the run was scoring).
 */
export async function recordDisputes(tx: Tx, run: { id: number; versionId: number }, items: readonly ItemResult[], spec: BenchmarkSpec, at: Date): Promise<void> {
  const keys = new Set<string>();
  for (const item of items) {
    for (const r of item.panel ?? []) {
      if (!r.disputed || r.decided || !r.request) continue;
      if (!keys.has(r.key)) {
        await tx
          .insert(gradeDisputes)
          .values({ key: r.key, kind: r.kind, benchmarkVersionId: run.versionId, capability: item.capability, rule: r.rule, request: r.request, members: r.members, createdAt: at })
          .onConflictDoNothing();
        await tx.insert(gradeDisputeRuns).values({ key: r.key, runId: run.id }).onConflictDoNothing();
      }
      keys.add(r.key);
    }
  }
  if (keys.size === 0) return;
  const decided = await decisionsOf(tx, [...keys]);
  if (decided.size > 0) await reaggregateRun(tx, run.id, spec, decided);
}

async function decisionsOf(tx: Tx, keys: string[]): Promise<Map<string, Decision>> {
  const out = new Map<string, Decision>();
  for (let i = 0; i < keys.length; i += 500) {
    const rows = await tx
      .select({ key: gradeDisputes.key, outcome: gradeDisputes.decisionOutcome, score: gradeDisputes.decisionScore })
      .from(gradeDisputes)
      .where(and(inArray(gradeDisputes.key, keys.slice(i, i + 500)), isNotNull(gradeDisputes.decisionOutcome)));
    for (const r of rows) if (r.outcome && r.score !== null) out.set(r.key, { outcome: r.outcome, score: r.score });
  }
  return out;
}

/** What re-aggregating a run changed. */
export interface Reaggregated {
  runId: number;
  submissionId: number;
  items: number;
  before: number | null;
  after: number;
}

/**
 * Applies decisions to a completed run's stored items and aggregates it again: its items,
 * capability and domain scores, overall, item summary, resamples and manifest (its verdict
 * digest and panel figures). Items a decision cannot settle in place keep their score.
 */
export async function reaggregateRun(tx: Tx, runId: number, spec: BenchmarkSpec, decisions: ReadonlyMap<string, Decision>): Promise<Reaggregated | null> {
  const [run] = await tx.select().from(scoringRuns).where(eq(scoringRuns.id, runId)).limit(1);
  if (!run || run.status !== "completed") return null;
  const rows = await tx.select({ id: itemResults.id, result: itemResults.result, trial: itemResults.trial }).from(itemResults).where(eq(itemResults.runId, runId));
  const items: ItemResult[] = [];
  let changed = 0;
  for (const row of rows) {
    const stored = { ...row.result, trial: row.trial };
    const next = applyDecisions(stored, decisions);
    items.push(next ?? stored);
    if (!next) continue;
    changed++;
    await tx.update(itemResults).set({ score: next.score, status: next.status, stage: next.stage, bucket: next.bucket, result: next }).where(eq(itemResults.id, row.id));
  }
  if (changed === 0) return { runId, submissionId: run.submissionId, items: 0, before: run.overallScore, after: run.overallScore ?? 0 };
  const caps = await tx.select({ capability: capabilityScores.capability, submitted: capabilityScores.submitted }).from(capabilityScores).where(eq(capabilityScores.runId, runId));
  const ids = spec.capabilities.map((c) => c.id);
  const submitted = new Set(caps.filter((c) => c.submitted).map((c) => c.capability));
  const agg = aggregateTrials(ids, submitted, items, run.trials ?? 1);
  for (const [capability, c] of Object.entries(agg.capabilities)) {
    await tx
      .update(capabilityScores)
      .set({ score: c.score, ciLow: c.ciLow, ciHigh: c.ciHigh, nItems: c.nItems, nMissing: c.nMissing, nError: c.nError, nPolicyUnchecked: c.nPolicyUnchecked, statusCounts: c.statusCounts })
      .where(and(eq(capabilityScores.runId, runId), eq(capabilityScores.capability, capability)));
    for (const [domain, d] of Object.entries(c.domains)) {
      await tx.update(domainScores).set({ score: d.score, nItems: d.nItems }).where(and(eq(domainScores.runId, runId), eq(domainScores.capability, capability), eq(domainScores.domain, domain)));
    }
  }
  const itemSummary = await runItemSummary(tx, runId, spec);
  const overallResamples = await storedOverallResamples(tx, runId, ids, submitted);
  const panel = panelAgreement(items);
  const manifest = run.manifest ? { ...run.manifest, verdicts: { ...run.manifest.verdicts, digest: verdictDigest(items) }, ...(panel ? { panel } : {}) } : run.manifest;
  await tx
    .update(scoringRuns)
    .set({ overallScore: agg.overall.score, overallCiLow: agg.overall.ciLow, overallCiHigh: agg.overall.ciHigh, complete: agg.overall.complete, trialStats: agg.trials, itemSummary, overallResamples, manifest })
    .where(eq(scoringRuns.id, runId));
  return { runId, submissionId: run.submissionId, items: changed, before: run.overallScore, after: agg.overall.score };
}

/** Longest reason kept for a decision (a form field's length). */
export const MAX_DECISION_REASON = 2000;

export interface DecisionInput {
  key: string;
  /** `pass` or `fail` for correctness and groundedness; a score in [0, 1] for graded stages. */
  outcome: "pass" | "fail" | "scored";
  score?: number;
  reason?: string;
}

const PASS_FAIL = new Set(["correctness", "groundedness"]);

/**
 * A maintainer decides a disputed grade, once per key: stored, audited (one row for the
 * decision, one per affected entry, whose public timeline says a disputed grade was decided
 * without saying what was asked), and every run that asked it re-aggregated, in one
 * transaction. A key that is not disputed, or already decided, is refused (TransitionError).
 */
export async function decideDispute(db: Db, input: DecisionInput, who: { actor: string; at: Date }): Promise<Reaggregated[]> {
  const [dispute] = await db.select().from(gradeDisputes).where(eq(gradeDisputes.key, input.key)).limit(1);
  if (!dispute) throw new TransitionError("there is no such disputed grade");
  const decision = decisionOf(dispute.kind, input);
  const spec = (await benchmarkOfVersion(db, dispute.benchmarkVersionId)).spec;
  const reason = (input.reason ?? "").trim().slice(0, MAX_DECISION_REASON);
  return writeTx(db, async (tx) => {
    // Decided in the writing transaction: two maintainers deciding at once, the second is refused.
    const updated = await tx
      .update(gradeDisputes)
      .set({ decisionOutcome: decision.outcome, decisionScore: decision.score, decidedBy: who.actor, decidedAt: who.at, decisionReason: reason || null })
      .where(and(eq(gradeDisputes.key, input.key), isNull(gradeDisputes.decisionOutcome)))
      .returning({ key: gradeDisputes.key });
    if (updated.length === 0) throw new TransitionError("that grade was already decided");
    const runs = await tx.select({ runId: gradeDisputeRuns.runId }).from(gradeDisputeRuns).where(eq(gradeDisputeRuns.key, input.key));
    const decisions = new Map([[input.key, decision]]);
    const moved: Reaggregated[] = [];
    for (const { runId } of runs) {
      const r = await reaggregateRun(tx, runId, spec, decisions);
      if (r) moved.push(r);
    }
    const details = { key: input.key, kind: dispute.kind, capability: dispute.capability, outcome: decision.outcome, score: decision.score, reason, runs: moved.map((m) => ({ runId: m.runId, submissionId: m.submissionId, items: m.items, before: m.before, after: m.after })) };
    await tx.insert(auditLog).values({ at: who.at, actor: who.actor, action: "dispute:decided", reason: `a disputed ${dispute.kind} grade was decided by a maintainer`, details });
    for (const m of moved) {
      await tx.insert(auditLog).values({ at: who.at, actor: who.actor, action: "run:reaggregated", submissionId: m.submissionId, reason: `a disputed ${dispute.kind} grade was decided by a maintainer; run ${m.runId} re-aggregated`, details: { runId: m.runId, items: m.items, before: m.before, after: m.after } });
    }
    return moved;
  });
}

function decisionOf(kind: string, input: DecisionInput): Decision {
  if (PASS_FAIL.has(kind)) {
    if (input.outcome !== "pass" && input.outcome !== "fail") throw new TransitionError(`a ${kind} grade is decided pass or fail`);
    return { outcome: input.outcome, score: input.outcome === "pass" ? 1 : 0 };
  }
  const score = input.score;
  if (input.outcome !== "scored" || typeof score !== "number" || !Number.isFinite(score) || score < 0 || score > 1) throw new TransitionError(`a ${kind} grade is decided by a score from 0 to 1`);
  return { outcome: "scored", score };
}
