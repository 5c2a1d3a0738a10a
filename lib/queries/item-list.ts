/**
 * The item table of a run: filtered (capability, domain, trial, outcome, lost points), sorted by
 * a whitelisted column with a stable tie-break, paged. A run of k trials holds each item once
 * per trial. What was asked, answered and why is read
 * inside SQLite (json_extract, then substr), so a page never parses a stored result, however
 * large: at most a few hundred short strings cross into JavaScript.
 */
import type { Db } from "../../db/client";
import { FULL_MARKS, OUTCOME_IDS, outcomeIdOf, type OutcomeId } from "../scoring/outcome";
import type { ItemStage, ItemStatus } from "../scoring/item-result";
import type { ItemFilters, ItemPage, ItemPosition, ItemRow, ItemSortKey, ItemSummary, SortDir } from "./types";

/** A stored item result longer than this (characters of JSON) is not parsed for a page: 32 Mi. */
export const MAX_ITEM_RESULT_CHARS = 32 * 1024 * 1024;

export const ITEM_SORT_KEYS: readonly ItemSortKey[] = ["item", "trial", "capability", "domain", "question", "answer", "reason", "outcome", "weight", "score"];
export const ITEM_PAGE_SIZES: readonly number[] = [50, 100, 300];
export const DEFAULT_ITEM_PAGE_SIZE = 50;
const MAX_PAGE_SIZE = 300;

/** How much of each text a table row carries. */
export const ITEM_TEXT_CHARS = { question: 200, answer: 160, reason: 280, detail: 280 } as const;

/** A string inside the stored result (the first of its paths that holds one), read in SQLite and cut; null for results too large to parse on a page. */
const inResult = (paths: readonly string[], chars: number) =>
  `CASE WHEN length(result) <= ${MAX_ITEM_RESULT_CHARS} AND json_valid(result) THEN substr(${paths.length === 1 ? `json_extract(result, '${paths[0]}')` : `coalesce(${paths.map((p) => `json_extract(result, '${p}')`).join(", ")})`}, 1, ${chars}) END`;

// An item with no scored turn (missing, errors) keeps the benchmark's question beside its empty trace.
const TEXT_PATHS = { question: ["$.trace[#-1].query", "$.question"], answer: ["$.trace[#-1].answer"], reason: ["$.reason"], detail: ["$.detail"] } as const;

/** The outcome as its place in the glossary, so sorting by outcome follows the vocabulary's order. */
const OUTCOME_RANK = `CASE WHEN status <> 'scored' THEN CASE status ${OUTCOME_IDS.map((id, i) => `WHEN '${id}' THEN ${i}`).join(" ")} END WHEN stage = 'none' THEN ${OUTCOME_IDS.indexOf("missing_turn")} ELSE CASE stage ${OUTCOME_IDS.map((id, i) => `WHEN '${id}' THEN ${i}`).join(" ")} END END`;

const SORT_SQL: Record<ItemSortKey, string> = {
  item: "uuid",
  trial: "trial",
  capability: "capability",
  domain: "domain",
  question: inResult(TEXT_PATHS.question, 100),
  answer: inResult(TEXT_PATHS.answer, 100),
  reason: inResult(TEXT_PATHS.reason, 100),
  outcome: OUTCOME_RANK,
  weight: "weight",
  score: "score",
};

function orderBy(f: ItemFilters): string {
  const tie = "capability ASC, domain ASC, uuid ASC, trial ASC";
  if (!f.sort) return tie;
  return `${SORT_SQL[f.sort]} ${f.dir === "desc" ? "DESC" : "ASC"} NULLS LAST, ${tie}`;
}

/** The WHERE clause of a filter, with its parameters; every value is bound, never spliced. */
function whereOf(runId: number, f: ItemFilters): { sql: string; params: unknown[] } {
  const clauses = ["run_id = ?"];
  const params: unknown[] = [runId];
  if (f.capability) clauses.push("capability = ?"), params.push(f.capability);
  if (f.domain) clauses.push("domain = ?"), params.push(f.domain);
  if (f.trial !== undefined) clauses.push("trial = ?"), params.push(f.trial);
  if (f.outcome) {
    const o = outcomeClause(f.outcome);
    clauses.push(o.sql);
    params.push(...o.params);
  }
  // Short of full marks (the engine's definition); items that did not score count 0, so missing items and errors are in too.
  if (f.lost) clauses.push("score < ?"), params.push(FULL_MARKS);
  return { sql: clauses.join(" AND "), params };
}

function outcomeClause(id: OutcomeId): { sql: string; params: unknown[] } {
  if (id === "missing_turn") return { sql: "status = 'scored' AND stage = 'none'", params: [] };
  if (id === "missing" || id === "agent_error" || id === "replay_error" || id === "judge_error") return { sql: "status = ?", params: [id] };
  return { sql: "status = 'scored' AND stage = ?", params: [id] };
}

const clampPageSize = (n: number | undefined) => Math.min(MAX_PAGE_SIZE, Math.max(5, Math.floor(n ?? DEFAULT_ITEM_PAGE_SIZE)));

/** "text…" when the read stopped past the limit; values that are not strings (a list answer) come back as their JSON text. */
function cut(v: unknown, chars: number): string {
  if (v === null || v === undefined) return "";
  const s = String(v);
  return s.length > chars ? `${s.slice(0, chars)}…` : s;
}

type RawRow = ItemSummary & { question: unknown; answer: unknown; reason: unknown; detail: unknown; large: number };

export function listItems(db: Db, runId: number, filters: ItemFilters = {}, opts: { showGroundTruth?: boolean } = {}): ItemPage {
  const pageSize = clampPageSize(filters.pageSize);
  const page = Math.max(1, Math.floor(filters.page ?? 1));
  const where = whereOf(runId, filters);
  const client = db.$client;
  const total = (client.prepare(`SELECT count(*) AS n FROM item_results WHERE ${where.sql}`).get(...where.params) as { n: number }).n;
  const text = (k: keyof typeof TEXT_PATHS) => `${inResult(TEXT_PATHS[k], ITEM_TEXT_CHARS[k] + 1)} AS ${k}`;
  const raw = client
    .prepare(
      `SELECT capability, domain, uuid, trial, weight, score, status, stage, policy, ${text("question")}, ${text("answer")}, ${text("reason")},
              ${opts.showGroundTruth ? text("detail") : "NULL AS detail"}, length(result) > ${MAX_ITEM_RESULT_CHARS} AS large
       FROM item_results WHERE ${where.sql} ORDER BY ${orderBy(filters)} LIMIT ? OFFSET ?`,
    )
    .all(...where.params, pageSize, (page - 1) * pageSize) as RawRow[];
  const rows: ItemRow[] = raw.map(({ question, answer, reason, detail, large, ...summary }) => ({
    ...summary,
    question: cut(question, ITEM_TEXT_CHARS.question),
    answer: cut(answer, ITEM_TEXT_CHARS.answer),
    reason: large ? "This item's stored result is too large to show here." : cut(reason, ITEM_TEXT_CHARS.reason),
    detail: opts.showGroundTruth ? cut(detail, ITEM_TEXT_CHARS.detail) || null : null,
  }));
  return { rows, total, page, pageSize, facets: facets(db, runId) };
}

/** The values each filter can take in this run, outcomes in the glossary's order. */
function facets(db: Db, runId: number): ItemPage["facets"] {
  const client = db.$client;
  const distinct = (col: "capability" | "domain") => (client.prepare(`SELECT DISTINCT ${col} AS v FROM item_results WHERE run_id = ? ORDER BY v`).all(runId) as { v: string }[]).map((r) => r.v);
  const pairs = client.prepare("SELECT DISTINCT status, stage FROM item_results WHERE run_id = ?").all(runId) as { status: ItemStatus; stage: ItemStage }[];
  const present = new Set(pairs.map(outcomeIdOf));
  const trials = (client.prepare("SELECT DISTINCT trial AS v FROM item_results WHERE run_id = ? ORDER BY v").all(runId) as { v: number }[]).map((r) => r.v);
  return { capabilities: distinct("capability"), domains: distinct("domain"), outcomes: OUTCOME_IDS.filter((id) => present.has(id)), trials };
}

/** Where an item (of a trial: 1 unless given) stands in the list a filter and sort make, with the items before and after it; null when the filter leaves it out. */
export function itemPosition(db: Db, runId: number, filters: ItemFilters, key: { capability: string; uuid: string; trial?: number }): ItemPosition | null {
  const where = whereOf(runId, filters);
  const row = db.$client
    .prepare(
      `SELECT pos, total, pc, pu, pt, nc, nu, nt FROM (
         SELECT capability, uuid, trial, row_number() OVER w AS pos, count(*) OVER () AS total,
                lag(capability) OVER w AS pc, lag(uuid) OVER w AS pu, lag(trial) OVER w AS pt,
                lead(capability) OVER w AS nc, lead(uuid) OVER w AS nu, lead(trial) OVER w AS nt
         FROM item_results WHERE ${where.sql} WINDOW w AS (ORDER BY ${orderBy(filters)})
       ) WHERE capability = ? AND uuid = ? AND trial = ?`,
    )
    .get(...where.params, key.capability, key.uuid, key.trial ?? 1) as
    | { pos: number; total: number; pc: string | null; pu: string | null; pt: number | null; nc: string | null; nu: string | null; nt: number | null }
    | undefined;
  if (!row) return null;
  return {
    index: row.pos,
    total: row.total,
    prev: row.pc !== null && row.pu !== null ? { capability: row.pc, uuid: row.pu, trial: row.pt ?? 1 } : null,
    next: row.nc !== null && row.nu !== null ? { capability: row.nc, uuid: row.nu, trial: row.nt ?? 1 } : null,
  };
}

/** A trial number from a URL: a whole number from 1 (the bundle limit is far below the cap), else none. */
export function parseTrial(raw: string | undefined): number | undefined {
  if (!raw || !/^[1-9]\d{0,3}$/.test(raw)) return undefined;
  return Number(raw);
}

/** Parses the sort and paging values of a URL strictly: anything else is the default. */
export function parseItemSort(sort: string | undefined, dir: string | undefined): { sort?: ItemSortKey; dir?: SortDir } {
  const key = ITEM_SORT_KEYS.find((k) => k === sort);
  if (!key) return {};
  return { sort: key, dir: dir === "desc" ? "desc" : "asc" };
}

export function parseItemPageSize(raw: string | undefined): number {
  const n = Number(raw);
  return ITEM_PAGE_SIZES.includes(n) ? n : DEFAULT_ITEM_PAGE_SIZE;
}
