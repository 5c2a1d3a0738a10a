/**
 * The item table of a run: filtered (capability, domain, trial, outcome, lost points), sorted by
 * a whitelisted column with a stable tie-break, paged. A run of k trials holds each item once
 * per trial. What was asked, answered and why is read
 * inside the database (a JSON path, then substr: sql-dialect.ts), so a page never parses a
 * stored result, however large: at most a few hundred short strings cross into JavaScript.
 */
import { sql, type SQL } from "drizzle-orm";
import { rows, type Db } from "../../db/client";
import { byCodePoint, jsonTextFirst, jsonValid, jsonValue, type JsonPath } from "./sql-dialect";
import { divergenceReason, parseDiagnostic } from "./item-reason";
import { memoByDataVersion } from "./memo";
import { FULL_MARKS, OUTCOME_IDS, outcomeIdOf, type OutcomeId } from "../scoring/outcome";
import type { ItemStage, ItemStatus } from "../scoring/item-result";
import type { ItemFilters, ItemPage, ItemPosition, ItemRow, ItemSortKey, ItemSummary } from "./types";
import { DEFAULT_ITEM_PAGE_SIZE, MAX_ITEM_PAGE_SIZE } from "./item-params";

export { DEFAULT_ITEM_PAGE_SIZE, ITEM_PAGE_SIZES, ITEM_SORT_KEYS, parseItemPageSize, parseItemSort, parseTrial } from "./item-params";

/** A stored item result longer than this (characters of JSON) is not parsed for a page: 32 Mi. */
export const MAX_ITEM_RESULT_CHARS = 32 * 1024 * 1024;


/** How much of each text a table row carries. */
export const ITEM_TEXT_CHARS = { question: 200, answer: 160, reason: 280, detail: 280 } as const;

const result = sql.raw("result");

/** A string inside the stored result (the first of its paths that holds one), read in the database and cut; null for results too large to parse on a page. */
const inResult = (db: Db, paths: readonly JsonPath[], chars: number) =>
  sql`CASE WHEN length(result) <= ${sql.raw(String(MAX_ITEM_RESULT_CHARS))} AND ${jsonValid(db, result)} THEN substr(${jsonTextFirst(db, result, paths)}, 1, ${sql.raw(String(chars))}) END`;

// An item with no scored turn (missing, errors) keeps the benchmark's question beside its empty trace.
const TEXT_PATHS = { question: [["trace", -1, "query"], ["question"]], answer: [["trace", -1, "answer"]], reason: [["reason"]], detail: [["detail"]] } as const satisfies Record<string, readonly JsonPath[]>;

/** A stored trajectory diagnostic longer than this (characters of JSON) is not read for a row's reason. */
export const MAX_DIAGNOSTIC_CHARS = 64 * 1024;

/**
 * The trajectory diagnostic of a row whose answer the correctness stage judged wrong (its reason
 * becomes the first divergence: item-reason.ts), cut one past the limit so an over-long one
 * reads as unusable; null for every other row.
 */
const lostAtCorrectness = (db: Db) =>
  sql`CASE WHEN scorer = 'waterfall' AND status = 'scored' AND stage = 'correctness' AND score < ${FULL_MARKS} AND length(result) <= ${sql.raw(String(MAX_ITEM_RESULT_CHARS))} AND ${jsonValid(db, result)}
      THEN substr(CAST(${jsonValue(db, result, ["trajectory"])} AS TEXT), 1, ${sql.raw(String(MAX_DIAGNOSTIC_CHARS + 1))}) END`;

/** The outcome as its place in the glossary, so sorting by outcome follows the vocabulary's order. */
const OUTCOME_RANK = sql.raw(`CASE WHEN status <> 'scored' THEN CASE status ${OUTCOME_IDS.map((id, i) => `WHEN '${id}' THEN ${i}`).join(" ")} END WHEN stage = 'none' THEN ${OUTCOME_IDS.indexOf("missing_turn")} ELSE CASE stage ${OUTCOME_IDS.map((id, i) => `WHEN '${id}' THEN ${i}`).join(" ")} END END`);

/** Text columns sort by code point on both engines (SQLite's BINARY order), whatever Postgres's collation. */
function sortSql(db: Db, key: ItemSortKey): SQL {
  const text = (e: SQL) => byCodePoint(db, e);
  switch (key) {
    case "item":
      return text(sql.raw("uuid"));
    case "capability":
      return text(sql.raw("capability"));
    case "domain":
      return text(sql.raw("domain"));
    case "question":
    case "answer":
    case "reason":
      return text(inResult(db, TEXT_PATHS[key], 100));
    case "outcome":
      return OUTCOME_RANK;
    case "trial":
    case "weight":
    case "score":
      return sql.raw(key);
  }
}

function orderBy(db: Db, f: ItemFilters): SQL {
  const tie = sql`${sortSql(db, "capability")} ASC, ${sortSql(db, "domain")} ASC, ${sortSql(db, "item")} ASC, trial ASC`;
  if (!f.sort) return tie;
  return sql`${sortSql(db, f.sort)} ${sql.raw(f.dir === "desc" ? "DESC" : "ASC")} NULLS LAST, ${tie}`;
}

/** The WHERE clause of a filter; every value is bound, never spliced. */
function whereOf(runId: number, f: ItemFilters): SQL {
  const clauses = [sql`run_id = ${runId}`];
  if (f.capability) clauses.push(sql`capability = ${f.capability}`);
  if (f.domain) clauses.push(sql`domain = ${f.domain}`);
  if (f.trial !== undefined) clauses.push(sql`trial = ${f.trial}`);
  if (f.outcome) clauses.push(outcomeClause(f.outcome));
  // Short of full marks (the engine's definition); items that did not score count 0, so missing items and errors are in too.
  if (f.lost) clauses.push(sql`score < ${FULL_MARKS}`);
  return sql.join(clauses, sql` AND `);
}

function outcomeClause(id: OutcomeId): SQL {
  if (id === "missing_turn") return sql`status = 'scored' AND stage = 'none'`;
  if (id === "missing" || id === "agent_error" || id === "replay_error" || id === "judge_error") return sql`status = ${id}`;
  return sql`status = 'scored' AND stage = ${id}`;
}

const clampPageSize = (n: number | undefined) => Math.min(MAX_ITEM_PAGE_SIZE, Math.max(5, Math.floor(n ?? DEFAULT_ITEM_PAGE_SIZE)));

/** "text…" when the read stopped past the limit; values that are not strings (a list answer) come back as their JSON text. */
function cut(v: unknown, chars: number): string {
  if (v === null || v === undefined) return "";
  const s = String(v);
  return s.length > chars ? `${s.slice(0, chars)}…` : s;
}

type RawRow = ItemSummary & { question: unknown; answer: unknown; reason: unknown; detail: unknown; trajectory: unknown; large: number | boolean };

/** `completed`: the run has completed, so its items are final and the filter values are read once per data version. */
export async function listItems(db: Db, runId: number, filters: ItemFilters = {}, opts: { showGroundTruth?: boolean; completed?: boolean } = {}): Promise<ItemPage> {
  const pageSize = clampPageSize(filters.pageSize);
  const page = Math.max(1, Math.floor(filters.page ?? 1));
  const where = whereOf(runId, filters);
  const [counted] = await rows<{ n: number }>(db, sql`SELECT count(*) AS n FROM item_results WHERE ${where}`);
  const total = Number(counted!.n);
  // The page's rows are chosen first, by their key (capability, uuid, trial), from the summary
  // index alone unless the sort is by a text of the result; only they are then read into.
  // Postgres would otherwise extract the texts of every matching row before sorting (thousands
  // of parsed results for a page of 50), and its indexes hold no row id to choose them by.
  // They are then read through the unique index, a point lookup each (an IN list let SQLite scan
  // every row of the run's capabilities, results and all: tens of ms on a board not in memory).
  const pageKeys = sql`SELECT capability AS kc, uuid AS ku, trial AS kt FROM item_results WHERE ${where} ORDER BY ${orderBy(db, filters)} LIMIT ${pageSize} OFFSET ${(page - 1) * pageSize}`;
  const text = (k: keyof typeof TEXT_PATHS) => sql`${inResult(db, TEXT_PATHS[k], ITEM_TEXT_CHARS[k] + 1)} AS ${sql.raw(k)}`;
  const raw = await rows<RawRow>(
    db,
    sql`SELECT capability, domain, uuid, trial, weight, score, status, stage, policy, ${text("question")}, ${text("answer")}, ${text("reason")},
              ${opts.showGroundTruth ? text("detail") : sql`NULL AS detail`}, ${lostAtCorrectness(db)} AS trajectory, length(result) > ${sql.raw(String(MAX_ITEM_RESULT_CHARS))} AS large
       FROM (${pageKeys}) AS k JOIN item_results ON run_id = ${runId} AND capability = k.kc AND uuid = k.ku AND trial = k.kt ORDER BY ${orderBy(db, filters)}`,
  );
  const items: ItemRow[] = raw.map(({ question, answer, reason, detail, trajectory, large, ...summary }) => {
    const shownAnswer = cut(answer, ITEM_TEXT_CHARS.answer);
    const diagnostic = typeof trajectory === "string" && trajectory.length <= MAX_DIAGNOSTIC_CHARS ? parseDiagnostic(trajectory) : null;
    const divergence = diagnostic ? divergenceReason(diagnostic, shownAnswer, opts.showGroundTruth ?? false) : null;
    return {
      ...summary,
      question: cut(question, ITEM_TEXT_CHARS.question),
      answer: shownAnswer,
      reason: large ? "This item's stored result is too large to show here." : cut(divergence ?? reason, ITEM_TEXT_CHARS.reason),
      detail: opts.showGroundTruth ? cut(detail, ITEM_TEXT_CHARS.detail) || null : null,
    };
  });
  return { rows: items, total, page, pageSize, facets: await (opts.completed ? memoByDataVersion(db, `item-facets\0${runId}`, () => facets(db, runId)) : facets(db, runId)) };
}

/** The values each filter can take in this run, outcomes in the glossary's order. */
async function facets(db: Db, runId: number): Promise<ItemPage["facets"]> {
  // One pass over the run's summary index (each DISTINCT column alone was a pass of its own).
  const combos = await rows<{ capability: string; domain: string; trial: number; status: ItemStatus; stage: ItemStage }>(
    db,
    sql`SELECT DISTINCT capability, domain, trial, status, stage FROM item_results WHERE run_id = ${runId}`,
  );
  const present = new Set(combos.map(outcomeIdOf));
  const sorted = (values: Iterable<string>) => [...new Set(values)].sort(compareCodePoints);
  return {
    capabilities: sorted(combos.map((c) => c.capability)),
    domains: sorted(combos.map((c) => c.domain)),
    outcomes: OUTCOME_IDS.filter((id) => present.has(id)),
    trials: [...new Set(combos.map((c) => Number(c.trial)))].sort((a, b) => a - b),
  };
}

/** Code point order, as `byCodePoint` sorts in SQL (UTF-16 order differs past U+FFFF). */
function compareCodePoints(a: string, b: string): number {
  const x = Array.from(a, (c) => c.codePointAt(0)!);
  const y = Array.from(b, (c) => c.codePointAt(0)!);
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
  return x.length - y.length;
}

/** Items (item-trials in a run of k trials) that lost points in one capability and domain: what the capability bars and the domain grid link to. */
export interface LostPointCount {
  capability: string;
  domain: string;
  n: number;
}

/** One grouped pass over the run's summary index; read once per data version for a completed run. */
export async function lostPointCounts(db: Db, runId: number, opts: { completed?: boolean } = {}): Promise<LostPointCount[]> {
  const read = async () =>
    (
      await rows<{ capability: string; domain: string; n: number | string }>(
        db,
        sql`SELECT capability, domain, count(*) AS n FROM item_results WHERE run_id = ${runId} AND score < ${FULL_MARKS} GROUP BY capability, domain`,
      )
    ).map((g) => ({ capability: g.capability, domain: g.domain, n: Number(g.n) }));
  return opts.completed ? memoByDataVersion(db, `lost-points\0${runId}`, read) : read();
}

/** Where an item (of a trial: 1 unless given) stands in the list a filter and sort make, with the items before and after it; null when the filter leaves it out. */
export async function itemPosition(db: Db, runId: number, filters: ItemFilters, key: { capability: string; uuid: string; trial?: number }): Promise<ItemPosition | null> {
  const [row] = await rows<{ pos: number; total: number; pc: string | null; pu: string | null; pt: number | null; nc: string | null; nu: string | null; nt: number | null }>(
    db,
    sql`SELECT pos, total, pc, pu, pt, nc, nu, nt FROM (
         SELECT capability, uuid, trial, row_number() OVER w AS pos, count(*) OVER () AS total,
                lag(capability) OVER w AS pc, lag(uuid) OVER w AS pu, lag(trial) OVER w AS pt,
                lead(capability) OVER w AS nc, lead(uuid) OVER w AS nu, lead(trial) OVER w AS nt
         FROM item_results WHERE ${whereOf(runId, filters)} WINDOW w AS (ORDER BY ${orderBy(db, filters)})
       ) AS placed WHERE capability = ${key.capability} AND uuid = ${key.uuid} AND trial = ${key.trial ?? 1}`,
  );
  if (!row) return null;
  return {
    index: Number(row.pos),
    total: Number(row.total),
    prev: row.pc !== null && row.pu !== null ? { capability: row.pc, uuid: row.pu, trial: row.pt ?? 1 } : null,
    next: row.nc !== null && row.nu !== null ? { capability: row.nc, uuid: row.nu, trial: row.nt ?? 1 } : null,
  };
}
