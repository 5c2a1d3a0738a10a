/**
 * Entries of one benchmark version resampled on one plan (lib/aggregate/paired-bootstrap.ts):
 * the input of the one paired test behind both the board's ranks and the compare page's
 * verdicts. Both read an entry's items here and resample them here, so the two can never
 * disagree on a pair.
 *
 * The plan's items are the version's: every run of a version holds one result per ground-truth
 * item (the scorer writes a missing prediction as an item scoring 0), so the items of any runs
 * of the version are the same set. Ordered by capability as the benchmark lists them, then
 * domain, then id. A run of k trials enters with each item's mean over its trials; a capability
 * the entry did not submit scores 0 on every item, as on the board.
 */
import { createHash } from "node:crypto";
import { inArray, sql } from "drizzle-orm";
import { rows, type Db } from "../../db/client";
import { scoringRuns } from "../../db/schema";
import { BOOTSTRAP_ITERATIONS } from "../aggregate/aggregate";
import { resampleEntry, resamplePlan, type ResampledEntry, type ResamplePlan } from "../aggregate/paired-bootstrap";
import { createVerdictMemo, rankEntries, type VerdictMemo } from "../aggregate/rank";
import { itemKey } from "../benchmark/item-key";

/** An item of a run as the paired test reads it. */
export interface ItemScore {
  capability: string;
  domain: string;
  uuid: string;
  weight: number;
  /** The item's mean over the run's trials (its score, for one trial). */
  score: number;
}

/** Runs read per query. */
const RUNS_PER_QUERY = 200;

/** Each run's items, an item once (its mean over trials), in one query per 200 runs from the item summary index. */
export async function itemScoresOf(db: Db, runIds: readonly number[]): Promise<Map<number, ItemScore[]>> {
  const out = new Map<number, ItemScore[]>(runIds.map((id) => [id, []]));
  for (let at = 0; at < runIds.length; at += RUNS_PER_QUERY) {
    const ids = runIds.slice(at, at + RUNS_PER_QUERY);
    const read = await rows<ItemScore & { run_id: number }>(
      db,
      sql`SELECT run_id, capability, uuid, min(domain) AS domain, max(weight) AS weight, avg(score) AS score
          FROM item_results WHERE run_id IN (${sql.join(ids.map((id) => sql`${id}`), sql`, `)})
          GROUP BY run_id, capability, uuid`,
    );
    for (const r of read) out.get(Number(r.run_id))?.push({ capability: r.capability, domain: r.domain, uuid: r.uuid, weight: Number(r.weight), score: Number(r.score) });
  }
  return out;
}

/** A plan and where each item sits in it. */
export interface VersionPlan {
  plan: ResamplePlan;
  /** Item key → [capability's position, item's position within it]. */
  slots: Map<string, readonly [number, number]>;
  nItems: number;
  /** What the plan was built from (capabilities, items, weights, resamples), hashed: runs resampled on equal keys can be compared. */
  key: string;
}

/** The plan of the items of these runs (their union), capabilities in the benchmark's order; items of other capabilities are not scored and not resampled. */
export function versionPlan(capabilityIds: readonly string[], runs: Iterable<readonly ItemScore[]>): VersionPlan {
  const position = new Map(capabilityIds.map((c, i) => [c, i]));
  const items = new Map<string, ItemScore>();
  for (const run of runs) for (const it of run) if (position.has(it.capability) && !items.has(itemKey(it.capability, it.uuid))) items.set(itemKey(it.capability, it.uuid), it);
  const cmp = (x: string, y: string) => (x < y ? -1 : x > y ? 1 : 0);
  const byCapability: ItemScore[][] = capabilityIds.map(() => []);
  for (const it of items.values()) byCapability[position.get(it.capability)!]!.push(it);
  const slots = new Map<string, readonly [number, number]>();
  byCapability.forEach((list, s) => {
    list.sort((x, y) => cmp(x.domain, y.domain) || cmp(x.uuid, y.uuid));
    list.forEach((it, i) => slots.set(itemKey(it.capability, it.uuid), [s, i]));
  });
  const plan = resamplePlan(byCapability.map((list, s) => ({ id: capabilityIds[s]!, weights: list.map((it) => it.weight) })));
  const key = createHash("sha256");
  key.update(`${plan.iterations}\n`);
  byCapability.forEach((list, s) => {
    key.update(`${capabilityIds[s]}\n`);
    for (const it of list) key.update(`${it.domain}\0${it.uuid}\0${it.weight}\n`);
  });
  return { plan, slots, nItems: items.size, key: key.digest("hex").slice(0, 32) };
}

/** One run on the plan; an item of the plan the run has no result for scores 0 (a missing prediction). */
export function resampleRun(vp: VersionPlan, items: readonly ItemScore[], submitted: ReadonlySet<string>, opts: { strata?: boolean } = {}): ResampledEntry {
  const scores = vp.plan.strata.map((s) => new Array<number>(s.weights.length).fill(0));
  for (const it of items) {
    const slot = vp.slots.get(itemKey(it.capability, it.uuid));
    if (slot && submitted.has(it.capability)) scores[slot[0]]![slot[1]] = it.score;
  }
  return resampleEntry(vp.plan, scores, opts);
}

/**
 * A completed run's overall resampled on its version's plan, as the worker stores it with the run
 * (`scoring_runs.overall_resamples`): `<plan key> <score> <resamples as little-endian float32,
 * base64>`. A completed run's items never change, so neither does this; the board then ranks
 * without reading any run's items (5,000 entries × 300 items: every item row read and resampled
 * at each server process's first board, some seconds, otherwise).
 */
export async function storedOverallResamples(db: Db, runId: number, capabilityIds: readonly string[], submitted: ReadonlySet<string>): Promise<string> {
  const items = (await itemScoresOf(db, [runId])).get(runId) ?? [];
  const vp = versionPlan(capabilityIds, [items]);
  const { overall } = resampleRun(vp, items, submitted);
  const bytes = Buffer.alloc(overall.resampled.length * 4);
  overall.resampled.forEach((v, i) => bytes.writeFloatLE(v, i * 4));
  return `${vp.key} ${overall.score} ${bytes.toString("base64")}`;
}

/** The stored resamples of a run, or null for none or any other shape (its items are read instead). */
export function parseStoredResamples(raw: unknown, iterations: number): { key: string; sample: ResampledEntry["overall"] } | null {
  if (typeof raw !== "string" || raw.length > 64 + iterations * 8) return null;
  const [key, score, data, ...rest] = raw.split(" ");
  if (rest.length || !key || !/^[0-9a-f]{32}$/.test(key) || !data) return null;
  const value = Number(score);
  const bytes = Buffer.from(data, "base64");
  if (!Number.isFinite(value) || bytes.length !== iterations * 4) return null;
  const resampled = new Float32Array(iterations);
  for (let i = 0; i < iterations; i++) resampled[i] = bytes.readFloatLE(i * 4);
  return { key, sample: { score: value, resampled } };
}

/**
 * A version's plan, its published runs resampled on it and their ranks: kept per database, as a
 * completed run's items never change, so neither do its resamples nor the ranks of one set of runs.
 */
interface VersionSamples {
  capabilities: string;
  /** The plan's key; its items and draws (null while every run came resampled from storage). */
  key: string;
  vp: VersionPlan | null;
  runs: Map<number, ResampledEntry["overall"]>;
  /** The paired tests already run between these runs (by run id), for the next ranking. */
  verdicts: VerdictMemo;
  /** The ranks of the last set of runs ranked (its run ids, sorted and joined). */
  ranked?: { runs: string; ranks: Map<number, number> };
}
const kept = new WeakMap<Db, Map<number, VersionSamples>>();

type BoardRun = { runId: number; submitted: ReadonlySet<string> };

/**
 * The board's ranks of these runs of one version (lib/aggregate/rank.ts), by run id. The data
 * version moves with every audited change, most of which leave the published runs as they were:
 * the same runs keep their ranks without a test, and a new run's items are the only ones read.
 */
export async function rankRuns(db: Db, versionId: number, capabilityIds: readonly string[], runs: readonly BoardRun[]): Promise<Map<number, number>> {
  const key = runs.map((r) => r.runId).sort((a, b) => a - b).join(",");
  const known = kept.get(db)?.get(versionId);
  if (known?.ranked?.runs === key && known.capabilities === capabilityIds.join("\0")) return known.ranked.ranks;
  const state = await resampledRuns(db, versionId, capabilityIds, runs);
  const byId = rankEntries(
    [...state.runs].map(([runId, sample]) => ({ id: String(runId), sample })),
    state.verdicts,
  );
  state.verdicts.keep(byId.keys());
  const ranks = new Map([...byId].map(([id, rank]) => [Number(id), rank]));
  state.ranked = { runs: key, ranks };
  return ranks;
}

/**
 * The version's state holding the overall resamples of these runs (and no others), for ranking.
 * Runs resampled before are taken from memory; a run whose items are not all in the plan
 * rebuilds it and resamples every run again.
 */
async function resampledRuns(db: Db, versionId: number, capabilityIds: readonly string[], runs: readonly BoardRun[]): Promise<VersionSamples> {
  let byVersion = kept.get(db);
  if (!byVersion) kept.set(db, (byVersion = new Map()));
  const capabilities = capabilityIds.join("\0");
  let state = byVersion.get(versionId);
  if (state && state.capabilities !== capabilities) state = undefined;
  const unknown = runs.filter((r) => !state?.runs.has(r.runId)).map((r) => r.runId);
  const stored = await storedResamplesOf(db, unknown);
  const key = state?.key ?? stored.values().next().value?.key;
  if (key !== undefined && stored.size === unknown.length && [...stored.values()].every((s) => s.key === key)) {
    // Every run new to this process came resampled on the same plan: no item is read.
    state ??= { capabilities, key, vp: null, runs: new Map(), verdicts: createVerdictMemo() };
    for (const [id, s] of stored) state.runs.set(id, s.sample);
  } else {
    const fresh = await itemScoresOf(db, unknown);
    const vp = state?.vp;
    const fits = (items: readonly ItemScore[]) => items.every((it) => !capabilityIds.includes(it.capability) || vp!.slots.has(itemKey(it.capability, it.uuid)));
    if (!state || !vp || ![...fresh.values()].every(fits)) {
      const all = new Map([...(await itemScoresOf(db, runs.map((r) => r.runId).filter((id) => !fresh.has(id)))), ...fresh]);
      const plan = versionPlan(capabilityIds, all.values());
      state = { capabilities, key: plan.key, vp: plan, runs: new Map(), verdicts: createVerdictMemo() };
      for (const [id, items] of all) fresh.set(id, items);
    }
    for (const r of runs) {
      const items = fresh.get(r.runId);
      if (items) state.runs.set(r.runId, resampleRun(state.vp!, items, r.submitted).overall);
    }
  }
  const done = state;
  const current: VersionSamples = { ...done, runs: new Map(runs.map((r) => [r.runId, done.runs.get(r.runId)!])) };
  byVersion.set(versionId, current);
  return current;
}

/** The stored overall resamples of these runs that have any, by run id. */
async function storedResamplesOf(db: Db, runIds: readonly number[]): Promise<Map<number, NonNullable<ReturnType<typeof parseStoredResamples>>>> {
  const out = new Map<number, NonNullable<ReturnType<typeof parseStoredResamples>>>();
  for (let at = 0; at < runIds.length; at += RUNS_PER_QUERY) {
    const ids = runIds.slice(at, at + RUNS_PER_QUERY);
    const read = await db.select({ id: scoringRuns.id, raw: scoringRuns.overallResamples }).from(scoringRuns).where(inArray(scoringRuns.id, ids));
    for (const r of read) {
      const parsed = parseStoredResamples(r.raw, BOOTSTRAP_ITERATIONS);
      if (parsed) out.set(r.id, parsed);
    }
  }
  return out;
}
