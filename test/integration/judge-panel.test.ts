/**
 * A judge panel behind the grader port (lib/judges/panel-grader.ts), with its members real
 * OpenAI graders against a fake OpenAI-compatible server on 127.0.0.1 that answers by model:
 * the rules (primary, majority), disagreement on pass/fail and on scores, a member that cannot
 * judge (not a dispute; a 1-1-unjudged majority is unjudged and disputed), each member asked
 * through the grade cache, a maintainer's decision taken before the judges, and the panel's
 * settings from benchmark.yaml through the one judge factory.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { benchmarkSpecSchema } from "@/lib/benchmark/spec";
import { createMemoryGradeCache } from "@/lib/judges/grade-cache";
import type { GradeRequest } from "@/lib/judges/grader";
import { createGrader, recordedJudge, resolveJudgeSettings, type JudgeSettings } from "@/lib/judges/judge-settings";
import { decisionKey, withPanelLog, type Decision, type PanelRule } from "@/lib/judges/panel-grader";
import { scoreMessages } from "@/lib/evaluators/prompts";
import { startFakeOpenAiServer, systemPrompt, type FakeOpenAiServer, type RecordedRequest } from "../helpers/fake-openai-server";

let server: FakeOpenAiServer;
/** What each model says: a verdict (pass/fail stages), a score (graded), or `down` (HTTP 500 every time). */
let says: Record<string, { pass?: boolean; score?: number; down?: boolean }>;

const modelOf = (req: RecordedRequest) => (req.json as { model?: string }).model ?? "";

beforeEach(async () => {
  says = {};
  server = await startFakeOpenAiServer((req) => {
    const s = says[modelOf(req)] ?? {};
    if (s.down) return { status: 500, body: "down" };
    if (s.score !== undefined) return { content: JSON.stringify({ score: s.score, reasoning: `${modelOf(req)} scores it` }) };
    const grounded = /grounded/i.test(systemPrompt(req));
    const verdict = grounded ? (s.pass === false ? "not grounded" : "grounded") : s.pass === false ? "incorrect" : "correct";
    return { content: JSON.stringify({ verdict, reason: `${modelOf(req)}: the reference is 41.2587` }) };
  });
});
afterEach(() => server.close());

const correctness = (answer = "The mean is 41.26."): GradeRequest => ({ kind: "correctness", question: "What is the mean abv?", answer, answerValue: answer, reference: "41.2587", referenceValue: "41.2587" });
const qa = (answer = "three"): GradeRequest => ({ kind: "qa", messages: scoreMessages("Q: {question}\nA: {answer}\nR: {reference}", { question: "How many?", answer, reference: "3" }), facts: { question: "How many?", answer, reference: "3" } });

function member(model: string): JudgeSettings {
  return { kind: "openai", model, baseUrl: server.baseUrl, concurrency: 4, maxAttempts: 2, timeoutMs: 5_000, maxDelayMs: 1 };
}

function panel(rule: PanelRule, models: string[], deps: { decisions?: Map<string, Decision> } = {}) {
  const cache = createMemoryGradeCache();
  const decisions = deps.decisions;
  const grader = createGrader({ kind: "panel", concurrency: 4, panel: { rule, members: models.map(member) } }, { cache, ...(decisions ? { decisions: { get: async (k) => decisions.get(k) } } : {}) });
  return { grader, cache };
}

async function graded(grader: ReturnType<typeof panel>["grader"], req: GradeRequest) {
  const { value, panel: records } = await withPanelLog(() => grader.grade(req));
  expect(records).toHaveLength(1);
  return { grade: value, record: records[0]! };
}

describe("rule primary", () => {
  it("keeps the first judge's grade; a different outcome from the second is a dispute, each grade recorded", async () => {
    says = { a: { pass: true }, b: { pass: false } };
    const { grader } = panel("primary", ["a", "b"]);
    expect(grader.id).toBe("panel:primary(openai:a,openai:b)");
    const { grade, record } = await graded(grader, correctness());
    expect(grade).toMatchObject({ outcome: "pass", score: 1, panel: { key: decisionKey(correctness()), disputed: true, decided: false } });
    expect(grade.reason).toContain("disputed");
    expect(record).toMatchObject({ rule: "primary", disputed: true, unjudged: [], outcome: "pass", decided: null });
    expect(record.members.map((m) => [m.judge, m.outcome, m.score])).toEqual([
      ["openai:a", "pass", 1],
      ["openai:b", "fail", 0],
    ]);
    // The public reasons never quote the reference; the judges' words stay in the private detail.
    for (const m of record.members) {
      expect(m.reason).not.toContain("41.2587");
      expect(m.detail).toContain("41.2587");
    }
    // What was asked, for the maintainer who adjudicates.
    expect(record.request).toEqual({ question: "What is the mean abv?", answer: "The mean is 41.26.", reference: "41.2587", evidence: null, field: null });
  });

  it("agreeing judges are no dispute, and the record keeps no request", async () => {
    says = { a: { pass: false }, b: { pass: false } };
    const { grade, record } = await graded(panel("primary", ["a", "b"]).grader, correctness());
    expect(grade).toMatchObject({ outcome: "fail", panel: { disputed: false } });
    expect(record.disputed).toBe(false);
    expect(record.request).toBeUndefined();
  });

  it("a second judge that cannot judge is no dispute: the record names it, the first judge's grade stands", async () => {
    says = { a: { pass: true }, b: { down: true } };
    const { grade, record } = await graded(panel("primary", ["a", "b"]).grader, correctness());
    expect(grade.outcome).toBe("pass");
    expect(record).toMatchObject({ disputed: false, unjudged: ["openai:b"] });
  });

  it("a first judge that cannot judge leaves the grade unjudged: the second does not stand in", async () => {
    says = { a: { down: true }, b: { pass: true } };
    const { grade, record } = await graded(panel("primary", ["a", "b"]).grader, correctness());
    expect(grade.outcome).toBe("unjudged");
    expect(record).toMatchObject({ disputed: false, unjudged: ["openai:a"] });
  });

  it("scores at least 0.5 apart are a dispute; closer ones are not", async () => {
    says = { a: { score: 0.9 }, b: { score: 0.4 } };
    const far = await graded(panel("primary", ["a", "b"]).grader, qa());
    expect(far.grade).toMatchObject({ outcome: "scored", score: 0.9 });
    expect(far.record.disputed).toBe(true);
    says = { a: { score: 0.9 }, b: { score: 0.5 } };
    const near = await graded(panel("primary", ["a", "b"]).grader, qa("3"));
    expect(near.record.disputed).toBe(false);
  });
});

describe("rule majority", () => {
  it("takes the outcome two of three judges share, and the disagreement is a dispute", async () => {
    says = { a: { pass: true }, b: { pass: false }, c: { pass: false } };
    const { grade, record } = await graded(panel("majority", ["a", "b", "c"]).grader, correctness());
    expect(grade).toMatchObject({ outcome: "fail", score: 0 });
    expect(record).toMatchObject({ rule: "majority", disputed: true, outcome: "fail" });
  });

  it("on a 1-1-unjudged split the grade is unjudged and disputed: it waits for a maintainer", async () => {
    says = { a: { pass: true }, b: { pass: false }, c: { down: true } };
    const { grade, record } = await graded(panel("majority", ["a", "b", "c"]).grader, correctness());
    expect(grade.outcome).toBe("unjudged");
    expect(record).toMatchObject({ disputed: true, unjudged: ["openai:c"], outcome: "unjudged" });
  });

  it("two agreeing judges with the third unjudged make the majority, undisputed", async () => {
    says = { a: { down: true }, b: { pass: true }, c: { pass: true } };
    const { grade, record } = await graded(panel("majority", ["a", "b", "c"]).grader, correctness());
    expect(grade.outcome).toBe("pass");
    expect(record).toMatchObject({ disputed: false, unjudged: ["openai:a"] });
  });

  it("scores: the median of three", async () => {
    says = { a: { score: 0.1 }, b: { score: 0.8 }, c: { score: 0.7 } };
    const { grade, record } = await graded(panel("majority", ["a", "b", "c"]).grader, qa());
    expect(grade).toMatchObject({ outcome: "scored", score: 0.7 });
    expect(record.disputed).toBe(true);
  });
});

describe("each member through the grade cache", () => {
  it("asks each judge once per request: the same request again is answered from the cache", async () => {
    says = { a: { pass: true }, b: { pass: false } };
    const { grader, cache } = panel("primary", ["a", "b"]);
    await grader.grade(correctness());
    expect(server.requestCount).toBe(2);
    expect(cache.size()).toBe(2);
    const again = await graded(grader, correctness());
    expect(server.requestCount).toBe(2);
    expect(again.record.members.every((m) => m.cacheHit)).toBe(true);
    expect(again.record.disputed).toBe(true);
  });
});

describe("a maintainer's decision", () => {
  it("is taken before the judges: the grade says who decided, and no judge is asked", async () => {
    says = { a: { pass: true }, b: { pass: false } };
    const decisions = new Map<string, Decision>([[decisionKey(correctness()), { outcome: "fail", score: 0 }]]);
    const { grade, record } = await graded(panel("primary", ["a", "b"], { decisions }).grader, correctness());
    expect(grade).toMatchObject({ outcome: "fail", score: 0, reason: "failed: decided by a maintainer", panel: { decided: true, disputed: false } });
    expect(record.decided).toEqual({ outcome: "fail", score: 0 });
    expect(server.requestCount).toBe(0);
    // Another request (another answer) is not decided: the judges are asked.
    await graded(panel("primary", ["a", "b"], { decisions }).grader, correctness("About 41."));
    expect(server.requestCount).toBe(2);
  });

  it("is keyed by the request whoever judges it: the same request has one key, another answer another", () => {
    expect(decisionKey(correctness())).toBe(decisionKey(correctness()));
    expect(decisionKey(correctness())).not.toBe(decisionKey(correctness("About 41.")));
    expect(decisionKey(qa())).not.toBe(decisionKey(correctness()));
    expect(decisionKey(correctness())).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe("benchmark.yaml judge.panel through the one judge factory", () => {
  const base = { slug: "p", title: "P", version: "1", capabilities: [{ id: "c", label: "C", directory: "capability_1_c" }] };

  it("accepts two or three judges; a majority needs three", () => {
    const ok = benchmarkSpecSchema.safeParse({ ...base, judge: { panel: { rule: "majority", judges: [{ kind: "rules" }, { kind: "openai", model: "m" }, { kind: "openai", model: "n" }] } } });
    expect(ok.success).toBe(true);
    const two = benchmarkSpecSchema.safeParse({ ...base, judge: { panel: { judges: [{ kind: "rules" }, { kind: "openai", model: "m" }] } } });
    expect(two.success && two.data.judge.panel?.rule).toBe("primary");
    const bad = benchmarkSpecSchema.safeParse({ ...base, judge: { panel: { rule: "majority", judges: [{ kind: "rules" }, { kind: "openai", model: "m" }] } } });
    expect(bad.success).toBe(false);
    expect(JSON.stringify(bad.error?.issues)).toContain("a majority needs three judges");
    const one = benchmarkSpecSchema.safeParse({ ...base, judge: { panel: { judges: [{ kind: "rules" }] } } });
    expect(JSON.stringify(one.error?.issues)).toContain("a panel needs two or three judges");
  });

  it("resolves the panel from the config, each member its own judge; a flag naming a judge takes its place", () => {
    const config = { kind: "rules" as const, panel: { rule: "primary" as const, judges: [{ kind: "rules" as const }, { kind: "openai" as const, model: "m2", baseUrl: "http://judge.example/v1" }] } };
    const env = { AGENTBOARD_JUDGE_API_KEY: "sk-test", AGENTBOARD_JUDGE_MODEL: "not-for-members" };
    const s = resolveJudgeSettings({ config, env });
    expect(s.kind).toBe("panel");
    expect(s.panel?.members.map((m) => [m.kind, m.model ?? null, m.apiKey ?? null])).toEqual([
      ["rules", null, null],
      ["openai", "m2", "sk-test"],
    ]);
    const recorded = recordedJudge(s);
    expect(recorded).toMatchObject({ id: "panel:primary(rules,openai:m2)", kind: "panel" });
    expect(JSON.stringify(recorded)).not.toContain("sk-test");
    expect(resolveJudgeSettings({ config, flags: { judge: "rules" } }).kind).toBe("rules");
    expect(resolveJudgeSettings({ config, flags: { judge: "panel" } }).kind).toBe("panel");
    expect(() => resolveJudgeSettings({ flags: { judge: "panel" } })).toThrow("the panel judge needs judge.panel");
    expect(() => resolveJudgeSettings({ config: { panel: { rule: "primary", judges: [{ kind: "rules" }, { kind: "openai" }] } } })).toThrow("judge.panel.judges[1]");
  });

  it("a panel of rules members grades without a model: deterministic members are panel members too", async () => {
    const grader = createGrader({ kind: "panel", concurrency: 1, panel: { rule: "primary", members: [{ kind: "rules", concurrency: 1 }, { kind: "rules", concurrency: 1 }] } });
    const { grade, record } = await graded(grader, correctness("41.2587"));
    expect(grade.outcome).toBe("pass");
    expect(record).toMatchObject({ disputed: false, members: [{ judge: "rules" }, { judge: "rules" }] });
  });
});
