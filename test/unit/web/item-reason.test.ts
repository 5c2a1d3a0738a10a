/**
 * The item list's reason for an answer judged wrong: the agent's side of the first divergence,
 * read from the stored trajectory diagnostic (each engine), never the expected value; the
 * judge's own reason where there is no diagnostic to tell it by. And the lost-points counts the
 * capability bars and the domain grid link with.
 */
import { sql } from "drizzle-orm";
import { beforeEach, describe, expect, it } from "vitest";
import { rows as rawRows } from "@/db/client";
import { listItems, lostPointCounts, MAX_DIAGNOSTIC_CHARS } from "@/lib/queries/item-list";
import { getSubmission } from "@/lib/queries/submission";
import type { CallPairing } from "@/lib/evaluators/trajectory-compare";
import { ENGINES } from "../../helpers/engines";
import { scoreThroughWorker, useMiniDb } from "../../helpers/mini-db";
import { GOOD_BUNDLE, tickingClock } from "../../helpers/mini-fixtures";

const now = tickingClock();
const JUDGE = "the answer lacks 1 of 1 reference value";

const call = (index: number, params: Record<string, unknown>) => ({ index, step: index + 1, params });
const pair = (name: string, expected: Record<string, unknown> | null, actual: Record<string, unknown> | null, index = 0): CallPairing => {
  if (!expected || !actual) return { name, expected: expected && call(index, expected), actual: actual && call(index, actual), params: null };
  const keys = new Set([...Object.keys(expected), ...Object.keys(actual)]);
  const d = { matching: [] as string[], mismatched: [] as { key: string; expected: unknown; actual: unknown }[], missing: [] as string[], extra: [] as string[] };
  for (const k of keys) {
    if (!(k in actual)) d.missing.push(k);
    else if (!(k in expected)) d.extra.push(k);
    else if (JSON.stringify(expected[k]) === JSON.stringify(actual[k])) d.matching.push(k);
    else d.mismatched.push({ key: k, expected: expected[k], actual: actual[k] });
  }
  return { name, expected: call(index, expected), actual: call(index, actual), params: d };
};

describe.each(ENGINES)("the item list's reasons (%s)", (engine) => {
  const mini = useMiniDb(now, engine);
  let runId: number;
  beforeEach(async () => {
    const submissionId = await scoreThroughWorker(mini, GOOD_BUNDLE, now);
    runId = (await getSubmission(mini.db, submissionId))!.run!.id;
  });

  async function put(uuid: string, pairs: CallPairing[] | undefined, opts: { stage?: string; score?: number; domain?: string; answer?: string; padding?: number } = {}) {
    const trajectory = pairs === undefined ? null : { score: 0.5, toolNamesF1: 1, paramsF1: 0.5, order: 1, exact: false, summary: "wrong values: secret", pairs, padding: "p".repeat(opts.padding ?? 0) };
    const result = JSON.stringify({ reason: JUDGE, detail: "reference: SECRET", trace: [{ turnId: 1, query: "q", answer: opts.answer ?? "It is 80.", calls: [], responses: [] }], trajectory });
    await rawRows(
      mini.db,
      sql`INSERT INTO item_results (run_id, capability, domain, uuid, trial, weight, score, status, stage, scorer, bucket, result)
          VALUES (${runId}, 'zz', ${opts.domain ?? "dock"}, ${uuid}, 1, 1, ${opts.score ?? 0}, 'scored', ${opts.stage ?? "correctness"}, 'waterfall', 'correctness_failed', ${result}) RETURNING id`,
    );
  }
  const reasons = async () => Object.fromEntries((await listItems(mini.db, runId, { capability: "zz", pageSize: 100 }, { showGroundTruth: false })).rows.map((r) => [r.uuid, r.reason]));

  it("names the agent's call and value at the first divergence, in the agent's order", async () => {
    await put("a-value", [pair("filter_data", { key: "length", operator: "greater_than" }, { key: "length", operator: "less_than" }), pair("count_data", { label: "x1" }, { label: "x2" }, 1)]);
    await put("b-second", [pair("get_ship", { name: "Azure" }, { name: "Azure" }), pair("sort_data", { ascending: true }, { ascending: false }, 1)]);
    await put("c-extra", [pair("top_ships", { n: 3 }, { n: 3, ascending: true })]);
    await put("d-missing", [pair("top_ships", { n: 3, ascending: true }, { n: 3 })]);
    await put("e-unexpected", [pair("get_ship", null, { name: "Azure" })]);
    await put("f-not-made", [pair("get_ship", { name: "Azure" }, { name: "Azure" }), pair("get_secret_tool", { q: "SECRET" }, null, 1)]);
    await put("g-same", [pair("get_ship", { name: "Azure" }, { name: "Azure" })], { answer: "It is Norway." });
    const r = await reasons();
    expect(r).toEqual({
      "a-value": 'First divergence: call 1 `filter_data`: the value of parameter `operator` differed (the agent gave "less_than").',
      "b-second": "First divergence: call 2 `sort_data`: the value of parameter `ascending` differed (the agent gave false).",
      "c-extra": "First divergence: call 1 `top_ships`: parameter `ascending` was not expected (the agent gave true).",
      "d-missing": "First divergence: call 1 `top_ships`: parameter `ascending` was left out.",
      "e-unexpected": "First divergence: call 1 `get_ship` was not expected: no expected call pairs with it.",
      "f-not-made": "First divergence: the agent's 1 call matched, but an expected call was not made.",
      "g-same": `The agent's calls match the reference's; its answer "It is Norway." is not the reference answer.`,
    });
    for (const text of Object.values(r)) expect(text).not.toMatch(/greater_than|x1|SECRET|get_secret_tool|reference value/);
  });

  it("keeps the judge's reason where no diagnostic tells the divergence: none stored, one too long, or an item not lost at correctness", async () => {
    await put("a-none", undefined);
    await put("b-long", [pair("f", { a: 1 }, { a: 2 })], { padding: MAX_DIAGNOSTIC_CHARS });
    await put("c-grounded", [pair("f", { a: 1 }, { a: 2 })], { stage: "groundedness" });
    await put("d-passed", [pair("f", { a: 1 }, { a: 2 })], { score: 1 });
    expect(await reasons()).toEqual({ "a-none": JUDGE, "b-long": JUDGE, "c-grounded": JUDGE, "d-passed": JUDGE });
  });

  it("counts the items that lost points per capability and domain", async () => {
    await put("a", [], { domain: "dock" });
    await put("b", [], { domain: "dock" });
    await put("c", [], { domain: "pier" });
    await put("d", [], { domain: "pier", score: 1 });
    const counts = (await lostPointCounts(mini.db, runId)).filter((c) => c.capability === "zz");
    expect(counts.sort((x, y) => x.domain.localeCompare(y.domain))).toEqual([
      { capability: "zz", domain: "dock", n: 2 },
      { capability: "zz", domain: "pier", n: 1 },
    ]);
  });
});
