import { describe, expect, it } from "vitest";
import { parseEvalConfig } from "@/lib/formats/eval-config";
import { buildEvaluators } from "@/lib/evaluators/from-config";
import { createRulesGrader } from "@/lib/judges/rules-grader";

describe("eval.yaml", () => {
  it("fills in defaults", () => {
    const r = parseEvalConfig("dataset: d.json\nevaluators:\n  qa: {type: qa}\n  t: {type: trajectory, judge: rules}\n");
    expect(r.ok && r.config).toEqual({
      dataset: "d.json",
      outputDir: "eval-output",
      concurrency: 8,
      structure: { questionKey: "query", answerKey: "ground_truth", generatedAnswerKey: "generated_answer", trajectoryKey: "intermediate_steps", idKey: "id" },
      evaluators: {
        qa: { type: "qa", judge: { kind: "rules" } },
        t: { type: "trajectory", judge: { kind: "rules" }, agentSelectedToolsOnly: true, prompts: {} },
      },
    });
  });

  it("names every bad key", () => {
    const r = parseEvalConfig(
      "dataset: 3\nconcurrency: 0\nbogus: 1\nevaluators:\n  a: {type: rag}\n  b: {type: qa, judge: {kind: openai, model: m}}\n  c: {type: report}\n  d: {type: qa, judge: {kind: openai, baseUrl: 'http://x', model: m, apiKey: 'sk-1'}}\n",
      "eval.yaml",
    );
    expect(r.ok).toBe(false);
    if (!r.ok)
      expect(r.errors).toEqual([
        "eval.yaml: dataset: expected a file path, found a number",
        "eval.yaml: concurrency: Too small: expected number to be >0",
        'eval.yaml: evaluators.a.type: expected "type" to be one of qa, trajectory, report (or NAT\'s "_type")',
        "eval.yaml: evaluators.b.judge.baseUrl: expected an http(s) URL such as https://api.openai.com/v1",
        "eval.yaml: evaluators.c.metrics: expected a file path",
        'eval.yaml: evaluators.d.judge: Unrecognized key: "apiKey"',
        'eval.yaml: (top level): Unrecognized key: "bogus"',
      ]);
    expect(parseEvalConfig("evaluators: {}\ndataset: d.json").ok).toBe(false);
    expect(parseEvalConfig("a: [").ok).toBe(false);
  });

  it("lets an unknown VLM field pass with a warning in compat: nat, as NAT does", async () => {
    const parsed = parseEvalConfig(["dataset: d.json", "compat: nat", "evaluators:", "  r: {type: report, metrics: m.yaml, vlmFields: [A, Nope]}"].join("\n"));
    if (!parsed.ok) throw new Error(parsed.errors.join("\n"));
    const r = await buildEvaluators(parsed.config, "/cfg/eval.yaml", { readText: async () => "report:\n  fields:\n    A: {method: f1}\n", makeJudge: () => createRulesGrader() });
    expect(r).toMatchObject({ ok: true, warnings: ['evaluators.r.vlmFields: "Nope" names no field of the metrics tree; it counts only if the judge discovers such a field (NAT\'s rule)'] });
  });

  it("collects every evaluator problem: unreadable files, bad metrics, bad prompts", async () => {
    const parsed = parseEvalConfig(
      [
        "dataset: d.json",
        "evaluators:",
        "  qa: {type: qa, prompt: 'Judge {answer} only'}",
        "  t: {type: trajectory, toolSchemas: tools.json, prompts: {withReference: {file: missing.txt}}}",
        "  r: {type: report, metrics: m.yaml, vlmFields: [Nope]}",
      ].join("\n"),
    );
    if (!parsed.ok) throw new Error(parsed.errors.join("\n"));
    const files: Record<string, string> = { "/cfg/tools.json": "[{}]", "/cfg/m.yaml": "report:\n  fields:\n    A: {method: f1}\n" };
    const r = await buildEvaluators(parsed.config, "/cfg/eval.yaml", {
      readText: async (f) => {
        if (f in files) return files[f]!;
        throw Object.assign(new Error("nope"), { code: "ENOENT" });
      },
      makeJudge: () => createRulesGrader(),
    });
    expect(r).toEqual({
      ok: false,
      errors: [
        "evaluators.qa: QA prompt template: the template never uses {reference}",
        'evaluators.t.toolSchemas: /cfg/tools.json $[0]: a tool needs a non-empty "name"',
        'evaluators.r: vlmFields: "Nope" name no field of the metrics tree (fields: A)',
      ],
    });
  });
});
