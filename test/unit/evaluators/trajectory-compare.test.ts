import { describe, expect, it } from "vitest";
import type { ToolCallStep } from "@/lib/formats/eval-tool-calls";
import { compareToolCalls, sequentialSteps, valuesEqual } from "@/lib/evaluators/trajectory-compare";

const call = (step: number, name: string, params: Record<string, unknown> = {}): ToolCallStep => ({ step, name, params });

describe("deterministic trajectory comparison", () => {
  const reference = [call(1, "search_clips", { camera: "dock-4", object: "truck" }), call(2, "summarise_clip", { clip_id: "a" }), call(2, "summarise_clip", { clip_id: "b" })];

  it("scores an identical trajectory 1 on every component", () => {
    const c = compareToolCalls(reference, reference);
    expect(c.score).toBe(1);
    expect(c.toolNames).toMatchObject({ precision: 1, recall: 1, f1: 1, matched: 3 });
    expect(c.params).toMatchObject({ f1: 1, matched: 4, actual: 4, expected: 4 });
    expect(c.order).toEqual({ score: 1, concordant: 2, pairs: 2 });
    expect(c.exact).toBe(true);
  });

  it("compares calls of one step as a set: their order inside the step does not matter", () => {
    const swapped = [reference[0]!, call(2, "summarise_clip", { clip_id: "b" }), call(2, "summarise_clip", { clip_id: "a" })];
    const c = compareToolCalls(swapped, reference);
    expect(c.score).toBe(1);
    expect(c.exact).toBe(true);
    // Each reference call is paired with the agent call that has its parameters.
    expect(c.pairs.map((p) => [p.expected?.index, p.actual?.index])).toEqual([[0, 0], [1, 2], [2, 1]]);
  });

  it("penalises a step order that breaks a dependency, and calls run in parallel that should not be", () => {
    const reversed = [call(1, "summarise_clip", { clip_id: "a" }), call(1, "summarise_clip", { clip_id: "b" }), call(2, "search_clips", { camera: "dock-4", object: "truck" })];
    const c = compareToolCalls(reversed, reference);
    expect(c.order).toEqual({ score: 0, concordant: 0, pairs: 2 });
    expect(c.score).toBeCloseTo(2 / 3, 10);
    expect(c.exact).toBe(false);
    const flat = reference.map((r) => ({ ...r, step: 1 }));
    expect(compareToolCalls(flat, reference).order).toEqual({ score: 0, concordant: 0, pairs: 2 });
  });

  it("computes name and parameter precision and recall by hand (the demo's gate-log item)", () => {
    const ref = [call(1, "get_gate_log", { gate: "B", date: "yesterday" }), call(2, "classify_vehicles", { log_id: "log-B" })];
    const agent = [call(1, "classify_vehicles", { log_id: "log-B" }), call(2, "get_gate_log", { gate: "A", date: "yesterday" }), call(3, "search_clips", { object: "vehicle" })];
    const c = compareToolCalls(agent, ref);
    expect(c.toolNames).toMatchObject({ matched: 2, actual: 3, expected: 2, precision: 2 / 3, recall: 1 });
    expect(c.toolNames.f1).toBeCloseTo(0.8, 10);
    // Right: date and log_id (2) of 3 expected and 4 given → P 0.5, R 2/3, F1 4/7.
    expect(c.params).toMatchObject({ matched: 2, actual: 4, expected: 3, precision: 0.5 });
    expect(c.params!.f1).toBeCloseTo(4 / 7, 10);
    expect(c.order).toEqual({ score: 0, concordant: 0, pairs: 1 });
    expect(c.score).toBeCloseTo((0.8 + 4 / 7 + 0) / 3, 10);
    const gate = c.pairs.find((p) => p.name === "get_gate_log")!;
    expect(gate.params).toEqual({ matching: ["date"], mismatched: [{ key: "gate", expected: "B", actual: "A" }], missing: [], extra: [] });
    expect(c.pairs.find((p) => p.expected === null)?.name).toBe("search_clips");
    expect(c.summary).toContain("extra: search_clips");
    expect(c.summary).toContain("wrong values: get_gate_log.gate");
  });

  it("handles empty trajectories: both empty agree, one empty scores 0", () => {
    expect(compareToolCalls([], []).score).toBe(1);
    const none = compareToolCalls([], reference);
    expect(none.score).toBe(0);
    expect(none.toolNames).toMatchObject({ precision: 0, recall: 0, f1: 0 });
    expect(none.summary).toContain("missing: search_clips, summarise_clip, summarise_clip");
    expect(compareToolCalls(reference, []).score).toBe(0);
  });

  it("leaves parameters out when neither side has any, and order out with a single reference step", () => {
    const c = compareToolCalls([call(1, "ping")], [call(1, "ping")]);
    expect(c.params).toBeNull();
    expect(c.order).toBeNull();
    expect(c.score).toBe(1);
    const wrong = compareToolCalls([call(1, "pong")], [call(1, "ping")]);
    expect(wrong.score).toBe(0);
  });

  it("compares values as canonical JSON, scalars as trimmed text", () => {
    expect(valuesEqual(3, "3")).toBe(true);
    expect(valuesEqual({ b: 1, a: [1, 2] }, { a: [1, 2], b: 1 })).toBe(true);
    expect(valuesEqual('{"a": 1}', { a: 1 })).toBe(true);
    expect(valuesEqual("B", "b")).toBe(false);
    expect(valuesEqual([1, 2], [2, 1])).toBe(false);
  });

  it("numbers VAKRA-style call lists one step per call", () => {
    expect(sequentialSteps([{ name: "a", arguments: { x: 1 } }, { name: "b" }])).toEqual([call(1, "a", { x: 1 }), call(2, "b")]);
  });
});
