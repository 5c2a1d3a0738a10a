/**
 * A completed run's integrity flags: the engine's (unsupported answers, canaries) and the
 * copies, which need the other entries of the board. Written in the transaction that completes
 * the run, so the flags are there before anyone can approve it.
 *
 * Copies: the run's item fingerprints (item-fingerprint.ts; capability and uuid are part of
 * each) are matched in one join against the current completed runs of every other entry of the
 * same benchmark version that is scored, approved or published. Who copied whom is decided by
 * when each entry's bundle content was received (`submissions.bundle_received_at`: a revision
 * is received when it is made), never by submission id, which a revision keeps: an entry is
 * flagged only as a copy of content received before its own, so an entry already on the board
 * is never flagged by content that arrived after it. Shares are of the flagged entry's own
 * answered items (those with a fingerprint):
 * - `duplicate`: at or above `DUPLICATE_SHARE`;
 * - `near_copy`: at or above `NEAR_COPY_SHARE` and every item scored the same as there (a
 *   copy with some answers reworded to dodge the duplicate flag).
 * Each kind is one flag however many entries match: it names the first received and counts
 * the others (by id, so none twice, up to MAX_COUNTED_ENTRIES: a board whose entries all
 * answer alike keeps small flags). A near copy is looked for only among runs with this run's
 * overall score (every item scored the same gives the same), so the item-by-item check runs
 * on few candidates. When a matching entry was received after this one but
 * scored first, it is the copy: this one is counted in its flag (`reflagLater`). A flag a
 * maintainer cleared stays cleared on the runs of the same bundle content (`clearRunFlag`).
 */
import { and, count, desc, eq, inArray, isNotNull, ne, sql } from "drizzle-orm";
import { dialectOf, type Tx } from "../../db/client";
import { auditLog, itemResults, scoringRuns, submissions } from "../../db/schema";
import { COPY_FLAG_KINDS, MAX_COUNTED_ENTRIES, countedEntries, duplicateFlag, flagKey, nearCopyFlag, storedCleared, storedFlags, type ClearedFlag, type IntegrityFlag, type RunIntegrity } from "../scoring/integrity-flags";

/** The share of an entry's answered items that must match another's for a duplicate flag. */
export const DUPLICATE_SHARE = 0.9;
/** The share for a near copy (with every item scored the same): most of them, at least half. */
export const NEAR_COPY_SHARE = 0.5;

/** States whose entries a newcomer is compared with: not withdrawn, rejected, invalid or unfinished. */
const COMPARED_STATES = ["scored", "approved", "published"] as const;

const EMPTY: RunIntegrity = { flags: [], unsupportedAnswers: { threshold: null, capabilities: {} } };

export interface RunRef {
  id: number;
  submissionId: number;
  versionId: number;
}

/** An entry in received order: when its bundle content arrived, the id breaking ties. */
interface Received {
  id: number;
  receivedAt: number;
}

interface Match extends Received {
  runId: number;
  agent: string;
  /** This run's items that match, and the other run's. */
  mine: number;
  theirs: number;
  /** The other run's answered items. */
  theirTotal: number;
  /** Whether the other run's overall score equals this run's: runs whose items all score the same have the same. */
  sameOverall: boolean;
}

const before = (a: Received, b: Received) => a.receivedAt < b.receivedAt || (a.receivedAt === b.receivedAt && a.id < b.id);
const byReceived = (a: Received, b: Received) => a.receivedAt - b.receivedAt || a.id - b.id;

/** When the entry's current bundle content was received (rows from before the column: when it was made). */
const receivedAt = sql<number>`COALESCE(s.bundle_received_at, s.created_at)`.mapWith(Number);

async function answeredItems(tx: Tx, runId: number): Promise<number> {
  const [row] = await tx.select({ n: count() }).from(itemResults).where(and(eq(itemResults.runId, runId), isNotNull(itemResults.fingerprint)));
  return row?.n ?? 0;
}

async function received(tx: Tx, submissionId: number): Promise<Received> {
  const [row] = await tx.select({ bundleReceivedAt: submissions.bundleReceivedAt, createdAt: submissions.createdAt }).from(submissions).where(eq(submissions.id, submissionId)).limit(1);
  return { id: submissionId, receivedAt: (row?.bundleReceivedAt ?? row?.createdAt ?? new Date(0)).getTime() };
}

/** The answered items of the matching run `o`. */
const theirTotal = sql`(SELECT count(*) FROM item_results t WHERE t.run_id = o.run_id AND t.fingerprint IS NOT NULL)`;

// db/client.ts's dialectOf knows the handles it opened, not the transactions begun on them.
const onPostgres = (tx: Tx) => dialectOf(tx) === "postgres";

/**
 * The other entries' current runs sharing fingerprints with this run, with the counts on both
 * sides. On SQLite, CROSS JOIN keeps the join order: this run's items (by run), their matches
 * (by the fingerprint index), then the matches' runs and submissions (by primary key), so the
 * cost follows this run's items and their matches, never the size of the board. Postgres has
 * no CROSS JOIN … ON (its planner starts from the selective side by itself): plain JOINs.
 * Only runs that could be a copy either way come back: sharing at least NEAR_COPY_SHARE of this
 * run's `total` answered items, or of their own.
 */
async function matches(tx: Tx, run: RunRef, total: number): Promise<Match[]> {
  const join = onPostgres(tx) ? sql.raw("JOIN") : sql.raw("CROSS JOIN");
  // A literal (a constant of ours): Postgres would type a bound share as the count's bigint.
  const near = sql.raw(String(NEAR_COPY_SHARE));
  const from = sql`item_results me
    ${join} item_results o ON o.fingerprint = me.fingerprint AND o.run_id <> me.run_id
    ${join} scoring_runs r ON r.id = o.run_id
    ${join} submissions s ON s.id = r.submission_id AND s.current_run_id = o.run_id`;
  const [mine] = await tx.select({ overall: scoringRuns.overallScore }).from(scoringRuns).where(eq(scoringRuns.id, run.id)).limit(1);
  // Through the query builder, so it runs on a transaction of either engine.
  const rows = await tx
    .select({
      runId: sql<number>`o.run_id`.mapWith(Number),
      id: sql<number>`s.id`.mapWith(Number),
      agent: sql<string>`s.agent_name`,
      receivedAt,
      mine: sql<number>`count(DISTINCT me.id)`.mapWith(Number),
      theirs: sql<number>`count(DISTINCT o.id)`.mapWith(Number),
      theirTotal: sql<number>`${theirTotal}`.mapWith(Number),
      overall: sql<number | null>`r.overall_score`,
    })
    .from(from)
    .where(
      sql`me.run_id = ${run.id} AND me.fingerprint IS NOT NULL
      AND s.benchmark_version_id = ${run.versionId} AND s.id <> ${run.submissionId}
      AND s.state IN (${sql.join(COMPARED_STATES.map((s) => sql`${s}`), sql`, `)})`,
    )
    .groupBy(sql`o.run_id, s.id, s.agent_name, s.bundle_received_at, s.created_at, r.overall_score`)
    .having(sql`count(DISTINCT me.id) >= ${near} * ${total} OR count(DISTINCT o.id) >= ${near} * ${theirTotal}`)
    // One order on both engines (SQLite's grouping gave it already).
    .orderBy(sql`o.run_id, s.id`);
  return rows.map(({ overall, ...m }) => ({ ...m, sameOverall: (overall === null ? null : Number(overall)) === (mine?.overall ?? null) }));
}

/** Runs compared with this one for same scores in one query (an IN list of run ids). */
const SCORE_CHECK_CHUNK = 200;

/**
 * Of the other runs, those holding the same items as this run with the same scores (the same
 * per-item score vector), in one query each for their sizes and their agreement: the size of
 * that vector by run.
 */
async function sameScoreRuns(tx: Tx, runId: number, otherRunIds: readonly number[]): Promise<Map<number, number>> {
  const same = new Map<number, number>();
  if (otherRunIds.length === 0) return same;
  const runs = [runId, ...otherRunIds];
  const totals = await tx.select({ runId: itemResults.runId, n: count() }).from(itemResults).where(inArray(itemResults.runId, runs)).groupBy(itemResults.runId);
  const mine = totals.find((t) => t.runId === runId)?.n ?? 0;
  const sized = totals.filter((t) => t.runId !== runId && t.n === mine).map((t) => t.runId);
  if (mine === 0 || sized.length === 0) return same;
  // A self-join written once for both engines (an aliased table renders for one dialect only);
  // y is read by the unique index on (run, capability, uuid, trial).
  const agreeing = await tx
    .select({ runId: sql<number>`y.run_id`.mapWith(Number), n: sql<number>`count(*)`.mapWith(Number) })
    .from(sql`item_results x JOIN item_results y ON y.run_id IN (${sql.join(sized.map((id) => sql`${id}`), sql`, `)}) AND y.capability = x.capability AND y.uuid = x.uuid AND y.trial = x.trial AND y.score = x.score`)
    .where(sql`x.run_id = ${runId}`)
    .groupBy(sql`y.run_id`);
  for (const a of agreeing) if (a.n === mine) same.set(a.runId, mine);
  return same;
}

/** The number of items when both runs hold the same items with the same scores, else null. */
async function sameScores(tx: Tx, runId: number, otherRunId: number): Promise<number | null> {
  return (await sameScoreRuns(tx, runId, [otherRunId])).get(otherRunId) ?? null;
}

/**
 * The near copies among the candidates (earliest received first): checked a chunk at a time,
 * until the flag would count no more (MAX_COUNTED_ENTRIES).
 */
async function nearCopies(tx: Tx, runId: number, candidates: readonly Match[]): Promise<{ near: Match[]; items: number }> {
  const near: Match[] = [];
  let items = 0;
  for (let i = 0; i < candidates.length && near.length < MAX_COUNTED_ENTRIES; i += SCORE_CHECK_CHUNK) {
    const chunk = candidates.slice(i, i + SCORE_CHECK_CHUNK);
    const same = await sameScoreRuns(tx, runId, chunk.map((m) => m.runId));
    for (const m of chunk) {
      const n = same.get(m.runId);
      if (n === undefined) continue;
      near.push(m);
      items = n;
    }
  }
  return { near, items };
}

/**
 * The run's copy flags against the entries received before it (one per kind, naming the
 * first received and counting the others), and the matching entries received after it,
 * which may be copies of it.
 */
async function findCopies(tx: Tx, run: RunRef): Promise<{ flags: IntegrityFlag[]; later: Match[] }> {
  const me = await received(tx, run.submissionId);
  const total = await answeredItems(tx, run.id);
  const found = await matches(tx, run, total);
  const earlier = found.filter((m) => before(m, me)).sort(byReceived);
  const later = found.filter((m) => !before(m, me));
  if (total === 0) return { flags: [], later };
  const duplicates = earlier.filter((m) => m.mine / total >= DUPLICATE_SHARE);
  const { near, items } = await nearCopies(tx, run.id, earlier.filter((m) => m.sameOverall && m.mine / total >= NEAR_COPY_SHARE && m.mine / total < DUPLICATE_SHARE));
  const flags: IntegrityFlag[] = [];
  const [dup, near0] = [duplicates[0], near[0]];
  const ids = (ms: readonly Match[]) => ms.slice(0, MAX_COUNTED_ENTRIES).map((m) => m.id);
  if (dup) flags.push(duplicateFlag({ id: dup.id, agent: dup.agent }, dup.mine, total, DUPLICATE_SHARE, ids(duplicates)));
  if (near0) flags.push(nearCopyFlag({ id: near0.id, agent: near0.agent }, near0.mine, total, NEAR_COPY_SHARE, items, ids(near)));
  return { flags, later };
}

/**
 * Takes the run's row lock before its flags are read and written back (a no-op write): on
 * Postgres a concurrent writer of the same run's flags (another run completing, a maintainer
 * clearing a flag) waits instead of overwriting; SQLite writers are serialised already.
 */
async function lockRun(tx: Tx, runId: number): Promise<void> {
  await tx.update(scoringRuns).set({ flags: sql`${scoringRuns.flags}` }).where(eq(scoringRuns.id, runId));
}

async function storedIntegrity(tx: Tx, runId: number): Promise<RunIntegrity> {
  const [row] = await tx.select({ flags: scoringRuns.flags }).from(scoringRuns).where(eq(scoringRuns.id, runId)).limit(1);
  return row?.flags ?? EMPTY;
}

/** Flags whose key a maintainer cleared move to `cleared` (with the flag as raised now); the rest stay raised. */
function applyClearings(integrity: RunIntegrity, clearings: readonly ClearedFlag[]): RunIntegrity {
  const byKey = new Map(clearings.map((c) => [flagKey(c.flag), c]));
  const flags: IntegrityFlag[] = [];
  const cleared: ClearedFlag[] = [];
  for (const f of integrity.flags) {
    const c = byKey.get(flagKey(f));
    if (c) cleared.push({ ...c, flag: f });
    else flags.push(f);
  }
  const { cleared: _old, ...rest } = integrity;
  return { ...rest, flags, ...(cleared.length ? { cleared } : {}) };
}

/**
 * The clearings that still apply to the run: its own (a run whose flags are worked out again,
 * refresh-fingerprints.ts), and those of the submission's previous completed run made since its
 * bundle content was received (a rescore of the same bundle keeps them; a new bundle is looked
 * at afresh).
 */
async function carriedClearings(tx: Tx, run: RunRef): Promise<ClearedFlag[]> {
  const own = storedCleared(await storedIntegrity(tx, run.id));
  const [prev] = await tx
    .select({ flags: scoringRuns.flags })
    .from(scoringRuns)
    .where(and(eq(scoringRuns.submissionId, run.submissionId), ne(scoringRuns.id, run.id), eq(scoringRuns.status, "completed")))
    .orderBy(desc(scoringRuns.id))
    .limit(1);
  const earlier = storedCleared(prev?.flags);
  if (earlier.length === 0) return own;
  const since = (await received(tx, run.submissionId)).receivedAt;
  return [...earlier.filter((c) => Date.parse(c.at) >= since), ...own];
}

/** Stores the run's flags (the engine's and its copies) and works out again the flags of entries received after it that match it. */
export async function recordRunIntegrity(tx: Tx, run: RunRef & { agent: string }, engine: RunIntegrity, at: Date): Promise<RunIntegrity> {
  const { flags, later } = await findCopies(tx, run);
  for (const m of later) if (m.theirTotal > 0 && m.theirs / m.theirTotal >= NEAR_COPY_SHARE) await reflagLater(tx, m, run, at);
  const integrity = applyClearings({ ...engine, flags: [...engine.flags, ...flags] }, await carriedClearings(tx, run));
  await tx.update(scoringRuns).set({ flags: integrity }).where(eq(scoringRuns.id, run.id));
  return integrity;
}

/**
 * Works a completed run's copy flags out again (its fingerprints were recomputed,
 * refresh-fingerprints.ts): the engine's flags it holds stand, raised or cleared as they were.
 */
export async function recordRunIntegrityAgain(tx: Tx, run: RunRef & { agent: string }, at: Date): Promise<RunIntegrity> {
  await lockRun(tx, run.id);
  const stored = await storedIntegrity(tx, run.id);
  const engine = [...storedFlags(stored), ...storedCleared(stored).map((c) => c.flag)].filter((f) => !COPY_FLAG_KINDS.includes(f.kind));
  return recordRunIntegrity(tx, run, { ...stored, flags: engine }, at);
}

/**
 * An entry received after the completing one and matching it: the completing entry is counted
 * in its copy flag of that kind (a duplicate at DUPLICATE_SHARE of its answered items, a near
 * copy at NEAR_COPY_SHARE with every item scored the same), named if it was received before
 * the one named so far. Counted once, by id, however often it completes; a few reads, however
 * many entries it matches. A flag kept cleared stays cleared while it names the same entry. A
 * change writes an audit row on that entry saying why its page changed; no change writes nothing.
 */
async function reflagLater(tx: Tx, m: Match, by: RunRef & { agent: string }, at: Date): Promise<void> {
  const share = m.theirs / m.theirTotal;
  const sameItems = share >= DUPLICATE_SHARE || !m.sameOverall ? null : await sameScores(tx, m.runId, by.id);
  if (share < DUPLICATE_SHARE && sameItems === null) return;
  const kind = sameItems === null ? "duplicate" : "near_copy";
  await lockRun(tx, m.runId);
  const current = await storedIntegrity(tx, m.runId);
  const raised = storedFlags(current);
  const cleared = storedCleared(current);
  const was = raised.find((f) => f.kind === kind) ?? cleared.find((c) => c.flag.kind === kind)?.flag;
  const counted = was ? countedEntries(was) : [];
  const first = was?.other && was.other.id !== by.submissionId && before(await received(tx, was.other.id), await received(tx, by.submissionId)) ? was : null;
  const entries = counted.includes(by.submissionId) ? counted : [...counted, by.submissionId];
  const named = first?.other ? { other: first.other, matched: first.count ?? 0, of: first.of ?? m.theirTotal } : { other: { id: by.submissionId, agent: by.agent }, matched: m.theirs, of: m.theirTotal };
  const flag = kind === "duplicate" ? duplicateFlag(named.other, named.matched, named.of, DUPLICATE_SHARE, entries) : nearCopyFlag(named.other, named.matched, named.of, NEAR_COPY_SHARE, sameItems!, entries);
  // Nothing new (counted already, or the count is full and names the same entry): no write, no audit row.
  if (was && JSON.stringify(was) === JSON.stringify(flag)) return;
  const key = flagKey(flag);
  const clearing = cleared.find((c) => flagKey(c.flag) === key);
  const integrity: RunIntegrity = {
    ...current,
    flags: [...raised.filter((f) => f.kind !== kind), ...(clearing ? [] : [flag])],
    ...(cleared.length ? { cleared: cleared.map((c) => (c === clearing ? { ...c, flag } : c)) } : {}),
  };
  await tx.update(scoringRuns).set({ flags: integrity }).where(eq(scoringRuns.id, m.runId));
  if (!clearing) await tx.insert(auditLog).values({ at, actor: "worker", action: `flag:${kind}`, submissionId: m.id, reason: flag.message, details: { runId: m.runId, other: flag.other ?? null } });
}

/** What a maintainer gives to clear a flag. */
export interface FlagClearing {
  reason: string;
  by: string;
  at: Date;
}

/**
 * Moves the run's raised flag with this key (integrity-flags.ts `flagKey`) to its cleared
 * list; returns the flag, or null when no flag with that key is raised on the run.
 */
export async function clearRunFlag(tx: Tx, runId: number, key: string, clearing: FlagClearing): Promise<IntegrityFlag | null> {
  await lockRun(tx, runId);
  const current = await storedIntegrity(tx, runId);
  const flags = storedFlags(current);
  const flag = flags.find((f) => flagKey(f) === key);
  if (!flag) return null;
  const cleared: ClearedFlag = { flag, reason: clearing.reason, by: clearing.by, at: clearing.at.toISOString() };
  await tx
    .update(scoringRuns)
    .set({ flags: { ...current, flags: flags.filter((f) => f !== flag), cleared: [...storedCleared(current), cleared] } })
    .where(eq(scoringRuns.id, runId));
  return flag;
}
