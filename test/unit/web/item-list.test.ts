/**
 * The item table's query on a real database (each engine): the lost-points filter, the sort
 * whitelist with its stable tie-break, paging, bounded reads of question, answer and reason
 * inside the database (a hostile huge result is never loaded whole), the public reason against the
 * private detail, and an item's place in a filtered, sorted list.
 */
import { and, eq, sql } from "drizzle-orm";
import { beforeEach, describe, expect, it } from "vitest";
import { rows as rawRows } from "@/db/client";
import { itemResults } from "@/db/schema";
import { ITEM_TEXT_CHARS, itemPosition, listItems, MAX_ITEM_RESULT_CHARS, parseItemPageSize, parseItemSort, parseTrial } from "@/lib/queries/item-list";
import { getItem, getSubmission } from "@/lib/queries/submission";
import { outcomeOf, passes } from "@/lib/scoring/outcome";
import { ENGINES } from "../../helpers/engines";
import { scoreThroughWorker, useMiniDb } from "../../helpers/mini-db";
import { GOOD_BUNDLE, tickingClock } from "../../helpers/mini-fixtures";

const now = tickingClock();

describe.each(ENGINES)("the item list (%s)", (engine) => {
  const mini = useMiniDb(now, engine);
  let runId: number;

  /** The mini benchmark's good bundle, scored: four real items (ts-1 and mt-1 pass, ts-2 and mt-2 lose points). */
  beforeEach(async () => {
    const submissionId = await scoreThroughWorker(mini, GOOD_BUNDLE, now);
    runId = (await getSubmission(mini.db, submissionId))!.run!.id;
  });

  interface Synthetic {
    uuid: string;
    score: number;
    status?: string;
    stage?: string;
    weight?: number;
    question?: string;
    answer?: unknown;
    reason?: string;
    detail?: string | null;
    raw?: string;
    trial?: number;
  }

  /** An item row written straight into the run, as the worker stores them. */
  async function put(i: Synthetic) {
    const result = i.raw ?? JSON.stringify({ reason: i.reason ?? `reason of ${i.uuid}`, detail: i.detail ?? null, trace: i.question === undefined ? [] : [{ turnId: 0, query: i.question, answer: i.answer ?? "", calls: [], responses: [] }] });
    // Raw SQL: the stored text exactly as given (a damaged row too); exact_passed and policy keep their defaults.
    await rawRows(
      mini.db,
      sql`INSERT INTO item_results (run_id, capability, domain, uuid, trial, weight, score, status, stage, scorer, bucket, result)
          VALUES (${runId}, 'zz_synthetic', 'dock', ${i.uuid}, ${i.trial ?? 1}, ${i.weight ?? 1}, ${i.score}, ${i.status ?? "scored"}, ${i.stage ?? "groundedness"}, 'waterfall', 'not_scored', ${result}) RETURNING id`,
    );
  }

  const uuids = async (f: Parameters<typeof listItems>[2] = {}) => (await listItems(mini.db, runId, { capability: "zz_synthetic", pageSize: 300, ...f })).rows.map((r) => r.uuid);

  describe("the lost-points filter", () => {
    it("keeps every item that scored below 1, missing items and errors included", async () => {
      await put({ uuid: "a-pass", score: 1 });
      await put({ uuid: "b-half", score: 0.5, stage: "report" });
      await put({ uuid: "c-fail", score: 0, stage: "correctness" });
      await put({ uuid: "d-missing", score: 0, status: "missing", stage: "none" });
      await put({ uuid: "e-agent", score: 0, status: "agent_error", stage: "none" });
      expect((await uuids({ lost: true }))).toEqual(["b-half", "c-fail", "d-missing", "e-agent"]);
      expect((await uuids())).toHaveLength(5);
      // The real items: ts-1 and mt-1 kept their points.
      const real = (await listItems(mini.db, runId, { lost: true, pageSize: 300 })).rows.filter((r) => r.capability !== "zz_synthetic");
      expect(real.map((r) => r.uuid).sort()).toEqual(["mt-2", "ts-2"]);
      expect(real.every((r) => r.score < 1)).toBe(true);
    });

    it("leaves out exactly the items with full marks as the engine defines them (an outcome's passed, /compare's pass)", async () => {
      await put({ uuid: "a-pass", score: 1 });
      await put({ uuid: "b-hair", score: 1 - 1e-12, stage: "report" });
      await put({ uuid: "c-near", score: 0.999, stage: "report" });
      expect((await uuids({ lost: true }))).toEqual(["c-near"]);
      for (const r of (await listItems(mini.db, runId, { capability: "zz_synthetic" })).rows) {
        expect(outcomeOf(r).verdict === "passed", r.uuid).toBe(r.uuid !== "c-near");
        expect(passes(r.score), r.uuid).toBe(r.uuid !== "c-near");
      }
    });

    it("filters by outcome in the vocabulary", async () => {
      await put({ uuid: "a", score: 0, status: "agent_error", stage: "none" });
      await put({ uuid: "b", score: 0, stage: "correctness" });
      await put({ uuid: "c", score: 0, stage: "none" });
      expect((await uuids({ outcome: "agent_error" }))).toEqual(["a"]);
      expect((await uuids({ outcome: "correctness" }))).toEqual(["b"]);
      expect((await uuids({ outcome: "missing_turn" }))).toEqual(["c"]);
      const facets = (await listItems(mini.db, runId)).facets;
      expect(facets.outcomes).toEqual(expect.arrayContaining(["agent_error", "missing_turn", "policy", "correctness", "groundedness"]));
      // Glossary order: the statuses that count 0 come before the deciding stages.
      expect(facets.outcomes.indexOf("agent_error")).toBeLessThan(facets.outcomes.indexOf("policy"));
    });
  });

  describe("sorting", () => {
    beforeEach(async () => {
      await put({ uuid: "m", score: 0.5, weight: 2, question: "beta", answer: "zulu", reason: "r2" });
      await put({ uuid: "k", score: 0, weight: 1, question: "alpha", answer: ["list", 1], reason: "r3", stage: "correctness" });
      await put({ uuid: "z", score: 0.5, weight: 1, question: "gamma", answer: "alpha", reason: "r1" });
      await put({ uuid: "a", score: 0, status: "missing", stage: "none" });
    });

    it("sorts by each whitelisted column, ties broken by id", async () => {
      expect((await uuids())).toEqual(["a", "k", "m", "z"]);
      expect((await uuids({ sort: "score", dir: "asc" }))).toEqual(["a", "k", "m", "z"]);
      expect((await uuids({ sort: "score", dir: "desc" }))).toEqual(["m", "z", "a", "k"]);
      expect((await uuids({ sort: "weight", dir: "desc" }))).toEqual(["m", "a", "k", "z"]);
      expect((await uuids({ sort: "item", dir: "desc" }))).toEqual(["z", "m", "k", "a"]);
      expect((await uuids({ sort: "question" }))).toEqual(["k", "m", "z", "a"]); // no question sorts last
      expect((await uuids({ sort: "answer" }))).toEqual(["k", "z", "m", "a"]); // a list answer sorts as its JSON text
      expect((await uuids({ sort: "reason" }))).toEqual(["z", "m", "k", "a"]);
      // Outcome follows the glossary: missing, then correctness, then groundedness.
      expect((await uuids({ sort: "outcome" }))).toEqual(["a", "k", "m", "z"]);
    });

    it("takes only whitelisted columns from the URL", async () => {
      expect(parseItemSort("score", "desc")).toEqual({ sort: "score", dir: "desc" });
      expect(parseItemSort("score", "sideways")).toEqual({ sort: "score", dir: "asc" });
      expect(parseItemSort("result; DROP TABLE item_results", "asc")).toEqual({});
      expect(parseItemSort("detail", "asc")).toEqual({});
      expect(parseItemPageSize("100")).toBe(100);
      // Beyond the largest page (an old `size=300` link) is the largest; anything else the default.
      expect(parseItemPageSize("300")).toBe(100);
      expect(parseItemPageSize("100000")).toBe(100);
      expect(parseItemPageSize("75")).toBe(50);
      expect(parseItemPageSize("-1")).toBe(50);
      expect(parseItemPageSize("1e3")).toBe(50);
    });

    it("pages in the sorted order and bounds the page size", async () => {
      const first = await listItems(mini.db, runId, { capability: "zz_synthetic", sort: "score", dir: "desc", pageSize: 5 });
      expect(first.pageSize).toBe(5);
      expect((await listItems(mini.db, runId, { pageSize: 100_000 })).pageSize).toBe(100);
      for (let i = 0; i < 8; i++) await put({ uuid: `p${i}`, score: 0.5 });
      const page2 = await listItems(mini.db, runId, { capability: "zz_synthetic", sort: "score", dir: "desc", pageSize: 5, page: 2 });
      const all = await uuids({ sort: "score", dir: "desc" });
      expect(page2.total).toBe(12);
      expect(page2.rows.map((r) => r.uuid)).toEqual(all.slice(5, 10));
    });

    it("places an item in its filtered, sorted list with its neighbours", async () => {
      const f = { capability: "zz_synthetic", lost: true, sort: "score" as const, dir: "desc" as const };
      expect((await itemPosition(mini.db, runId, f, { capability: "zz_synthetic", uuid: "z" }))).toEqual({ index: 2, total: 4, prev: { capability: "zz_synthetic", uuid: "m", trial: 1 }, next: { capability: "zz_synthetic", uuid: "a", trial: 1 } });
      expect((await itemPosition(mini.db, runId, f, { capability: "zz_synthetic", uuid: "m" }))!.prev).toBeNull();
      expect((await itemPosition(mini.db, runId, f, { capability: "zz_synthetic", uuid: "k" }))!.next).toBeNull();
      await put({ uuid: "winner", score: 1 });
      expect((await itemPosition(mini.db, runId, f, { capability: "zz_synthetic", uuid: "winner" }))).toBeNull();
      expect((await itemPosition(mini.db, runId, { ...f, lost: false }, { capability: "zz_synthetic", uuid: "winner" }))!.index).toBe(1);
    });
  });

  describe("a run of trials", () => {
    /** Three items in three trials: "a" solved in every trial, "b" in trial 2 only, "c" never. */
    async function trials() {
      for (const trial of [1, 2, 3]) {
        await put({ uuid: "a", score: 1, trial, reason: `a in trial ${trial}` });
        await put({ uuid: "b", score: trial === 2 ? 1 : 0, stage: trial === 2 ? "groundedness" : "correctness", trial, reason: `b in trial ${trial}` });
        await put({ uuid: "c", score: 0, stage: "correctness", trial, reason: `c in trial ${trial}` });
      }
    }
    const rows = async (f: Parameters<typeof listItems>[2] = {}) => (await listItems(mini.db, runId, { capability: "zz_synthetic", pageSize: 300, ...f })).rows.map((r) => `${r.uuid}@${r.trial}`);

    it("lists each item once per trial, ties broken by trial, and filters to one trial", async () => {
      await trials();
      expect((await rows({ lost: false }))).toEqual(["a@1", "a@2", "a@3", "b@1", "b@2", "b@3", "c@1", "c@2", "c@3"]);
      expect((await rows({ lost: true }))).toEqual(["b@1", "b@3", "c@1", "c@2", "c@3"]);
      expect((await rows({ lost: true, trial: 2 }))).toEqual(["c@2"]);
      expect((await rows({ lost: false, trial: 3 }))).toEqual(["a@3", "b@3", "c@3"]);
      expect((await rows({ lost: false, sort: "trial", dir: "desc" }))).toEqual(["a@3", "b@3", "c@3", "a@2", "b@2", "c@2", "a@1", "b@1", "c@1"]);
      expect((await listItems(mini.db, runId)).facets.trials).toEqual([1, 2, 3]);
      // The row's own reason: each trial's result, not the first one's.
      expect((await listItems(mini.db, runId, { capability: "zz_synthetic", trial: 3, lost: false })).rows.map((r) => r.reason)).toEqual(["a in trial 3", "b in trial 3", "c in trial 3"]);
    });

    it("walks previous and next within the item's trial, and opens the trial asked for", async () => {
      await trials();
      const f = { capability: "zz_synthetic", lost: false, trial: 2 };
      expect((await itemPosition(mini.db, runId, f, { capability: "zz_synthetic", uuid: "b", trial: 2 }))).toEqual({ index: 2, total: 3, prev: { capability: "zz_synthetic", uuid: "a", trial: 2 }, next: { capability: "zz_synthetic", uuid: "c", trial: 2 } });
      // Not in the list a trial filter makes: another trial's item.
      expect((await itemPosition(mini.db, runId, f, { capability: "zz_synthetic", uuid: "b", trial: 1 }))).toBeNull();
      // Across trials (no filter), the neighbours are the same item's other trials.
      expect((await itemPosition(mini.db, runId, { capability: "zz_synthetic", lost: false }, { capability: "zz_synthetic", uuid: "b", trial: 1 }))).toMatchObject({ prev: { uuid: "a", trial: 3 }, next: { uuid: "b", trial: 2 } });
      expect((await getItem(mini.db, runId, "zz_synthetic", "b", { showGroundTruth: false, trial: 2 }))).toMatchObject({ trial: 2, score: 1, reason: "b in trial 2" });
      expect((await getItem(mini.db, runId, "zz_synthetic", "b", { showGroundTruth: false }))).toMatchObject({ trial: 1, score: 0, reason: "b in trial 1" });
      expect((await getItem(mini.db, runId, "zz_synthetic", "b", { showGroundTruth: false, trial: 4 }))).toBeNull();
    });

    it("reads a trial from the URL strictly", async () => {
      expect(["1", "4", "32"].map(parseTrial)).toEqual([1, 4, 32]);
      for (const raw of [undefined, "", "0", "-1", "1.5", "01", "x", "99999"]) expect(parseTrial(raw), String(raw)).toBeUndefined();
    });
  });

  describe("what a row reads", () => {
    it("gives the question, the agent's answer and the public reason, cut to a table's length", async () => {
      await put({ uuid: "long", score: 0, stage: "correctness", question: "q".repeat(90_000), answer: "a".repeat(90_000), reason: "r".repeat(90_000), detail: "the reference is SECRET-VALUE" });
      const [row] = (await listItems(mini.db, runId, { capability: "zz_synthetic" })).rows;
      expect(row!.question).toHaveLength(ITEM_TEXT_CHARS.question + 1);
      expect(row!.question.endsWith("…")).toBe(true);
      expect(row!.answer).toHaveLength(ITEM_TEXT_CHARS.answer + 1);
      expect(row!.reason).toHaveLength(ITEM_TEXT_CHARS.reason + 1);
      // The private detail stays out unless the ground truth is public.
      expect(row!.detail).toBeNull();
      expect(JSON.stringify((await listItems(mini.db, runId, {})))).not.toContain("SECRET-VALUE");
      expect((await listItems(mini.db, runId, { capability: "zz_synthetic" }, { showGroundTruth: true })).rows[0]!.detail).toBe("the reference is SECRET-VALUE");
    });

    it("reads the real items' question, answer and reason", async () => {
      const ts2 = (await listItems(mini.db, runId, { capability: "tool_selection" })).rows.find((r) => r.uuid === "ts-2")!;
      expect(ts2).toMatchObject({ question: "Which ship is the largest?", answer: "The largest is Ocean Queen." });
      expect(ts2.reason.length).toBeGreaterThan(0);
    });

    it("shows the benchmark's question for an item with no scored turn (missing, errors)", async () => {
      await put({ uuid: "gone", score: 0, status: "missing", stage: "none", raw: JSON.stringify({ reason: "no prediction for this item", detail: null, trace: [], question: "How many berths are free?" }) });
      await put({ uuid: "said", score: 0, stage: "correctness", question: "What the agent was asked", raw: JSON.stringify({ reason: "r", detail: null, trace: [{ turnId: 0, query: "What the agent was asked", answer: "x", calls: [], responses: [] }], question: "ignored beside a trace" }) });
      const rows = (await listItems(mini.db, runId, { capability: "zz_synthetic" })).rows;
      expect(rows.find((r) => r.uuid === "gone")!.question).toBe("How many berths are free?");
      expect(rows.find((r) => r.uuid === "said")!.question).toBe("What the agent was asked");
    });

    it("never loads a hostile huge result for the table, and says so", async () => {
      // Past the parse limit: the table reads none of it.
      await put({ uuid: "huge", score: 0, stage: "correctness", raw: JSON.stringify({ reason: "x", trace: [{ query: "Q".repeat(MAX_ITEM_RESULT_CHARS), answer: "", calls: [], responses: [] }] }) });
      // Under it, but with a 20 MB question: the row carries its first characters only.
      await put({ uuid: "big", score: 0, stage: "correctness", question: "B".repeat(20_000_000), reason: "fine" });
      // Not JSON at all (a damaged row): the page still renders. SQLite only: Postgres 15 cannot
      // test text for JSON in a query, and the column is only ever written as JSON (sql-dialect.ts).
      if (engine === "sqlite") await put({ uuid: "broken", score: 0, stage: "correctness", raw: "{not json" });
      const page = await listItems(mini.db, runId, { capability: "zz_synthetic", sort: "question" });
      const by = Object.fromEntries(page.rows.map((r) => [r.uuid, r]));
      expect(by.huge!.question).toBe("");
      expect(by.huge!.reason).toMatch(/too large to show/);
      expect(by.big!.question).toHaveLength(ITEM_TEXT_CHARS.question + 1);
      if (engine === "sqlite") expect(by.broken).toMatchObject({ question: "", reason: "" });
      expect(JSON.stringify(page).length).toBeLessThan(10_000);
      expect((await getItem(mini.db, runId, "zz_synthetic", "huge", { showGroundTruth: false }))!.reason).toMatch(/too large to show here/);
    });
  });

  describe("the trajectory diagnostic, call by call", () => {
    it("stores the engine's pairing and shows the public half: the agent's calls, what differed, expected calls only counted", async () => {
      const [stored] = await mini.db.select({ result: itemResults.result }).from(itemResults).where(and(eq(itemResults.runId, runId), eq(itemResults.uuid, "ts-2")));
      expect((stored!.result as { trajectory?: { pairs?: unknown } }).trajectory?.pairs).toEqual([
        { name: "get_largest_ship", expected: { index: 0, step: 1, params: {} }, actual: null, params: null },
        { name: "get_ship_list", expected: null, actual: { index: 0, step: 1, params: {} }, params: null },
      ]);
      const closed = (await getItem(mini.db, runId, "tool_selection", "ts-2", { showGroundTruth: false }))!;
      expect(closed.trajectory).toMatchObject({ notMade: 1, summary: null, calls: [{ call: { index: 0, name: "get_ship_list", arguments: {} }, verdict: "not_expected", expected: null }] });
      expect(JSON.stringify(closed)).not.toContain("get_largest_ship");
      const open = (await getItem(mini.db, runId, "tool_selection", "ts-2", { showGroundTruth: true }))!;
      expect(open.trajectory!.calls).toEqual([
        { call: { index: 0, name: "get_ship_list", arguments: {} }, verdict: "not_expected", differed: [], missing: [], extra: [], expected: null },
        { call: null, verdict: "not_made", differed: [], missing: [], extra: [], expected: { name: "get_largest_ship", arguments: {} } },
      ]);
      // "2020" for 2020 is the same value: the call is as expected.
      expect((await getItem(mini.db, runId, "tool_selection", "ts-1", { showGroundTruth: false }))!.trajectory!.calls).toEqual([
        { call: { index: 0, name: "get_docked_ships", arguments: { year: "2020" } }, verdict: "as_expected", differed: [], missing: [], extra: [], expected: null },
      ]);
    });

    it("names the parameter that differed, went missing or was extra, never the expected value", async () => {
      const pairs = [
        { name: "find_ship", expected: { index: 0, step: 1, params: { name: "Sea Dragon", year: 1999, "Sea Dragon": 1 } }, actual: { index: 1, step: 2, params: { name: "Ocean Queen", flag: "x" } }, params: { matching: [], mismatched: [{ key: "name", expected: "Sea Dragon", actual: "Ocean Queen" }], missing: ["year", "Sea Dragon"], extra: ["flag"] } },
        { name: "list_ports", expected: null, actual: { index: 0, step: 1, params: { all: true } }, params: null },
      ];
      const trajectory = { score: 0.2, toolNamesF1: 0.5, paramsF1: 0, order: null, exact: false, summary: "wrong values: find_ship.name (Sea Dragon)", pairs };
      await put({ uuid: "diff", score: 0, stage: "correctness", raw: JSON.stringify({ scorer: "waterfall", reason: "r", detail: null, trace: [], verdicts: [], trajectory }) });
      const closed = (await getItem(mini.db, runId, "zz_synthetic", "diff", { showGroundTruth: false }))!;
      // In the agent's order; the omitted key that reads as a value ("Sea Dragon") is not named.
      expect(closed.trajectory!.calls).toEqual([
        { call: { index: 0, name: "list_ports", arguments: { all: true } }, verdict: "not_expected", differed: [], missing: [], extra: [], expected: null },
        { call: { index: 1, name: "find_ship", arguments: { name: "Ocean Queen", flag: "x" } }, verdict: "differed", differed: ["name"], missing: ["year"], extra: ["flag"], expected: null },
      ]);
      expect(closed.trajectory!.notMade).toBe(0);
      expect(JSON.stringify(closed)).not.toContain("Sea Dragon");
      expect(JSON.stringify(closed)).not.toContain("1999");
      const open = (await getItem(mini.db, runId, "zz_synthetic", "diff", { showGroundTruth: true }))!;
      expect(open.trajectory!.calls![1]).toMatchObject({ missing: ["year", "Sea Dragon"], expected: { name: "find_ship", arguments: { name: "Sea Dragon", year: 1999 } } });
    });

    it("reads a result stored before calls were paired", async () => {
      const trajectory = { score: 1, toolNamesF1: 1, paramsF1: null, order: null, exact: true, summary: "tools: 1 of 1" };
      await put({ uuid: "old", score: 1, raw: JSON.stringify({ scorer: "waterfall", reason: "r", detail: null, trace: [], verdicts: [], trajectory }) });
      expect((await getItem(mini.db, runId, "zz_synthetic", "old", { showGroundTruth: false }))!.trajectory).toEqual({ score: 1, toolNamesF1: 1, paramsF1: null, order: null, exact: true, summary: null, calls: null, notMade: 0 });
    });
  });
});
