/** benchmark.yaml parsing, VAKRA defaults, policy resolution and item weights. */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { classifySources, itemWeight } from "../../../lib/benchmark/item-weight";
import { BenchmarkError, dialogueCapability, loadBenchmark, parseBenchmarkSpec } from "../../../lib/benchmark/load-benchmark";
import { findViolations, normalisePolicyText, policyTableIndex, resolvePolicy } from "../../../lib/benchmark/policy";
import { benchmarkSpecSchema, type CapabilitySpec } from "../../../lib/benchmark/spec";
import { vakraDefaults } from "../../../lib/benchmark/vakra-defaults";
import type { GroundTruthDialogue, ToolCall } from "../../../lib/formats/dialogue";

const here = path.dirname(fileURLToPath(import.meta.url));
const FIXTURES = path.resolve(here, "../../fixtures/vakra-shapes");

const HEAD = "slug: tiny\ntitle: Tiny\nversion: 1\n";
const ONE_CAP = "capabilities:\n  - id: api_chaining\n    label: API chaining\n    directory: capability_1_bi_apis\n";

/** The BenchmarkError thrown by `fn`. */
function benchmarkError(fn: () => unknown): BenchmarkError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(BenchmarkError);
    return err as BenchmarkError;
  }
  throw new Error("expected a BenchmarkError, nothing was thrown");
}

describe("VAKRA defaults (no benchmark.yaml)", () => {
  it("a benchmark folder without benchmark.yaml gets VAKRA's four capabilities", async () => {
    const b = await loadBenchmark(FIXTURES);
    expect(b.spec.slug).toBe("vakra");
    expect(b.spec.version).toBe("1");
    expect(b.spec.compat).toBe("strict");
    expect(b.spec.capabilities.map((c) => c.id)).toEqual(["api_chaining", "tool_selection", "multihop", "multiturn"]);
    expect(b.spec.capabilities.map((c) => c.directory)).toEqual([
      "capability_1_bi_apis",
      "capability_2_dashboard_apis",
      "capability_3_multihop_reasoning",
      "capability_4_multiturn",
    ]);
    expect(b.spec.capabilities.map((c) => c.policies)).toEqual([false, false, false, true]);
    expect(b.spec.capabilities.map((c) => c.weights.multiSource)).toEqual([1, 1, 1, 2]);
    expect(b.spec.capabilities.map((c) => c.scoredTurns)).toEqual(["last", "last", "last", "last"]);
    expect(b.spec.retrieverTools).toEqual(["query_*", "retriever_*"]);
    expect(b.spec.policyTable).toEqual([]);
    expect(b.policyTable.size).toBe(0);
  });

  it("the defaults object parses to the same spec", () => {
    const spec = benchmarkSpecSchema.parse(vakraDefaults);
    expect(spec.capabilities).toHaveLength(4);
    expect(spec.capabilities[3]).toMatchObject({ id: "multiturn", policies: true, weights: { multiSource: 2 } });
    expect(spec.exactMatchWindow).toBe(20);
    expect(spec.judge).toEqual({ kind: "rules" });
  });
});

describe("parseBenchmarkSpec", () => {
  it("parses a minimal spec and fills in defaults", () => {
    const spec = parseBenchmarkSpec(HEAD + ONE_CAP);
    expect(spec.slug).toBe("tiny");
    expect(spec.version).toBe("1");
    expect(spec.retrieverTools).toEqual(["query_*", "retriever_*"]);
    expect(spec.capabilities[0]).toEqual({
      id: "api_chaining",
      label: "API chaining",
      description: "",
      directory: "capability_1_bi_apis",
      scorer: "waterfall",
      scoredTurns: "last",
      policies: false,
      weights: { multiSource: 1 },
    });
  });

  it("a bad value names its key path", () => {
    const e = benchmarkError(() => parseBenchmarkSpec(HEAD + ONE_CAP + "    scoredTurns: first\n"));
    expect(e.problems).toHaveLength(1);
    expect(e.problems[0]).toMatch(/^benchmark\.yaml: capabilities\[0\]\.scoredTurns: /);
    expect(e.problems[0]).toContain('"last"');
    expect(e.message).toContain("capabilities[0].scoredTurns");
  });

  it("a nested bad value names the nested path", () => {
    const e = benchmarkError(() => parseBenchmarkSpec(HEAD + ONE_CAP + "    weights: { multiSource: -1 }\n"));
    expect(e.problems).toHaveLength(1);
    expect(e.problems[0]).toMatch(/^benchmark\.yaml: capabilities\[0\]\.weights\.multiSource: /);
  });

  it("uses the given file name in messages", () => {
    const e = benchmarkError(() => parseBenchmarkSpec(HEAD + ONE_CAP + "exactMatchWindow: 0\n", "bench/benchmark.yaml"));
    expect(e.problems[0]).toMatch(/^bench\/benchmark\.yaml: exactMatchWindow: /);
  });

  it("rejects an unknown top-level key", () => {
    const e = benchmarkError(() => parseBenchmarkSpec(HEAD + "colour: red\n" + ONE_CAP));
    expect(e.problems).toHaveLength(1);
    expect(e.problems[0]).toContain("(top level)");
    expect(e.problems[0]).toContain('"colour"');
  });

  it("rejects an unknown key inside a capability", () => {
    const e = benchmarkError(() => parseBenchmarkSpec(HEAD + ONE_CAP + "    colour: red\n"));
    expect(e.problems[0]).toMatch(/^benchmark\.yaml: capabilities\[0\]: .*"colour"/);
  });

  it("rejects duplicate capability ids", () => {
    const yaml = HEAD + ONE_CAP + "  - id: api_chaining\n    label: Again\n    directory: capability_2_other\n";
    const e = benchmarkError(() => parseBenchmarkSpec(yaml));
    expect(e.problems).toEqual(['benchmark.yaml: capabilities[1].id: duplicate capability id "api_chaining"']);
  });

  it("rejects duplicate capability directories", () => {
    const yaml = HEAD + ONE_CAP + "  - id: other\n    label: Other\n    directory: capability_1_bi_apis\n";
    const e = benchmarkError(() => parseBenchmarkSpec(yaml));
    expect(e.problems).toEqual(['benchmark.yaml: capabilities[1].directory: duplicate capability directory "capability_1_bi_apis"']);
  });

  it("rejects a policy rule with neither allowTools nor denyTools", () => {
    const e = benchmarkError(() => parseBenchmarkSpec(HEAD + ONE_CAP + "policyTable:\n  - text: Only use APIs\n"));
    expect(e.problems).toEqual(["benchmark.yaml: policyTable[0]: a policy rule needs allowTools or denyTools"]);
  });

  it("reports invalid YAML", () => {
    const e = benchmarkError(() => parseBenchmarkSpec("slug: [unclosed\n"));
    expect(e.problems).toHaveLength(1);
    expect(e.problems[0]).toMatch(/^benchmark\.yaml: invalid YAML: /);
  });

  it("an empty file reports every missing required key", () => {
    const e = benchmarkError(() => parseBenchmarkSpec(""));
    expect(e.problems.map((p) => p.split(":")[1]!.trim())).toEqual(["slug", "title", "version", "capabilities"]);
  });

  describe("loadBenchmark with a benchmark.yaml", () => {
    let dir: string;
    beforeEach(() => {
      dir = mkdtempSync(path.join(tmpdir(), "agentboard-spec-"));
      mkdirSync(path.join(dir, "groundtruth", "capability_1_bi_apis"), { recursive: true });
      writeFileSync(
        path.join(dir, "groundtruth", "capability_1_bi_apis", "alpha.json"),
        JSON.stringify([{ uuid: "u1", domain: "alpha", output: [{ turn_id: 0, query: "q", answer: "a", sequence: { tool_call: [] } }] }]),
      );
    });
    afterEach(() => rmSync(dir, { recursive: true, force: true }));

    it("rejects a bad benchmark.yaml with the key path", async () => {
      writeFileSync(path.join(dir, "benchmark.yaml"), HEAD + ONE_CAP + "    scoredTurns: every\n");
      const err = await loadBenchmark(dir).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(BenchmarkError);
      expect((err as BenchmarkError).message).toContain("benchmark.yaml: capabilities[0].scoredTurns");
    });

    it("loads a good one", async () => {
      writeFileSync(path.join(dir, "benchmark.yaml"), HEAD + ONE_CAP + "policyTable:\n  - text: Only use APIs\n    denyTools: [query_*]\n");
      const b = await loadBenchmark(dir);
      expect(b.spec.capabilities.map((c) => c.id)).toEqual(["api_chaining"]);
      expect(b.capabilities[0]?.byUuid.has("u1")).toBe(true);
      expect(b.policyTable.get("Only use APIs")).toEqual({ allowTools: undefined, denyTools: ["query_*"] });
    });

    it("a capability folder missing from groundtruth/ is an error", async () => {
      writeFileSync(path.join(dir, "benchmark.yaml"), HEAD + ONE_CAP + "  - id: other\n    label: Other\n    directory: capability_9_other\n");
      const err = await loadBenchmark(dir).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(BenchmarkError);
      expect((err as BenchmarkError).problems).toEqual(['groundtruth/capability_9_other: folder missing for capability "other"']);
    });
  });
});

function gt(over: Partial<GroundTruthDialogue> = {}): GroundTruthDialogue {
  return { uuid: "u", domain: "d", instructions: "", turns: [{ turnId: 0, query: "q", answer: "a", calls: [] }], ...over };
}

const call = (name: string, args: Record<string, unknown> = {}): ToolCall => ({ name, arguments: args });

describe("resolvePolicy", () => {
  const POLICY_TEXT = "Only use retrievers for Travel & Hospitality, which is/are about hotels.";
  const table = policyTableIndex([
    { text: `  Only use retrievers   for Travel & Hospitality,\n which is/are about hotels. `, allowTools: ["get_*", "query_travel*"] },
    { text: "Never call retrievers.", denyTools: ["query_*", "retriever_*"] },
  ]);

  it("normalises whitespace", () => {
    expect(normalisePolicyText("  a \n\t b  c ")).toBe("a b c");
  });

  it("a structured policy wins over the table", () => {
    const r = resolvePolicy(gt({ instructions: POLICY_TEXT, policy: { denyTools: ["query_regatta"] } }), table);
    expect(r).toEqual({ kind: "rule", source: "structured", rule: { denyTools: ["query_regatta"] } });
  });

  it("table text is matched with whitespace normalisation", () => {
    const r = resolvePolicy(gt({ instructions: `\n${POLICY_TEXT.replace(/ /g, "   ")}\t` }), table);
    expect(r).toEqual({ kind: "rule", source: "table", rule: { allowTools: ["get_*", "query_travel*"], denyTools: undefined } });
  });

  it("an empty structured policy falls back to the table", () => {
    const r = resolvePolicy(gt({ instructions: "Never call retrievers.", policy: {} }), table);
    expect(r).toMatchObject({ kind: "rule", source: "table", rule: { denyTools: ["query_*", "retriever_*"] } });
  });

  it("unmapped text is unchecked, never a pass", () => {
    const r = resolvePolicy(gt({ instructions: "  Use only  the blue tools. " }), table);
    expect(r).toEqual({ kind: "unchecked", text: "Use only the blue tools." });
  });

  it("text differing beyond whitespace (case) does not match", () => {
    expect(resolvePolicy(gt({ instructions: "never call retrievers." }), table).kind).toBe("unchecked");
  });

  it("no instructions and no policy → none", () => {
    expect(resolvePolicy(gt({ instructions: "   " }), table)).toEqual({ kind: "none" });
  });

  it("findViolations applies allow and deny globs", () => {
    const calls = [call("get_x"), call("query_regatta"), call("query_travel_docs")];
    expect(findViolations({ denyTools: ["query_regatta"] }, calls).map((v) => [v.call, v.index])).toEqual([["query_regatta", 1]]);
    expect(findViolations({ allowTools: ["get_*", "query_travel*"] }, calls).map((v) => [v.call, v.index])).toEqual([["query_regatta", 1]]);
    expect(findViolations({ allowTools: ["get_*"] }, calls).map((v) => v.index)).toEqual([1, 2]);
  });
});

describe("itemWeight", () => {
  const RETRIEVERS = ["query_*", "retriever_*"];
  const multiturn: CapabilitySpec = benchmarkSpecSchema.parse(vakraDefaults).capabilities[3]!;
  const chaining: CapabilitySpec = benchmarkSpecSchema.parse(vakraDefaults).capabilities[0]!;
  const lastTurn = (calls: ToolCall[], earlier: ToolCall[] = []) =>
    gt({
      turns: [
        { turnId: 0, query: "q0", answer: "a", calls: earlier },
        { turnId: 1, query: "q1", answer: "b", calls },
      ],
    });

  it("API + retriever in the last turn is multi-source and gets the capability's weight", () => {
    const d = lastTurn([call("get_crew"), call("query_regatta", { query: "crew times" })]);
    expect(itemWeight(multiturn, d, RETRIEVERS)).toEqual({ weight: 2, sources: "multi_source" });
    expect(itemWeight(chaining, d, RETRIEVERS)).toEqual({ weight: 1, sources: "multi_source" });
  });

  it("a retriever_* tool counts as a retriever too", () => {
    expect(itemWeight(multiturn, lastTurn([call("retriever_docs", { question: "x" }), call("get_crew")]), RETRIEVERS)).toEqual({ weight: 2, sources: "multi_source" });
  });

  it('a {"query": "NONE"} retrieval is not a source', () => {
    const d = lastTurn([call("get_crew"), call("query_regatta", { query: "NONE" })]);
    expect(itemWeight(multiturn, d, RETRIEVERS)).toEqual({ weight: 1, sources: "api_only" });
    expect(classifySources([call("query_regatta", { query: " none " })], RETRIEVERS)).toBe("none");
  });

  it("only the last turn counts", () => {
    const d = lastTurn([call("get_crew_average_time")], [call("get_top_crew"), call("query_regatta", { query: "top crew" })]);
    expect(itemWeight(multiturn, d, RETRIEVERS)).toEqual({ weight: 1, sources: "api_only" });
  });

  it("retriever only, API only and no calls", () => {
    expect(classifySources([call("query_a", { query: "x" })], RETRIEVERS)).toBe("rag_only");
    expect(classifySources([call("get_a")], RETRIEVERS)).toBe("api_only");
    expect(classifySources([], RETRIEVERS)).toBe("none");
  });

  it("the regatta fixture item is single-source (weight 1)", async () => {
    const b = await loadBenchmark(FIXTURES);
    const cap = dialogueCapability(b.capabilities.find((c) => c.spec.id === "multiturn")!);
    const item = cap.byUuid.get("c3a1e5f7-9b2d-4e6f-a1c3-e5f7a9b1d3f5")!;
    expect(itemWeight(cap.spec, item, b.spec.retrieverTools)).toEqual({ weight: 1, sources: "api_only" });
    expect(resolvePolicy(item, b.policyTable)).toEqual({ kind: "rule", source: "structured", rule: { denyTools: ["query_regatta"] } });
    // Without its structured policy, the text alone is unchecked (no table in VAKRA defaults).
    const { policy: _unused, ...textOnly } = item;
    expect(resolvePolicy(textOnly, b.policyTable)).toEqual({ kind: "unchecked", text: item.instructions });
  });
});
