import { describe, expect, it } from "vitest";
import { DiagnosticSink } from "@/lib/formats/diagnostic";
import { readTrajectory } from "@/lib/formats/eval-trajectory";
import { latencySummaryDocument } from "@/lib/evaluators/eval-output";
import { percentile, summarizeLatency } from "@/lib/evaluators/latency";
import { item, output } from "./helpers";

describe("latency", () => {
  it("interpolates percentiles between ranks", () => {
    const xs = [2, 2.5, 3, 4, 5, 6, 8, 12.5, 20, 30];
    expect(percentile(xs, 0.5)).toBeCloseTo(5.5, 10);
    expect(percentile(xs, 0.95)).toBeCloseTo(25.5, 10);
    expect(percentile([7], 0.95)).toBe(7);
    expect(percentile([], 0.5)).toBeNull();
  });

  it("measures items from their first to last event, and conversations over all turns", () => {
    const conv = (turnId: string, index: number, ts: number[]) => item({ id: `c_${turnId}`, conversation: { id: "c", turnId, index, turnCount: 2 }, output: output({ timestamps: ts }) });
    const s = summarizeLatency([item({ id: "a", output: output({ timestamps: [10, 14, 11] }) }), item({ id: "b", output: null }), conv("t1", 0, [100, 102]), conv("t2", 1, [110, 113])]);
    expect(s.items.map((i) => [i.id, i.latencySeconds])).toEqual([["a", 4], ["b", null], ["c_t1", 2], ["c_t2", 3]]);
    expect(s.perItem).toEqual({ n: 3, average: 3, p50: 3, p95: expect.closeTo(3.9, 10) });
    expect(s.conversations).toEqual([{ id: "c", turns: 2, latencySeconds: 13, sumOfTurnsSeconds: 5 }]);
  });

  it("pairs START and END by span UUID, so parallel calls are each counted once", () => {
    const sink = new DiagnosticSink("o.json");
    const events = readTrajectory(
      [
        { event_type: "TOOL_START", event_timestamp: 1, name: "a", UUID: "x" },
        { event_type: "TOOL_START", event_timestamp: 2, name: "b", UUID: "y" },
        { event_type: "TOOL_END", event_timestamp: 5, name: "b", UUID: "y" },
        { event_type: "TOOL_END", event_timestamp: 4, name: "a", UUID: "x" },
        { event_type: "LLM_END", event_timestamp: 9, span_event_timestamp: 6, name: "m", UUID: "z" },
        { event_type: "LLM_END", event_timestamp: 9.5, name: "m", UUID: "lonely" },
      ],
      sink,
      "$",
    )!;
    const s = summarizeLatency([item({ output: output({ events }) })]);
    // Tools: a 1→4 (3 s) and b 2→5 (3 s); pairing b's END with the previous START would give 3 + 2.
    expect(s.items[0]).toMatchObject({ latencySeconds: 8.5, toolSeconds: 6, toolCalls: 2, llmSeconds: 3, llmCalls: 1 });
    const doc = latencySummaryDocument(s);
    expect(doc).toMatchObject({ average_latency_seconds: 8.5, p50_latency_seconds: 8.5, p95_latency_seconds: 8.5, n_measured: 1 });
  });
});
