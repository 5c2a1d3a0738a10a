/**
 * NAT's semantics where Agentboard used to differ, each with the upstream value: the judge's
 * reply read as NAT reads it, `$ref` in reference calls, the config translated from NAT's
 * shape (unknown keys named, NAT-only keys ignored), and the seed's metrics example.
 */
import { describe, expect, it } from "vitest";
import { parseEvalConfig } from "@/lib/formats/eval-config";
import { parseMetricsYaml } from "@/lib/formats/eval-metrics";
import { parseNatFloat, parseNatScore, parseScoreReply } from "@/lib/judges/parse-score";
import { resolveRefs } from "@/lib/evaluators/trajectory-evaluator";
import { thinkingTag } from "@/lib/judges/thinking";

describe("judge replies", () => {
  it("reads a lone decimal on the last line, as NAT's prompts ask for it", () => {
    expect(parseScoreReply("The answer names the right truck but the wrong dock.\n0.8")).toEqual({ score: 0.8, reasoning: "The answer names the right truck but the wrong dock." });
    expect(parseScoreReply("<think>compare</think>\n**0.5**")).toMatchObject({ score: 0.5, reasoning: "compare" });
  });

  it("reads the first number under compat nat, and the whole reply as a float for report fields", () => {
    expect(parseNatScore("<think>step 2 was fine</think>Score: 0.75 overall")).toEqual({ score: 0.75, reasoning: "step 2 was fine" });
    // NAT's known trap: a step number before the score is read as the score, and out of range it is refused.
    expect(() => parseNatScore("Step 2 was right.\n0.8")).toThrow(/between 0.0 and 1.0/);
    expect(parseNatFloat(" 0.7 ")).toMatchObject({ score: 0.7 });
    expect(() => parseNatFloat("0.7 because")).toThrow(/could not convert/);
  });

  it("switches thinking as NVIDIA's models expect", () => {
    expect(thinkingTag("nvidia/llama-3.3-nemotron-super-49b-v1.5", true)).toBe("/think");
    expect(thinkingTag("nvidia/llama-3.1-nemotron-70b-instruct-v1", false)).toBe("detailed thinking off");
    expect(thinkingTag("nvidia/nvidia-nemotron-3-nano", true)).toBeNull();
    expect(thinkingTag("gpt-4o", true)).toBeNull();
  });
});

describe("$ref in trajectory_ground_truth", () => {
  const expected = [{ step: 2, name: "clip", params: { id: { $ref: { tool: "list", path: ["items", 1, "id"] } }, fixed: "x" } }];
  it("resolves against the agent's own tool output, parsed from JSON or a Python literal", () => {
    expect(resolveRefs(expected, { list: ["{'items': [{'id': 'a'}, {'id': 'b'}]}"] }, {})[0]!.params).toEqual({ id: "b", fixed: "x" });
    expect(resolveRefs(expected, { list: ['{"items": [{"id": "a"}, {"id": "c"}]}'] }, {})[0]!.params.id).toBe("c");
  });

  it("reads an earlier turn's output with turn, and leaves what cannot be resolved as written", () => {
    const byTurn = [{ step: 1, name: "clip", params: { id: { $ref: { turn: "turn_1", tool: "list", index: 1, path: [0] } } } }];
    expect(resolveRefs(byTurn, {}, { turn_1: { list: [[9], [7]] } })[0]!.params.id).toBe(7);
    expect(resolveRefs(expected, { list: ["{'items': []}"] }, {})[0]!.params.id).toEqual({ $ref: { tool: "list", path: ["items", 1, "id"] } });
    expect(resolveRefs(expected, {}, {})[0]!.params.id).toEqual({ $ref: { tool: "list", path: ["items", 1, "id"] } });
  });
});

describe("NAT's config shape", () => {
  const base = `llms:\n  judge:\n    _type: nim\n    model_name: m\neval:\n  general:\n    output_dir: out\n    dataset: {_type: json, file_path: d.json}\n  evaluators:\n    qa: {_type: customized_qa_evaluator, llm_name: judge}\n`;

  it("translates into one config with NAT's defaults", () => {
    const r = parseEvalConfig(base, "c.yml");
    if (!r.ok) throw new Error(r.errors.join("\n"));
    expect(r.shape).toBe("nat");
    expect(r.config).toMatchObject({ dataset: "d.json", outputDir: "out", structure: { questionKey: "question", answerKey: "answer" }, evaluators: { qa: { type: "qa", judge: { kind: "openai", baseUrl: "https://integrate.api.nvidia.com/v1", model: "m" } } } });
  });

  it("names unknown keys and accepts NAT's offline-meaningless ones as ignored", () => {
    const r = parseEvalConfig(base.replace("output_dir: out", "output_dir: out\n    profiler: {}\n    bogus: 1").replace("model_name: m", "model_name: m\n    api_key: x\n    colour: red"), "c.yml");
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.errors).toEqual(["c.yml: eval.general.bogus: unknown key; expected output_dir, max_concurrency, dataset or output", "c.yml: llms.judge.colour: unknown key; expected _type, model_name, base_url, max_tokens, temperature"]);
    const ok = parseEvalConfig(base.replace("output_dir: out", "output_dir: out\n    profiler: {}"), "c.yml");
    expect(ok.ok && ok.ignored).toEqual(["eval.general.profiler"]);
    const t = parseEvalConfig(base.replace("_type: customized_qa_evaluator", "_type: trajectory"), "c.yml");
    expect(t.ok ? [] : t.errors).toEqual(['c.yml: eval.evaluators.qa._type: "trajectory" is not supported; expected one of customized_qa_evaluator, customized_trajectory_evaluator, report_evaluator']);
    const llm = parseEvalConfig(base.replace("llm_name: judge", "llm_name: nope"), "c.yml");
    expect(llm.ok ? [] : llm.errors).toEqual(["c.yml: eval.evaluators.qa.llm_name: names no entry of llms (judge)"]);
  });

  it("accepts the seed's metrics example, a section judged whole with discovery", () => {
    const r = parseMetricsYaml("Vehicles Involved:\n  method: llm_judge\n  allow_dynamic_field_discovery: true\n", "m.yaml");
    expect(r.ok).toBe(true);
  });
});
