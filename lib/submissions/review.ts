/**
 * Maintainer actions on a submission; each is a state move with its audit row. The admin
 * page and GitHub slash commands both come here (`applyReviewAction`), so each action has
 * one implementation.
 */
import { eq } from "drizzle-orm";
import type { Db } from "../../db/client";
import { submissions } from "../../db/schema";
import { benchmarkOfVersion } from "./benchmarks";
import { queueRun, type RunSpec } from "./runs";
import { transition, TransitionError } from "./transitions";

export interface Actor {
  actor: string;
  at: Date;
}

/** A maintainer's decision on a submission, from whichever front end it was taken. */
export type ReviewAction =
  | { name: "approve" }
  | { name: "reject"; reason: string }
  | { name: "rescore"; reason?: string }
  | { name: "withdraw"; reason: string };

/** A form's action name and reason as a ReviewAction, or null for an unknown name. */
export function reviewAction(name: string, reason = ""): ReviewAction | null {
  switch (name) {
    case "approve":
      return { name };
    case "rescore":
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
    case "rescore":
      await rescore(db, id, who, {}, action.reason ?? "");
  }
}

function current(db: Db, id: number) {
  const row = db.select().from(submissions).where(eq(submissions.id, id)).get();
  if (!row) throw new TransitionError(`submission ${id} does not exist`);
  return row;
}

/** Approve a scored submission; it is published at once unless `publish` is false. */
export function approve(db: Db, id: number, who: Actor, opts: { publish?: boolean; reason?: string } = {}): void {
  db.transaction((tx) => {
    transition(tx, id, "approved", { actor: who.actor, at: who.at, reason: opts.reason ?? "" });
    if (opts.publish ?? true) transition(tx, id, "published", { actor: who.actor, at: who.at });
  });
}

export function reject(db: Db, id: number, who: Actor, reason: string): void {
  if (!reason.trim()) throw new TransitionError("a rejection needs a reason");
  db.transaction((tx) => transition(tx, id, "rejected", { actor: who.actor, at: who.at, reason }));
}

export function withdraw(db: Db, id: number, who: Actor, reason = ""): void {
  db.transaction((tx) => transition(tx, id, "withdrawn", { actor: who.actor, at: who.at, reason }));
}

/** A new scoring run; the old ones are kept, and the current one stays until the new completes. */
export async function rescore(db: Db, id: number, who: Actor, spec: Partial<RunSpec> = {}, reason = ""): Promise<number> {
  const benchmark = await benchmarkOfVersion(db, current(db, id).benchmarkVersionId);
  return db.transaction((tx) => {
    const runId = queueRun(tx, id, benchmark, spec, who.at);
    transition(tx, id, "queued", { actor: who.actor, at: who.at, reason, details: { runId } });
    return runId;
  });
}
