/**
 * Maintainer actions on a submission; each is a state move with its audit row (clearing an
 * integrity flag moves no state, but is audited the same way). The admin page and GitHub
 * slash commands both come here (`applyReviewAction`), so each action has one implementation.
 */
import { and, desc, eq, inArray } from "drizzle-orm";
import type { Db } from "../../db/client";
import { auditLog, scoringRuns, submissions, type PublicationDetails, type SubmissionState } from "../../db/schema";
import { benchmarkOfVersion } from "./benchmarks";
import { writeTx } from "./db-busy";
import { FLAG_KIND_LABELS } from "../scoring/integrity-flags";
import { clearRunFlag } from "./run-integrity";
import { publicationHold } from "./publication-hold";
import { queueRun, type RunSpec } from "./runs";
import { canMove, restoreTransition, transition, TransitionError, type RestorableState, type Tx } from "./transitions";

export interface Actor {
  actor: string;
  at: Date;
}

/** A maintainer's decision on a submission, from whichever front end it was taken. */
export type ReviewAction =
  | { name: "approve" }
  | { name: "reject"; reason: string }
  | { name: "rescore"; reason?: string }
  | { name: "withdraw"; reason: string }
  | { name: "restore"; reason?: string };

export type ReviewActionName = ReviewAction["name"];

export const REVIEW_ACTIONS: readonly ReviewActionName[] = ["approve", "reject", "rescore", "withdraw", "restore"];

/** The actions a front end asks the maintainer to confirm first (the server refuses them unconfirmed). */
export const CONFIRMED_ACTIONS = ["reject", "withdraw", "approve", "rescore"] as const satisfies readonly ReviewActionName[];
export type ConfirmedAction = (typeof CONFIRMED_ACTIONS)[number];

/** Reject, withdraw and rescore take an entry off the board (a rescore until its new run is approved); approving a flagged entry publishes what its flags question. */
export function needsConfirmation(action: ReviewActionName, flagged: boolean): boolean {
  return action === "reject" || action === "withdraw" || action === "rescore" || (action === "approve" && flagged);
}

export function isConfirmedAction(value: string | undefined): value is ConfirmedAction {
  return (CONFIRMED_ACTIONS as readonly string[]).includes(value ?? "");
}

/** The actions a submission in this state can take (what a front end offers). */
export function availableActions(state: SubmissionState): ReviewActionName[] {
  const can: Record<ReviewActionName, boolean> = {
    approve: canMove(state, "approved"),
    reject: canMove(state, "rejected"),
    rescore: canMove(state, "queued"),
    withdraw: canMove(state, "withdrawn"),
    restore: state === "withdrawn",
  };
  return REVIEW_ACTIONS.filter((a) => can[a]);
}

/** A form's action name and reason as a ReviewAction, or null for an unknown name. */
export function reviewAction(name: string, reason = ""): ReviewAction | null {
  switch (name) {
    case "approve":
      return { name };
    case "rescore":
    case "restore":
      return reason ? { name, reason } : { name };
    case "reject":
    case "withdraw":
      return { name, reason };
    default:
      return null;
  }
}

/** Does what the action says; a move the submission's state does not allow throws TransitionError. */
export async function applyReviewAction(db: Db, id: number, action: ReviewAction, who: Actor): Promise<void> {
  switch (action.name) {
    case "approve":
      return approve(db, id, who);
    case "reject":
      return reject(db, id, who, action.reason);
    case "withdraw":
      return withdraw(db, id, who, action.reason);
    case "restore":
      await restore(db, id, who, action.reason ?? "");
      return;
    case "rescore":
      await rescore(db, id, who, {}, action.reason ?? "");
  }
}

async function current(db: Tx | Db, id: number) {
  const [row] = await db.select().from(submissions).where(eq(submissions.id, id)).limit(1);
  if (!row) throw new TransitionError(`submission ${id} does not exist`);
  return row;
}

/** The run shown now and, from the audit log, the one the entry was last published with. */
async function publicationDetails(tx: Tx, id: number): Promise<PublicationDetails> {
  const runId = (await current(tx, id)).currentRunId;
  const [run] = runId === null ? [] : await tx.select({ overall: scoringRuns.overallScore }).from(scoringRuns).where(eq(scoringRuns.id, runId)).limit(1);
  const [last] = await tx
    .select({ details: auditLog.details })
    .from(auditLog)
    .where(and(eq(auditLog.submissionId, id), eq(auditLog.toState, "published")))
    .orderBy(desc(auditLog.id))
    .limit(1);
  const previous = last?.details as Partial<PublicationDetails> | null | undefined;
  return {
    runId,
    overall: run?.overall ?? null,
    previousRunId: typeof previous?.runId === "number" ? previous.runId : null,
    previousOverall: typeof previous?.overall === "number" ? previous.overall : null,
  };
}

/**
 * Approve a scored submission; it is published at once unless `publish` is false, or its
 * judge's calibration falls short of the benchmark's `judge.minKappa` (publishUnlessHeld).
 */
export function approve(db: Db, id: number, who: Actor, opts: { publish?: boolean; reason?: string } = {}): Promise<void> {
  return writeTx(db, async (tx) => {
    await transition(tx, id, "approved", { actor: who.actor, at: who.at, reason: opts.reason ?? "", details: { runId: (await current(tx, id)).currentRunId } });
    if (opts.publish ?? true) await publishUnlessHeld(tx, id, who);
  });
}

/**
 * Publishes an approved submission, unless its current run's judge lacks the calibration the
 * benchmark asks for (`judge.minKappa`): then it stays approved, with an audit row saying why
 * (`publication:held`), and storing a calibration that meets the bar publishes it
 * (calibrations.ts). Returns the reason it was held, or null when it was published.
 */
export async function publishUnlessHeld(tx: Tx, id: number, who: Actor): Promise<string | null> {
  const held = await publicationHold(tx, id);
  if (held) {
    await tx.insert(auditLog).values({ at: who.at, actor: who.actor, action: "publication:held", submissionId: id, reason: held, details: { runId: (await current(tx, id)).currentRunId } });
    return held;
  }
  await transition(tx, id, "published", { actor: who.actor, at: who.at, details: { ...(await publicationDetails(tx, id)) } });
  return null;
}

export async function reject(db: Db, id: number, who: Actor, reason: string): Promise<void> {
  if (!reason.trim()) throw new TransitionError("a rejection needs a reason");
  await writeTx(db, async (tx) => transition(tx, id, "rejected", { actor: who.actor, at: who.at, reason, details: { runId: (await current(tx, id)).currentRunId } }));
}

/** Takes the entry off the board (or out of the queue); the run it showed is recorded so a restore can tell whether it changed. */
export function withdraw(db: Db, id: number, who: Actor, reason = ""): Promise<void> {
  return writeTx(db, async (tx) => transition(tx, id, "withdrawn", { actor: who.actor, at: who.at, reason, details: { runId: (await current(tx, id)).currentRunId } }));
}

/** A new scoring run; the old ones are kept, and the current one stays until the new completes. */
export async function rescore(db: Db, id: number, who: Actor, spec: Partial<RunSpec> = {}, reason = ""): Promise<number> {
  const benchmark = await benchmarkOfVersion(db, (await current(db, id)).benchmarkVersionId);
  return writeTx(db, async (tx) => {
    const runId = await queueRun(tx, id, benchmark, spec, who.at);
    await transition(tx, id, "queued", { actor: who.actor, at: who.at, reason, details: { runId } });
    return runId;
  });
}

/** Where a restore takes a withdrawn submission, and the state it was withdrawn from. */
export interface RestorePlan {
  from: SubmissionState;
  to: RestorableState;
}

/**
 * Reads where a withdrawn submission goes back to, from the audit row of its withdrawal:
 * published or approved again only when the run it was approved with is still its current run
 * (else `scored`, awaiting a fresh approval, or `error` if that run left it so); scored, error and invalid as they
 * were; queued or scoring re-queued with a new run (the old one was closed as superseded).
 * One withdrawn before validation (only a race allows it) cannot be restored: it is sent again.
 */
export async function restorePlan(db: Tx | Db, id: number): Promise<RestorePlan> {
  const sub = await current(db, id);
  if (sub.state !== "withdrawn") throw new TransitionError(`submission ${id} is not withdrawn`);
  const [withdrawal] = await db
    .select({ fromState: auditLog.fromState, details: auditLog.details })
    .from(auditLog)
    .where(and(eq(auditLog.submissionId, id), eq(auditLog.toState, "withdrawn")))
    .orderBy(desc(auditLog.id))
    .limit(1);
  const from = withdrawal?.fromState as SubmissionState | null | undefined;
  if (!from) throw new TransitionError(`submission ${id} has no recorded withdrawal to undo`);
  switch (from) {
    case "published":
    case "approved": {
      // A withdrawal row from before runs were recorded on it: nothing moves the current run of a withdrawn submission.
      const approvedRun = typeof withdrawal?.details?.runId === "number" ? withdrawal.details.runId : sub.currentRunId;
      const [run] = sub.currentRunId === null ? [] : await db.select().from(scoringRuns).where(eq(scoringRuns.id, sub.currentRunId)).limit(1);
      if (!run || run.status !== "completed") return { from, to: "queued" };
      if (run.id === approvedRun) return { from, to: from };
      // Another run: back to where that run left the submission (error when it had items no judge could grade).
      // The run is matched here rather than in SQL (JSON paths differ by engine): a submission has few such rows.
      const settled = (
        await db
          .select({ toState: auditLog.toState, details: auditLog.details })
          .from(auditLog)
          .where(and(eq(auditLog.submissionId, id), inArray(auditLog.toState, ["scored", "error"])))
          .orderBy(desc(auditLog.id))
      ).find((row) => row.details?.runId === run.id);
      return { from, to: settled?.toState === "error" ? "error" : "scored" };
    }
    case "scored":
    case "error":
    case "invalid":
      return { from, to: from };
    case "queued":
    case "scoring":
      return { from, to: "queued" };
    default:
      throw new TransitionError(`submission ${id} was withdrawn while ${from}, before it was validated: it cannot be restored, submit it again`);
  }
}

/**
 * Undoes a withdrawal (see restorePlan for where it goes). Restoring one that is no longer
 * withdrawn throws TransitionError and changes nothing, so a repeated restore is harmless.
 */
export async function restore(db: Db, id: number, who: Actor, reason = ""): Promise<RestorePlan> {
  const planned = await restorePlan(db, id);
  const benchmark = planned.to === "queued" ? await benchmarkOfVersion(db, (await current(db, id)).benchmarkVersionId) : null;
  return writeTx(db, async (tx) => {
    // Decided again in the writing transaction: another action may have landed meanwhile.
    const plan = await restorePlan(tx, id);
    if (plan.to !== planned.to) throw new TransitionError(`submission ${id} changed while it was being restored`);
    const move = { actor: who.actor, at: who.at, reason };
    if (plan.to === "queued") {
      const runId = await queueRun(tx, id, benchmark!, {}, who.at);
      await restoreTransition(tx, id, "queued", { ...move, details: { runId, restoredFrom: plan.from } });
    } else if (plan.to === "published") {
      // A judge whose calibration no longer meets the bar (judge.minKappa) keeps it approved, off the board.
      const held = await publicationHold(tx, id);
      if (held) {
        await restoreTransition(tx, id, "approved", { ...move, details: { runId: (await current(tx, id)).currentRunId, restoredFrom: plan.from } });
        await tx.insert(auditLog).values({ at: who.at, actor: who.actor, action: "publication:held", submissionId: id, reason: held, details: { runId: (await current(tx, id)).currentRunId } });
      } else await restoreTransition(tx, id, "published", { ...move, details: { ...(await publicationDetails(tx, id)), restoredFrom: plan.from } });
    } else {
      await restoreTransition(tx, id, plan.to, { ...move, details: { runId: (await current(tx, id)).currentRunId, restoredFrom: plan.from } });
    }
    return plan;
  });
}

/** Longest reason kept for clearing a flag (a form field's length). */
export const MAX_CLEARING_REASON = 2000;

/**
 * Clears one integrity flag of the submission's current run (`key`: integrity-flags.ts
 * `flagKey`), with the maintainer's reason: the flag leaves every public page, badge, filter
 * and the bot comment, and stays listed for maintainers with the reason; the audit log keeps
 * who, when and why (the reason in its details: the entry's public timeline says only that a
 * flag was cleared). `runId` is the run whose flags the maintainer saw: if another run has
 * become current since, or the flag is no longer raised, nothing changes (TransitionError).
 * Later runs of the same bundle content keep it cleared (run-integrity.ts).
 */
export async function clearFlag(db: Db, id: number, flag: { runId: number; key: string; reason: string }, who: Actor): Promise<void> {
  const reason = flag.reason.trim().slice(0, MAX_CLEARING_REASON);
  if (!reason) throw new TransitionError("clearing a flag needs a reason");
  await writeTx(db, async (tx) => {
    const sub = await current(tx, id);
    if (sub.currentRunId !== flag.runId) throw new TransitionError(`submission ${id} shows another run now: look at its flags again`);
    const cleared = await clearRunFlag(tx, flag.runId, flag.key, { reason, by: who.actor, at: who.at });
    if (!cleared) throw new TransitionError(`submission ${id} has no such flag raised`);
    // The entry's timeline is public: it says that a flag was cleared; why is for maintainers (the details, /admin/flags).
    await tx.insert(auditLog).values({ at: who.at, actor: who.actor, action: "flag:cleared", submissionId: id, reason: `${FLAG_KIND_LABELS[cleared.kind]} flag cleared by a maintainer`, details: { runId: flag.runId, kind: cleared.kind, key: flag.key, message: cleared.message, reason } });
  });
}
