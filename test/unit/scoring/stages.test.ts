import { describe, expect, it } from "vitest";
import { findViolations, policyTableIndex, resolvePolicy, type ResolvedPolicy } from "@/lib/benchmark/policy";
import type { GroundTruthDialogue, ToolCall } from "@/lib/formats/dialogue";
import { checkExactMatch, type ExactMatchInput } from "@/lib/scoring/stages/exact-match-stage";
import { checkPolicy } from "@/lib/scoring/stages/policy-stage";

const calls = (...names: string[]): ToolCall[] => names.map((name) => ({ name, arguments: {} }));
const rule = (allowTools?: string[], denyTools?: string[]): ResolvedPolicy => ({ kind: "rule", source: "structured", rule: { allowTools, denyTools } });

describe("policy stage", () => {
  it("skips a dialogue without a policy", () => {
    expect(checkPolicy({ kind: "none" }, calls("sql_query"), 2)).toEqual({
      stage: "policy",
      turnId: 2,
      outcome: "skipped",
      score: null,
      reason: "the dialogue carries no tool-use policy",
      detail: null,
      judge: "program",
      promptHash: null,
      cacheHit: false,
      latencyMs: 0,
    });
  });

  it('reports unmapped policy text as "unchecked", never as a pass', () => {
    const v = checkPolicy({ kind: "unchecked", text: "Only use the finance tools." }, calls("web_search"), 1);
    expect(v.outcome).toBe("unchecked");
    expect(v.score).toBeNull();
    expect(v.reason).toContain('"Only use the finance tools."');
  });

  it("passes calls that match the allow globs", () => {
    const v = checkPolicy(rule(["sql_*", "get_schema"]), calls("sql_query", "get_schema", "sql_"), 4);
    expect(v).toMatchObject({ stage: "policy", turnId: 4, outcome: "pass", score: 1, judge: "program" });
    expect(v.reason).toBe("all 3 tool call(s) respect the structured policy");
  });

  it("fails a call outside the allow globs and names it", () => {
    const v = checkPolicy(rule(["sql_*", "get_schema"]), calls("sql_query", "web_search"), 1);
    expect(v).toMatchObject({ outcome: "fail", score: 0 });
    expect(v.reason).toBe("policy violated: call #2 web_search is not among the allowed tools (sql_*, get_schema)");
  });

  it("fails a call matching a deny glob", () => {
    const v = checkPolicy(rule(undefined, ["*delete*"]), calls("list_rows", "db_delete_row", "delete"), 1);
    expect(v.outcome).toBe("fail");
    expect(v.reason).toBe(
      "policy violated: call #2 db_delete_row matches a denied pattern (*delete*); call #3 delete matches a denied pattern (*delete*)",
    );
  });

  it("lets deny win over allow", () => {
    const v = checkPolicy(rule(["db_*"], ["db_drop*"]), calls("db_read", "db_drop_table"), 1);
    expect(v.outcome).toBe("fail");
    expect(v.reason).toContain("call #2 db_drop_table matches a denied pattern (db_drop*)");
    expect(v.reason).not.toContain("call #1");
  });

  it("treats glob characters other than * literally and anchors the whole name", () => {
    expect(checkPolicy(rule(["get.data"]), calls("getXdata"), 1).outcome).toBe("fail");
    expect(checkPolicy(rule(["get.data"]), calls("get.data"), 1).outcome).toBe("pass");
    expect(checkPolicy(rule(["sql"]), calls("sql_query"), 1).outcome).toBe("fail");
    expect(checkPolicy(rule(["*"]), calls("anything", "at_all"), 1).outcome).toBe("pass");
  });

  it("passes a turn that made no calls", () => {
    expect(checkPolicy(rule(["sql_*"]), [], 1)).toMatchObject({ outcome: "pass", score: 1, reason: "all 0 tool call(s) respect the structured policy" });
  });

  it("names a table policy's source", () => {
    const v = checkPolicy({ kind: "rule", source: "table", rule: { denyTools: ["web_*"] } }, calls("sql_query"), 1);
    expect(v.reason).toBe("all 1 tool call(s) respect the table policy");
  });

  it("findViolations reports call, index and reason", () => {
    expect(findViolations({ allowTools: ["a_*"] }, calls("a_1", "b_2"))).toEqual([
      { call: "b_2", index: 1, reason: "b_2 is not among the allowed tools (a_*)" },
    ]);
  });
});

describe("resolvePolicy", () => {
  const gt = (instructions: string, policy?: GroundTruthDialogue["policy"]): GroundTruthDialogue => ({ uuid: "u1", domain: "d", instructions, policy, turns: [] });
  const table = policyTableIndex([{ text: "Only use  the SQL\ntools.", allowTools: ["sql_*"] }]);

  it("prefers a structured policy", () => {
    expect(resolvePolicy(gt("Only use the SQL tools.", { denyTools: ["web_*"] }), table)).toEqual({ kind: "rule", source: "structured", rule: { denyTools: ["web_*"] } });
  });

  it("looks instructions up in the table with whitespace normalised", () => {
    expect(resolvePolicy(gt("  Only use the   SQL tools. "), table)).toEqual({ kind: "rule", source: "table", rule: { allowTools: ["sql_*"], denyTools: undefined } });
  });

  it("is none for blank instructions and unchecked for unknown text", () => {
    expect(resolvePolicy(gt("   "), table)).toEqual({ kind: "none" });
    expect(resolvePolicy(gt("Never use the web.", {}), table)).toEqual({ kind: "unchecked", text: "Never use the web." });
  });
});

describe("exact match stage", () => {
  const R1 = { rows: [["Pommeau Noir", 18.5]], count: 1 };
  const R2 = { rows: [], count: 0 };
  const input = (over: Partial<ExactMatchInput>): ExactMatchInput => ({ turnId: 1, groundTruth: [R1], predicted: [R1], window: 5, compat: "strict", ...over });

  it("strict: fails a turn whose ground truth has no responses", () => {
    const v = checkExactMatch(input({ groundTruth: [], predicted: [R1] }));
    expect(v).toMatchObject({ stage: "exact", outcome: "fail", score: 0, judge: "program" });
    expect(v.reason).toBe("ground truth has no tool responses, so exact match cannot pass");
  });

  it("vakra: passes that turn vacuously", () => {
    const v = checkExactMatch(input({ groundTruth: [], predicted: [], compat: "vakra" }));
    expect(v).toMatchObject({ outcome: "pass", score: 1 });
    expect(v.reason).toContain("passed vacuously (compat: vakra)");
  });

  it("strict: ignores key order and JSON-in-string", () => {
    const v = checkExactMatch(input({ groundTruth: [{ count: 1, rows: [["Pommeau Noir", 18.5]] }], predicted: ['{"rows": [["Pommeau Noir", 18.5]], "count": 1}'] }));
    expect(v.outcome).toBe("pass");
    expect(v.reason).toBe("all 1 ground-truth response(s) found among the last 5 predicted responses");
  });

  it("strict: fails a different value", () => {
    expect(checkExactMatch(input({ predicted: [{ rows: [["Pommeau Noir", 18.4]], count: 1 }] })).outcome).toBe("fail");
  });

  it("vakra: compares Python str() forms, so key order matters and Python text matches", () => {
    expect(checkExactMatch(input({ compat: "vakra", groundTruth: [{ a: 1, b: 2 }], predicted: [{ a: 1, b: 2 }] })).outcome).toBe("pass");
    expect(checkExactMatch(input({ compat: "vakra", groundTruth: [{ a: 1, b: 2 }], predicted: [{ b: 2, a: 1 }] })).outcome).toBe("fail");
    expect(checkExactMatch(input({ compat: "vakra", groundTruth: ["{'ok': True, 'v': None}"], predicted: [{ ok: true, v: null }] })).outcome).toBe("pass");
  });

  it("only looks at the last N predicted responses", () => {
    const before = checkExactMatch(input({ groundTruth: [R1], predicted: [R1, R2, "x"], window: 2 }));
    expect(before.outcome).toBe("fail");
    // Which expected response is missing quotes the ground truth: private.
    expect(before.reason).toBe("1 of 1 ground-truth response(s) not found among the last 2 predicted responses");
    expect(before.reason).not.toContain("Pommeau Noir");
    expect(before.detail).toBe(`first missing #1: {"count":1,"rows":[["Pommeau Noir",18.5]]}`);
    expect(checkExactMatch(input({ groundTruth: [R1], predicted: [R1, R2, "x"], window: 3 })).outcome).toBe("pass");
    expect(checkExactMatch(input({ groundTruth: [R1], predicted: [R2, R1, "x"], window: 2 })).outcome).toBe("pass");
  });

  it("needs every ground-truth response, in any order", () => {
    expect(checkExactMatch(input({ groundTruth: [R1, R2], predicted: [R2, "noise", R1] })).outcome).toBe("pass");
    const v = checkExactMatch(input({ groundTruth: [R1, R2], predicted: [R1] }));
    expect(v.outcome).toBe("fail");
    expect(v.reason).toBe("1 of 2 ground-truth response(s) not found among the last 1 predicted responses");
    expect(v.reason).not.toContain("rows");
    expect(v.detail).toBe(`first missing #2: {"count":0,"rows":[]}`);
  });

  it("fails when nothing was predicted", () => {
    expect(checkExactMatch(input({ predicted: [] }))).toMatchObject({ outcome: "fail", score: 0 });
  });

  it("clips a long missing response in the private detail", () => {
    const long = { text: "x".repeat(500) };
    const v = checkExactMatch(input({ groundTruth: [long], predicted: [] }));
    expect(v.reason).not.toContain("xxx");
    expect(v.detail).toContain(`first missing #1: ${JSON.stringify(long).slice(0, 200)}…`);
    expect(v.detail!.length).toBeLessThan(320);
  });
});
