/**
 * A completed run's integrity flags: the engine's (unsupported answers, canaries) and the
 * duplicates, which need the other entries of the board. Written in the transaction that
 * completes the run, so the flags are there before anyone can approve it.
 *
 * Duplicates: the run's item fingerprints (item-fingerprint.ts; capability and uuid are part of
 * each) are matched in one join against the current completed runs of every other entry of the
 * same benchmark version that is scored, approved or published. The share is of the flagged
 * entry's own answered items (those with a fingerprint): at or above `DUPLICATE_SHARE`, the
 * newer of the two entries (the later submission) is flagged, naming the older one; the older
 * entry is never flagged by a newcomer copying it. When the matching entry is the newer one
 * (it was scored first), its current run gets the flag.
 */
import { and, count, eq, isNotNull, sql } from "drizzle-orm";
import { dialectOf, type Tx } from "../../db/client";
import { auditLog, itemResults, scoringRuns } from "../../db/schema";
import { duplicateFlag, type IntegrityFlag, type RunIntegrity } from "../scoring/integrity-flags";

/** The share of an entry's answered items that must match another's for a duplicate flag. */
export const DUPLICATE_SHARE = 0.9;

/** States whose entries a newcomer is compared with: not withdrawn, rejected, invalid or unfinished. */
const COMPARED_STATES = ["scored", "approved", "published"] as const;

interface Match {
  runId: number;
  id: number;
  agent: string;
  /** This run's items that match, and the other run's. */
  mine: number;
  theirs: number;
  /** The other run's answered items. */
  theirTotal: number;
}

async function answeredItems(tx: Tx, runId: number): Promise<number> {
  const [row] = await tx.select({ n: count() }).from(itemResults).where(and(eq(itemResults.runId, runId), isNotNull(itemResults.fingerprint)));
  return row?.n ?? 0;
}

// db/client.ts's dialectOf knows the handles it opened, not the transactions begun on them.
const onPostgres = (tx: Tx) => dialectOf(tx) === "postgres";

/**
 * The other entries' current runs sharing fingerprints with this run, with the counts on both
 * sides. On SQLite, CROSS JOIN keeps the join order: this run's items (by run), their matches
 * (by the fingerprint index), then the matches' runs and submissions (by primary key), so the
 * cost follows this run's items and their matches, never the size of the board. Postgres has
 * no CROSS JOIN … ON (its planner starts from the selective side by itself): plain JOINs.
 */
function matches(tx: Tx, run: { id: number; submissionId: number; versionId: number }): Promise<Match[]> {
  const join = onPostgres(tx) ? sql.raw("JOIN") : sql.raw("CROSS JOIN");
  const from = sql`item_results me
    ${join} item_results o ON o.fingerprint = me.fingerprint AND o.run_id <> me.run_id
    ${join} scoring_runs r ON r.id = o.run_id
    ${join} submissions s ON s.id = r.submission_id AND s.current_run_id = o.run_id`;
  // Through the query builder, so it runs on a transaction of either engine.
  return tx
    .select({
      runId: sql<number>`o.run_id`.mapWith(Number),
      id: sql<number>`s.id`.mapWith(Number),
      agent: sql<string>`s.agent_name`,
      mine: sql<number>`count(DISTINCT me.id)`.mapWith(Number),
      theirs: sql<number>`count(DISTINCT o.id)`.mapWith(Number),
      theirTotal: sql<number>`(SELECT count(*) FROM item_results t WHERE t.run_id = o.run_id AND t.fingerprint IS NOT NULL)`.mapWith(Number),
    })
    .from(from)
    .where(
      sql`me.run_id = ${run.id} AND me.fingerprint IS NOT NULL
      AND s.benchmark_version_id = ${run.versionId} AND s.id <> ${run.submissionId}
      AND s.state IN (${sql.join(COMPARED_STATES.map((s) => sql`${s}`), sql`, `)})`,
    )
    .groupBy(sql`o.run_id, s.id, s.agent_name`)
    // One order on both engines (SQLite's grouping gave it already): the flags list in it.
    .orderBy(sql`o.run_id, s.id`);
}

/** Stores the run's flags (the engine's and its duplicates) and flags newer entries that copy it. */
export async function recordRunIntegrity(tx: Tx, run: { id: number; submissionId: number; versionId: number; agent: string }, engine: RunIntegrity, at: Date): Promise<RunIntegrity> {
  const total = await answeredItems(tx, run.id);
  const flags: IntegrityFlag[] = [...engine.flags];
  for (const m of await matches(tx, run)) {
    if (m.id < run.submissionId) {
      if (total > 0 && m.mine / total >= DUPLICATE_SHARE) flags.push(duplicateFlag({ id: m.id, agent: m.agent }, m.mine, total, DUPLICATE_SHARE));
    } else if (m.theirTotal > 0 && m.theirs / m.theirTotal >= DUPLICATE_SHARE) {
      await flagNewer(tx, m, duplicateFlag({ id: run.submissionId, agent: run.agent }, m.theirs, m.theirTotal, DUPLICATE_SHARE), at);
    }
  }
  const integrity = { ...engine, flags };
  await tx.update(scoringRuns).set({ flags: integrity }).where(eq(scoringRuns.id, run.id));
  return integrity;
}

/** Adds (or renews) a duplicate flag on a newer entry's current run, with an audit row on that entry (its pages change). */
async function flagNewer(tx: Tx, m: Match, flag: IntegrityFlag, at: Date): Promise<void> {
  const [row] = await tx.select({ flags: scoringRuns.flags }).from(scoringRuns).where(eq(scoringRuns.id, m.runId)).limit(1);
  const current = row?.flags ?? { flags: [], unsupportedAnswers: { threshold: null, capabilities: {} } };
  const others = current.flags.filter((f) => !(f.kind === "duplicate" && f.other?.id === flag.other?.id));
  await tx.update(scoringRuns).set({ flags: { ...current, flags: [...others, flag] } }).where(eq(scoringRuns.id, m.runId));
  await tx.insert(auditLog).values({ at, actor: "worker", action: "flag:duplicate", submissionId: m.id, reason: flag.message, details: { runId: m.runId, other: flag.other ?? null } });
}
