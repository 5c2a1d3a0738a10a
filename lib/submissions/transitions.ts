/**
 * Submission states and the moves between them (DESIGN.md §6). Every move is written with
 * its audit row in the same transaction, so the log is complete by construction.
 */
import { eq } from "drizzle-orm";
import type { Db, Tx } from "../../db/client";
import { auditLog, submissions, type SubmissionState } from "../../db/schema";

// `→ validating` from a settled state is a new revision of the bundle (an edited issue).
const ALLOWED: Record<SubmissionState, SubmissionState[]> = {
  received: ["validating", "withdrawn"],
  validating: ["invalid", "queued"],
  invalid: ["validating", "withdrawn"],
  queued: ["scoring", "validating", "withdrawn"],
  scoring: ["scored", "error", "queued", "withdrawn"],
  error: ["queued", "validating", "withdrawn", "rejected"],
  scored: ["approved", "rejected", "queued", "validating", "withdrawn"],
  approved: ["published", "rejected", "queued", "validating", "withdrawn"],
  published: ["queued", "validating", "withdrawn", "rejected"],
  rejected: ["queued", "validating"],
  // Only a restore leaves `withdrawn` (restoreTransition), so no other action can undo a withdrawal.
  withdrawn: [],
};

/**
 * Where a restore may take a withdrawn submission: back to the state it was withdrawn from,
 * or to `scored` when what it was approved for has changed, or re-queued with a new run.
 * lib/submissions/review.ts decides which, from the audit log.
 */
const RESTORABLE = ["published", "approved", "scored", "error", "invalid", "queued"] as const satisfies readonly SubmissionState[];
export type RestorableState = (typeof RESTORABLE)[number];

export class TransitionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "TransitionError";
  }
}

export type { Tx };

export interface Move {
  actor: string;
  reason?: string;
  details?: Record<string, unknown>;
  at: Date;
}

/** Whether the state machine lets a submission in `from` move to `to` (restores aside). */
export function canMove(from: SubmissionState, to: SubmissionState): boolean {
  return ALLOWED[from].includes(to);
}

/** Moves a submission to `to` and appends the audit row; call inside a transaction. */
export function transition(tx: Tx | Db, submissionId: number, to: SubmissionState, move: Move): Promise<void> {
  return moveState(tx, submissionId, to, move, (from) => canMove(from, to));
}

/** Moves a withdrawn submission back to `to` (one of RESTORABLE), with its audit row. */
export function restoreTransition(tx: Tx | Db, submissionId: number, to: RestorableState, move: Move): Promise<void> {
  return moveState(tx, submissionId, to, move, (from) => from === "withdrawn" && RESTORABLE.includes(to));
}

async function moveState(tx: Tx | Db, submissionId: number, to: SubmissionState, move: Move, allowed: (from: SubmissionState) => boolean): Promise<void> {
  const [row] = await tx.select({ state: submissions.state }).from(submissions).where(eq(submissions.id, submissionId)).limit(1);
  if (!row) throw new TransitionError(`submission ${submissionId} does not exist`);
  if (!allowed(row.state)) throw new TransitionError(`submission ${submissionId} cannot go from ${row.state} to ${to}`);
  await tx.update(submissions).set({ state: to, updatedAt: move.at }).where(eq(submissions.id, submissionId));
  await tx.insert(auditLog).values({ at: move.at, actor: move.actor, action: `state:${to}`, submissionId, fromState: row.state, toState: to, reason: move.reason ?? "", details: move.details ?? null });
}
