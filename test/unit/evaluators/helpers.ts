/** Builders shared by the evaluator tests. */
import type { AgentOutput, EvalItem } from "@/lib/formats/eval-dataset";

export function output(over: Partial<AgentOutput> = {}): AgentOutput {
  return { answer: null, toolCalls: null, events: null, timestamps: [], report: null, ...over };
}

export function item(over: Partial<EvalItem> = {}): EvalItem {
  return {
    id: "i1",
    query: "How many forklifts crossed dock 4?",
    groundTruth: "3 forklifts crossed dock 4.",
    methods: ["qa"],
    trajectoryGroundTruth: null,
    conversation: null,
    history: [],
    output: output({ answer: "3 forklifts crossed dock 4." }),
    referenceReport: null,
    path: "$[0]",
    ...over,
  };
}
