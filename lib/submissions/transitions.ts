/**
 * Submission states and the moves between them (DESIGN.md §6). Every move is written with
 * its audit row in the same transaction, so the log is complete by construction.
 */
import { eq } from "drizzle-orm";
import type { Db } from "../../db/client";
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
  withdrawn: [],
};

export class TransitionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "TransitionError";
  }
}

export type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0];

export interface Move {
  actor: string;
  reason?: string;
  details?: Record<string, unknown>;
  at: Date;
}

/** Moves a submission to `to` and appends the audit row; call inside a transaction. */
export function transition(tx: Tx | Db, submissionId: number, to: SubmissionState, move: Move): void {
  const row = tx.select({ state: submissions.state }).from(submissions).where(eq(submissions.id, submissionId)).get();
  if (!row) throw new TransitionError(`submission ${submissionId} does not exist`);
  if (!ALLOWED[row.state].includes(to)) throw new TransitionError(`submission ${submissionId} cannot go from ${row.state} to ${to}`);
  tx.update(submissions).set({ state: to, updatedAt: move.at }).where(eq(submissions.id, submissionId)).run();
  tx.insert(auditLog)
    .values({ at: move.at, actor: move.actor, action: `state:${to}`, submissionId, fromState: row.state, toState: to, reason: move.reason ?? "", details: move.details ?? null })
    .run();
}
