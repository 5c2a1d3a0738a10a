/**
 * Two to four entries of one benchmark version side by side. Each entry after the first is set
 * against the first (the baseline) on the same items: a paired bootstrap per capability and
 * overall, the board's own test (its overall verdict is what the board's ranks are built from:
 * resampled-entries.ts), and item by item, the items one passed and the other did not (flips).
 * Flips carry only ids, statuses and scores: nothing of the ground truth.
 *
 * An item passes with full marks (the engine's `passes`, as pass^k counts); short of them it
 * lost points, the item table's word. Waterfall items score 0 or 1; evaluator scores are
 * fractional, and 0.95 against 0.3 is no flip (both lost points). The flips are counted, not
 * tested: a test of pass/fail alone (McNemar's) weighs neither item weights, capabilities nor
 * partial scores, so it could call "not significant" what the score difference is, or the
 * reverse; the paired bootstrap is the one verdict.
 */
import { and, desc, eq, inArray, isNotNull, ne, sql } from "drizzle-orm";
import { rows as rawRows, type Db } from "../../db/client";
import { benchmarks, benchmarkVersions, capabilityScores, domainScores, scoringRuns, submissions } from "../../db/schema";
import { pairedDifference } from "../aggregate/paired-bootstrap";
import type { BenchmarkSpec } from "../benchmark/spec";
import { itemKey } from "../benchmark/item-key";
import { outcomeOf, passes } from "../scoring/outcome";
import { findBenchmarkVersion, toInfo } from "./benchmark-info";
import { getLeaderboard } from "./leaderboard";
import { memoByDataVersion } from "./memo";
import { createClipper, PUBLIC_RENDER_LIMITS } from "./render-limits";
import { prefixOf } from "./sql-prefix";
import { itemScoresOf, resampleRun, versionPlan } from "./resampled-entries";
import type { BenchmarkInfo, Comparison, ComparedEntry, FlipCounts, FlipFilters, FlipPage, FlipRow, FlipSide, FlipSummary, ItemRow, PairedComparison, PickableEntry, PickableGroup } from "./types";

export const FLIP_PAGE_SIZE = 50;
export const MAX_FLIP_PAGE_SIZE = 100;
/** Entries compared at once. */
export const MAX_COMPARED = 4;

/** What a comparison reads of an item: its summary columns, never its stored result. */
type SlimItem = Pick<ItemRow, "capability" | "domain" | "uuid" | "weight" | "score" | "status" | "stage">;

type EntryRow = Awaited<ReturnType<typeof readEntries>>[number];

async function readEntries(db: Db, ids: number[]) {
  return db
    .select({
      id: submissions.id,
      agent: prefixOf(submissions.agentName, PUBLIC_RENDER_LIMITS.name),
      state: submissions.state,
      run: { id: scoringRuns.id, overallScore: scoringRuns.overallScore, overallCiLow: scoringRuns.overallCiLow, overallCiHigh: scoringRuns.overallCiHigh },
      version: { id: benchmarkVersions.id, version: benchmarkVersions.version, spec: benchmarkVersions.spec },
      bench: { slug: benchmarks.slug, title: benchmarks.title },
    })
    .from(submissions)
    .innerJoin(scoringRuns, eq(scoringRuns.id, submissions.currentRunId))
    .innerJoin(benchmarkVersions, eq(benchmarkVersions.id, submissions.benchmarkVersionId))
    .innerJoin(benchmarks, eq(benchmarks.id, benchmarkVersions.benchmarkId))
    .where(inArray(submissions.id, ids));
}

/**
 * A run's items by key; a capability the entry did not submit scores 0 on every item, as on the
 * board. A run of k trials holds each item once per trial: it is compared by its mean over them
 * (so an entry's capability score is the weighted mean of its items', as on the board, and an
 * item passes only with full marks in every trial, as pass^k counts), with the domain, weight,
 * status and stage of its lowest-scoring trial (the earliest such trial on a tie). A window
 * picks that row, so the query needs no bare columns beside an aggregate (SQLite only).
 */
async function runItems(db: Db, runId: number, submitted: ReadonlySet<string>): Promise<Map<string, SlimItem>> {
  // A run of one trial (most) holds each item once: its rows are its items, read from the
  // summary index without the window's sort. Any item held twice takes the window below.
  const plain = await rawRows<SlimItem>(db, sql`SELECT capability, domain, uuid, weight, score, status, stage FROM item_results WHERE run_id = ${runId}`);
  const keys = new Set(plain.map((r) => itemKey(r.capability, r.uuid)));
  return keyed(keys.size === plain.length ? plain : await perItemOfTrials(db, runId), submitted);
}

/** Each item of a run of k trials once: its mean score, and the other columns of its lowest-scoring trial (the earliest on a tie). */
function perItemOfTrials(db: Db, runId: number): Promise<SlimItem[]> {
  return rawRows<SlimItem>(
    db,
    sql`SELECT capability, domain, uuid, weight, score, status, stage FROM (
          SELECT capability, domain, uuid, weight, status, stage, avg(score) OVER (PARTITION BY capability, uuid) AS score,
                 row_number() OVER (PARTITION BY capability, uuid ORDER BY score ASC, trial ASC) AS pick
          FROM item_results WHERE run_id = ${runId}
        ) AS per_item WHERE pick = 1`,
  );
}

function keyed(rows: SlimItem[], submitted: ReadonlySet<string>): Map<string, SlimItem> {
  return new Map(rows.map((r) => [itemKey(r.capability, r.uuid), submitted.has(r.capability) ? r : { ...r, score: 0 }]));
}

async function submittedOf(db: Db, runId: number): Promise<Set<string>> {
  const caps = await db.select({ capability: capabilityScores.capability, submitted: capabilityScores.submitted }).from(capabilityScores).where(eq(capabilityScores.runId, runId));
  return new Set(caps.filter((c) => c.submitted).map((c) => c.capability));
}

/** Each entry's items, read once per request: the summary (when not memoised) and the flip page share them. */
type ItemsOf = (e: EntryRow) => Promise<Map<string, SlimItem>>;

function itemReader(db: Db): ItemsOf {
  const read = new Map<number, Promise<Map<string, SlimItem>>>();
  return (e) => {
    let items = read.get(e.run.id);
    if (!items) read.set(e.run.id, (items = submittedOf(db, e.run.id).then((submitted) => runItems(db, e.run.id, submitted))));
    return items;
  };
}

/** Every item of either run, in one order: capability as the benchmark lists them, then domain, then id. */
function pairedKeys(a: Map<string, SlimItem>, b: Map<string, SlimItem>, capabilityOrder: readonly string[]): { key: string; item: SlimItem }[] {
  const rank = new Map(capabilityOrder.map((c, i) => [c, i]));
  const all = new Map(a);
  for (const [k, v] of b) if (!all.has(k)) all.set(k, v);
  const cmp = (x: string, y: string) => (x < y ? -1 : x > y ? 1 : 0);
  return [...all]
    .map(([key, item]) => ({ key, item }))
    .sort((x, y) => (rank.get(x.item.capability) ?? Infinity) - (rank.get(y.item.capability) ?? Infinity) || cmp(x.item.capability, y.item.capability) || cmp(x.item.domain, y.item.domain) || cmp(x.item.uuid, y.item.uuid));
}

function side(item: SlimItem | undefined): FlipSide {
  if (!item) return { score: 0, status: "missing", outcome: outcomeOf({ status: "missing", stage: "none", score: 0 }).text, passed: false, stored: false };
  return { score: item.score, status: item.status, outcome: outcomeOf(item).text, passed: passes(item.score), stored: true };
}

function flipCounts(pairs: { a: boolean; b: boolean }[]): FlipCounts {
  const c = { both: 0, aOnly: 0, bOnly: 0, neither: 0 };
  for (const p of pairs) c[p.a ? (p.b ? "both" : "aOnly") : p.b ? "bOnly" : "neither"]++;
  return c;
}

/** Each entry resampled on the plan of their items, per capability and overall: the board ranks on these same resamples. */
async function resampled(db: Db, ordered: EntryRow[], capabilityIds: string[]) {
  const scores = await itemScoresOf(db, ordered.map((e) => e.run.id));
  const vp = versionPlan(capabilityIds, scores.values());
  const entries = await Promise.all(ordered.map(async (e) => resampleRun(vp, scores.get(e.run.id)!, await submittedOf(db, e.run.id), { strata: true })));
  return { vp, entries };
}

/** The scores, intervals, paired bootstraps and flip counts: memoised until the data changes, as the bootstrap is the costly part. */
async function summarize(db: Db, ordered: EntryRow[], spec: BenchmarkSpec, itemsOf: ItemsOf): Promise<Omit<Comparison, "benchmark" | "flipPage">> {
  const capabilityIds = spec.capabilities.map((c) => c.id);
  const items = await Promise.all(ordered.map(itemsOf));
  const boot = await resampled(db, ordered, capabilityIds);
  const read = await Promise.all(
    ordered.map(async (e) => ({
      caps: await db.select().from(capabilityScores).where(eq(capabilityScores.runId, e.run.id)),
      domainRows: await db.select().from(domainScores).where(eq(domainScores.runId, e.run.id)),
    })),
  );
  const entries: ComparedEntry[] = ordered.map((e, i) => {
    const { caps, domainRows } = read[i]!;
    const domains: ComparedEntry["domains"] = {};
    for (const d of domainRows) (domains[d.capability] ??= {})[d.domain] = d.score;
    return {
      id: e.id,
      agent: createClipper().prefix(e.agent, PUBLIC_RENDER_LIMITS.name),
      state: e.state,
      overall: { score: e.run.overallScore ?? 0, ciLow: e.run.overallCiLow ?? 0, ciHigh: e.run.overallCiHigh ?? 0, submitted: true },
      capabilities: Object.fromEntries(caps.map((c) => [c.capability, { score: c.score, ciLow: c.ciLow, ciHigh: c.ciHigh, submitted: c.submitted }])),
      domains,
    };
  });

  const differences: PairedComparison[] = [];
  const flips: FlipSummary[] = [];
  const base = items[0]!;
  ordered.slice(1).forEach((other, i) => {
    const mine = items[i + 1]!;
    const outcomes = new Map<string, { a: boolean; b: boolean }[]>(capabilityIds.map((c) => [c, []]));
    for (const { key, item } of pairedKeys(base, mine, capabilityIds)) {
      outcomes.get(item.capability)?.push({ a: passes(base.get(key)?.score ?? 0), b: passes(mine.get(key)?.score ?? 0) });
    }
    const [a, b] = [boot.entries[0]!, boot.entries[i + 1]!];
    const pair = { a: ordered[0]!.id, b: other.id };
    capabilityIds.forEach((id, k) => differences.push({ ...pair, scope: id, ...pairedDifference(a.strata![k]!, b.strata![k]!, boot.vp.plan.strata[k]!.weights.length) }));
    differences.push({ ...pair, scope: "overall", ...pairedDifference(a.overall, b.overall, boot.vp.nItems) });
    flips.push({ ...pair, capabilities: Object.fromEntries(capabilityIds.map((id) => [id, flipCounts(outcomes.get(id)!)])), overall: flipCounts([...outcomes.values()].flat()) });
  });
  const domains = [...new Set(entries.flatMap((e) => Object.values(e.domains).flatMap((d) => Object.keys(d))))].sort();
  return { entries, differences, domains, flips };
}

/** One page of the items the baseline and one other entry disagree on (one passed, the other did not). */
async function flipPage(ordered: EntryRow[], spec: BenchmarkSpec, filters: FlipFilters, itemsOf: ItemsOf): Promise<FlipPage> {
  const a = ordered[0]!;
  const b = ordered.slice(1).find((e) => e.id === filters.entry) ?? ordered[1]!;
  const capabilityIds = spec.capabilities.map((c) => c.id);
  const capability = filters.capability && capabilityIds.includes(filters.capability) ? filters.capability : undefined;
  const domain = filters.domain || undefined;
  const passed = filters.passed === a.id || filters.passed === b.id ? filters.passed : undefined;
  const pageSize = Math.min(MAX_FLIP_PAGE_SIZE, Math.max(1, Math.trunc(filters.pageSize ?? FLIP_PAGE_SIZE)));
  const aItems = await itemsOf(a);
  const bItems = await itemsOf(b);
  const matching: FlipRow[] = [];
  for (const { key, item } of pairedKeys(aItems, bItems, capabilityIds)) {
    if ((capability && item.capability !== capability) || (domain && item.domain !== domain)) continue;
    const sa = side(aItems.get(key));
    const sb = side(bItems.get(key));
    if (sa.passed === sb.passed) continue;
    if (passed !== undefined && (passed === a.id) !== sa.passed) continue;
    matching.push({ capability: item.capability, domain: item.domain, uuid: item.uuid, a: sa, b: sb });
  }
  const pages = Math.max(1, Math.ceil(matching.length / pageSize));
  const page = Math.min(pages, Math.max(1, Math.trunc(filters.page ?? 1)));
  return {
    a: a.id,
    b: b.id,
    rows: matching.slice((page - 1) * pageSize, page * pageSize),
    total: matching.length,
    page,
    pageSize,
    filters: { capability, domain, passed },
  };
}

const versionName = (e: EntryRow) => `${e.bench.title} v${e.version.version}`;

export async function compareEntries(db: Db, ids: number[], flipFilters: FlipFilters = {}): Promise<Comparison | { problem: string }> {
  const unique = [...new Set(ids)].slice(0, MAX_COMPARED);
  if (unique.length < 2) return { problem: "choose two to four entries to compare" };
  const rows = await readEntries(db, unique);
  if (rows.length !== unique.length) return { problem: `no scored entry with id ${unique.filter((id) => !rows.some((r) => r.id === id)).join(", ")}` };
  const ordered = unique.map((id) => rows.find((r) => r.id === id)!);
  if (new Set(ordered.map((r) => r.version.id)).size > 1) {
    const which = ordered.map((e) => `#${e.id} is on ${versionName(e)}`).join(", ");
    return { problem: `entries of different benchmarks or versions cannot be compared item by item (${which}); choose entries of one version` };
  }
  const first = ordered[0]!;
  const spec = first.version.spec as unknown as BenchmarkSpec;
  const benchmark: BenchmarkInfo = toInfo(first.bench.slug, spec, [first.version.version]);
  const itemsOf = itemReader(db);
  const summary = await memoByDataVersion(db, `compare\0${ordered.map((e) => `${e.id}:${e.run.id}`).join(",")}`, () => summarize(db, ordered, spec, itemsOf));
  return { benchmark, ...summary, flipPage: await flipPage(ordered, spec, flipFilters, itemsOf) };
}

/** Agent names and benchmarks of entries with a scored run, in the order given (for titles and the picker). */
export async function comparedHeadlines(db: Db, ids: number[]): Promise<{ id: number; agent: string; state: string; benchmark: string }[]> {
  const unique = [...new Set(ids)].slice(0, MAX_COMPARED);
  if (unique.length === 0) return [];
  const rows = await readEntries(db, unique);
  const clip = createClipper();
  return unique.flatMap((id) => {
    const r = rows.find((x) => x.id === id);
    return r ? [{ id, agent: clip.prefix(r.agent, PUBLIC_RENDER_LIMITS.name), state: r.state, benchmark: r.bench.slug }] : [];
  });
}

/** Entries not published, shown to maintainers in the picker, at most. */
export const MAX_UNPUBLISHED_PICKABLE = 200;

/**
 * The entries of one benchmark (the default when `slug` is omitted or unknown) the viewer may
 * compare, by version, newest first: published ones in rank order, and for maintainers the
 * other scored ones after them.
 */
export async function pickableEntries(db: Db, slug: string | undefined, opts: { maintainer: boolean }): Promise<{ slug: string; title: string; groups: PickableGroup[] } | null> {
  const found = (slug ? await findBenchmarkVersion(db, slug) : undefined) ?? (await findBenchmarkVersion(db));
  if (!found) return null;
  const versions = await db.select({ id: benchmarkVersions.id, version: benchmarkVersions.version }).from(benchmarkVersions).where(eq(benchmarkVersions.benchmarkId, found.benchmark.id)).orderBy(desc(benchmarkVersions.id));
  const clip = createClipper();
  const groups: PickableGroup[] = [];
  for (const v of versions) {
    const published: PickableEntry[] = ((await getLeaderboard(db, { benchmark: found.benchmark.slug, version: v.version }))?.entries ?? []).map((e) => ({ id: e.id, agent: e.agent, state: "published", overall: e.overall.score, rank: e.rank }));
    const others: PickableEntry[] = opts.maintainer
      ? (
          await db
          .select({ id: submissions.id, agent: prefixOf(submissions.agentName, PUBLIC_RENDER_LIMITS.name), state: submissions.state, overall: scoringRuns.overallScore })
          .from(submissions)
          .innerJoin(scoringRuns, eq(scoringRuns.id, submissions.currentRunId))
          .where(and(eq(submissions.benchmarkVersionId, v.id), ne(submissions.state, "published"), isNotNull(submissions.currentRunId)))
          .orderBy(desc(submissions.id))
          .limit(MAX_UNPUBLISHED_PICKABLE)
        ).map((r) => ({ id: r.id, agent: clip.prefix(r.agent, PUBLIC_RENDER_LIMITS.name), state: r.state, overall: r.overall ?? 0, rank: null }))
      : [];
    groups.push({ version: v.version, entries: [...published, ...others] });
  }
  return { slug: found.benchmark.slug, title: found.benchmark.title, groups };
}
