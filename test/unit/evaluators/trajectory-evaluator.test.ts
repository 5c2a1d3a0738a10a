import { describe, expect, it } from "vitest";
import type { ToolCallStep } from "@/lib/formats/eval-tool-calls";
import { createRulesGrader } from "@/lib/judges/rules-grader";
import { evaluateItem } from "@/lib/evaluators/evaluator";
import { readToolSchemas } from "@/lib/evaluators/tool-schemas";
import { createTrajectoryEvaluator } from "@/lib/evaluators/trajectory-evaluator";
import { item, output } from "./helpers";
import { scriptedGrader } from "../../helpers/scripted-grader";
import { unfenced } from "../../helpers/data-blocks";

const call = (step: number, name: string, params: Record<string, unknown> = {}, extra: Partial<ToolCallStep> = {}): ToolCallStep => ({ step, name, params, ...extra });
const reference = [call(1, "search_clips", { camera: "dock-4", object: "truck" }), call(2, "summarise_clip", { clip_id: "a" })];

const llmJudge = (score: number) => {
  const { grader, grades: seen } = scriptedGrader({ id: "openai:fake", grade: () => score });
  return { judge: grader, seen };
};

const tools = readToolSchemas([
  { name: "search_clips", description: "find clips", parameters: { properties: { camera: {}, object: {} }, required: ["camera", "object"], additionalProperties: false } },
  { type: "function", function: { name: "count_objects", parameters: { properties: { clip_id: {} }, required: ["clip_id"] } } },
]);

describe("trajectory evaluator", () => {
  it("scores by the deterministic comparison with the rules judge", async () => {
    const ev = createTrajectoryEvaluator({ name: "trajectory", judge: createRulesGrader() });
    const r = await evaluateItem(ev, item({ methods: ["trajectory"], trajectoryGroundTruth: reference, output: output({ toolCalls: [call(1, "search_clips", { camera: "dock-4", object: "truck" })] }) }));
    // Names: P 1, R 1/2 → F1 2/3. Params: 2 right of 3 expected, 2 given → P 1, R 2/3 → F1 0.8. Order: 0 of 1.
    expect(r.status).toBe("scored");
    expect(r.score).toBeCloseTo((2 / 3 + 0.8 + 0) / 3, 10);
    expect(r.judge).toBe("program");
    // The expected calls are the ground truth: named only in the private reasoning.
    expect(r.reasoning).toContain("missing: summarise_clip");
    expect(r.reason).not.toContain("summarise_clip");
    expect(r.details).toMatchObject({ mode: "reference", comparison: { exact: false } });
  });

  it("gives an LLM judge the reference prompt, with the comparison, and takes its score", async () => {
    const { judge, seen } = llmJudge(0.6);
    const ev = createTrajectoryEvaluator({ name: "trajectory", judge });
    const r = await evaluateItem(ev, item({ methods: ["trajectory"], trajectoryGroundTruth: reference, output: output({ answer: "done", toolCalls: [] }) }));
    expect(r).toMatchObject({ status: "scored", score: 0.6, judge: "openai:fake", reason: "graded 0.60 by openai:fake", reasoning: "scripted" });
    const prompt = unfenced(seen[0]!.messages[1]!.content);
    expect(prompt).toContain("Agent tool calls:\n(no tool calls)");
    expect(prompt).toContain('"name": "summarise_clip"');
    expect(prompt).toContain("tools: 0 of 2 reference calls made");
    expect((r.details!.comparison as { score: number }).score).toBe(0);
  });

  it("uses the reference-free prompt with tool schemas and the conversation so far", async () => {
    const { judge, seen } = llmJudge(0.9);
    const ev = createTrajectoryEvaluator({ name: "trajectory", judge, toolSchemas: tools.ok ? tools.tools : null, prompts: { withoutReference: "T={tool_schemas}\nH={conversation_history}\nA={agent_trajectory}" } });
    const r = await evaluateItem(
      ev,
      item({
        methods: ["trajectory"],
        history: [{ turnId: "turn_1", query: "which camera?", answer: "cam-07" }],
        output: output({ answer: "six", toolCalls: [call(1, "search_clips", { camera: "cam-07" }, { output: "6 clips" })] }),
      }),
    );
    expect(r).toMatchObject({ status: "scored", score: 0.9 });
    expect(unfenced(seen[0]!.messages[1]!.content)).toBe(
      'T=Tool 1: search_clips\nDescription: find clips\nParameters: {\n  "properties": {\n    "camera": {},\n    "object": {}\n  },\n  "required": [\n    "camera",\n    "object"\n  ],\n  "additionalProperties": false\n}\n\n' +
        'Tool 2: count_objects\nDescription: \nParameters: {\n  "properties": {\n    "clip_id": {}\n  },\n  "required": [\n    "clip_id"\n  ]\n}\n' +
        "H=[turn_1] User: which camera?\n[turn_1] Assistant: cam-07\n" +
        "A=Action: search_clips\nInput: {'camera': 'cam-07'}\nObservation: 6 clips",
    );
  });

  it("checks calls against the schemas with the rules judge when there is no reference", async () => {
    const ev = createTrajectoryEvaluator({ name: "trajectory", judge: createRulesGrader(), toolSchemas: tools.ok ? tools.tools : null });
    const r = await evaluateItem(ev, item({ methods: ["trajectory"], output: output({ toolCalls: [call(1, "search_clips", { camera: "c", object: "o", color: "red" }), call(2, "count_objects", { clip_id: "x" }), call(3, "teleport")] }) }));
    expect(r).toMatchObject({ status: "scored", score: 1 / 3, judge: "program" });
    expect(r.reasoning).toBe('1 of 3 calls conform to the tool schemas; call 1 (search_clips, step 1): unknown parameter "color"; call 3 (teleport, step 3): no such tool');
    // An agent that calls nothing has nothing wrong in its calls, and still did not do the work.
    const none = await evaluateItem(ev, item({ methods: ["trajectory"], output: output({ toolCalls: [] }) }));
    expect(none).toMatchObject({ status: "scored", score: 0, reasoning: "no tool calls, where this item expects the agent to use its tools" });
  });

  it("makes a trajectory it cannot judge an error, not a 0", async () => {
    const ev = createTrajectoryEvaluator({ name: "trajectory", judge: createRulesGrader() });
    const noRef = await evaluateItem(ev, item({ methods: ["trajectory"], output: output({ toolCalls: [] }) }));
    expect(noRef).toMatchObject({ status: "error", score: null });
    expect(noRef.error).toMatch(/no trajectory_ground_truth, and the rules judge can judge a trajectory without one only against tool schemas/);
    expect(await evaluateItem(ev, item({ methods: ["trajectory"], trajectoryGroundTruth: reference, output: output({ answer: "x" }) }))).toMatchObject({ status: "error", error: "the agent's output has neither tool_calls nor a trajectory" });
    expect(await evaluateItem(ev, item({ methods: ["trajectory"], trajectoryGroundTruth: reference, output: null }))).toMatchObject({ status: "error", error: "no agent output for this item" });
  });

  it("treats an empty reference list as a reference (the agent should call nothing)", async () => {
    const ev = createTrajectoryEvaluator({ name: "trajectory", judge: createRulesGrader() });
    expect((await evaluateItem(ev, item({ methods: ["trajectory"], trajectoryGroundTruth: [], output: output({ toolCalls: [] }) }))).score).toBe(1);
    expect((await evaluateItem(ev, item({ methods: ["trajectory"], trajectoryGroundTruth: [], output: output({ toolCalls: [call(1, "x")] }) }))).score).toBe(0);
  });

  it("reads tool schemas in both shapes and names the broken ones", () => {
    expect(tools.ok && tools.tools.map((t) => t.name)).toEqual(["search_clips", "count_objects"]);
    expect(readToolSchemas({ tools: [{ name: "" }, { name: "a", parameters: "x" }] })).toEqual({ ok: false, errors: ['$[0]: a tool needs a non-empty "name"', "$[1].parameters: expected a JSON Schema object"] });
    expect(readToolSchemas(3).ok).toBe(false);
  });
});
