import { describe, expect, it } from "vitest";
import { DiagnosticSink } from "@/lib/formats/diagnostic";
import { parsePythonLiteral, parseStructuredText } from "@/lib/formats/eval-python-literal";
import { readTrajectory, type TrajectoryEvent } from "@/lib/formats/eval-trajectory";
import { callsFromEvents } from "@/lib/evaluators/trajectory-calls";

function events(raw: unknown[]): TrajectoryEvent[] {
  const sink = new DiagnosticSink("t.json");
  const out = readTrajectory(raw, sink, "$.trajectory");
  expect(sink.items).toEqual([]);
  return out!;
}

const nat = (type: string, name: string, uuid: string, extra: { parent?: string; ts?: number; output?: unknown; input?: unknown } = {}) => ({
  parent_id: extra.parent ?? "root",
  payload: { event_type: type, event_timestamp: extra.ts ?? 0, name, UUID: uuid, data: { input: extra.input, output: extra.output } },
});

describe("python literals", () => {
  it("reads NAT's tool-call text", () => {
    expect(parsePythonLiteral("[{'name': 'x', 'args': {'n': 3, 'ok': True, 'none': None, 't': (1, 2.5)}}]")).toEqual([{ name: "x", args: { n: 3, ok: true, none: null, t: [1, 2.5] } }]);
    expect(parsePythonLiteral(`{"it's": 'a "q"', 'e': '\\n\\x41'}`)).toEqual({ "it's": 'a "q"', e: "\nA" });
  });

  it("refuses anything that is not one complete literal", () => {
    expect(parsePythonLiteral("__import__('os')")).toBeUndefined();
    expect(parsePythonLiteral("[1, 2")).toBeUndefined();
    expect(parsePythonLiteral("{'a': 1} trailing")).toBeUndefined();
    expect(parseStructuredText("not json")).toBe("not json");
    expect(parseStructuredText('{"a": 1}')).toEqual({ a: 1 });
  });
});

describe("tool calls from a raw trajectory", () => {
  const trajectory = [
    nat("LLM_END", "planner", "l1", { output: "Thinking.\n\nTool calls: [{'name': 'search', 'args': {'q': 'truck'}}]" }),
    nat("TOOL_END", "search", "t1", { input: "{'q': 'truck'}", output: "2 clips" }),
    nat("LLM_END", "planner", "l2", { output: "\n\nTool calls: [{'name': 'summarise', 'args': {'id': 'a'}}, {'name': 'summarise', 'args': {'id': 'b'}}]" }),
    nat("TOOL_END", "caption", "t4", { parent: "t2", input: { id: "a" } }),
    nat("TOOL_END", "summarise", "t2", { input: { id: "a" } }),
    nat("TOOL_END", "summarise", "t3", { input: { id: "b" } }),
    nat("LLM_END", "planner", "l3", { output: "Two trucks." }),
  ];

  it("numbers steps by the LLM turns that chose tools and drops tools it did not choose", () => {
    const r = callsFromEvents(events(trajectory), { agentSelectedOnly: true });
    expect(r.calls.map((c) => [c.step, c.name, c.params])).toEqual([
      [1, "search", { q: "truck" }],
      [2, "summarise", { id: "a" }],
      [2, "summarise", { id: "b" }],
    ]);
    expect(r.calls[0]!.output).toBe("2 clips");
    expect(r.droppedToolEnds).toBe(1);
    expect(r.unansweredSelections).toBe(0);
  });

  it("keeps nested tools and lists the text-only LLM step as a call without the filter, as VSS does", () => {
    const r = callsFromEvents(events(trajectory), { agentSelectedOnly: false });
    expect(r.calls.map((c) => `${c.step}:${c.name}`)).toEqual(["1:search", "2:caption", "2:summarise", "2:summarise", "2:planner"]);
    // The pairs NAT records: an LLM step has an empty log, a tool the last LLM output.
    expect(r.actions[0]).toEqual([{ tool: "planner", tool_input: "", log: "" }, "Thinking.\n\nTool calls: [{'name': 'search', 'args': {'q': 'truck'}}]"]);
    expect(r.actions[1]![0]).toEqual({ tool: "search", tool_input: "{'q': 'truck'}", log: "Thinking.\n\nTool calls: [{'name': 'search', 'args': {'q': 'truck'}}]" });
  });

  it("matches by tool-call id where the trajectory records one", () => {
    const raw = [
      { event_type: "LLM_END", name: "llm", tool_calls: [{ id: "c1", function: { name: "get", arguments: '{"k": 1}' } }, { id: "c2", function: { name: "get", arguments: '{"k": 2}' } }] },
      { event_type: "TOOL_END", name: "get", tool_call_id: "c2", input: { k: 2 } },
      { event_type: "TOOL_END", name: "get", tool_call_id: "c1", input: { k: 1 } },
      { event_type: "TOOL_END", name: "get", tool_call_id: "c9", input: { k: 9 } },
    ];
    const r = callsFromEvents(events(raw), { agentSelectedOnly: true });
    expect(r.calls.map((c) => c.params)).toEqual([{ k: 2 }, { k: 1 }]);
    expect(r.droppedToolEnds).toBe(1);
  });

  it("keeps every tool, with a note, when the trajectory has no LLM step; an input no literal fits stays text", () => {
    const r = callsFromEvents(events([{ event_type: "TOOL_END", name: "a", input: "plain text" }]), { agentSelectedOnly: true });
    expect(r.calls).toEqual([{ step: 1, name: "a", params: {}, rawParams: "plain text" }]);
    expect(r.notes[0]).toMatch(/no LLM_END events/);
  });

  it("takes parameters from the recorded tool input, not the LLM's chosen arguments", () => {
    const raw = [
      nat("LLM_END", "planner", "l1", { output: "\n\nTool calls: [{'name': 'clip', 'args': {'sensor_id': 'cam-1'}}]" }),
      nat("TOOL_END", "clip", "t1", { input: "{'sensor_id': 'cam-1', 'start': 0}" }),
    ];
    expect(callsFromEvents(events(raw), { agentSelectedOnly: true }).calls.map((c) => c.params)).toEqual([{ sensor_id: "cam-1", start: 0 }]);
  });

  it("counts choices that no tool answered", () => {
    const r = callsFromEvents(events([nat("LLM_END", "p", "l", { output: "Tool calls: [{'name': 'x', 'args': {}}]" })]), { agentSelectedOnly: true });
    expect(r.calls).toEqual([]);
    expect(r.unansweredSelections).toBe(1);
  });

  it("reports unreadable events at their JSON path", () => {
    const sink = new DiagnosticSink("out.json");
    expect(readTrajectory([{ payload: { name: "x" } }, { event_type: "TOOL_END", event_timestamp: "soon" }, 3], sink, "$.a.trajectory")).toBeUndefined();
    expect(sink.items.map((d) => `${d.path}: ${d.message}`)).toEqual([
      '$.a.trajectory[0].payload.event_type: an event needs an "event_type" such as "TOOL_END", found nothing',
      "$.a.trajectory[1].event_timestamp: expected a timestamp in seconds (or an ISO date), found a string",
      "$.a.trajectory[2]: expected an event object, found a number",
    ]);
  });
});
