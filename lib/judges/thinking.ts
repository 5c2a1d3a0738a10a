/**
 * NAT's `llm_judge_reasoning`: the request says whether the judge should think, and the
 * grader that knows its model turns that into the model's own switch (a system tag).
 */
import type { Grader, GradeRequest } from "./grader";

/** The grader, with every graded request marked thinking on or off. */
export function withThinking(judge: Grader, thinking: boolean): Grader {
  return {
    id: judge.id,
    readsPrompts: judge.readsPrompts,
    ...(judge.model !== undefined ? { model: judge.model } : {}),
    grade: (req: GradeRequest) => judge.grade(req.kind === "correctness" || req.kind === "groundedness" ? req : { ...req, thinking }),
  };
}

/**
 * The system tag NVIDIA's reasoning models read to switch thinking, or null for models that
 * take none: Nemotron (`nvidia/nvidia-…`, except Nemotron 3, which needs none) and Llama
 * Nemotron (`nvidia/llama-…`; v1.0 and v1.1 use "detailed thinking on|off").
 */
export function thinkingTag(model: string, thinking: boolean): string | null {
  const m = model.toLowerCase().replace(/[_.]/g, "-");
  if (m.startsWith("nvidia/nvidia")) return m.includes("nemotron-3") ? null : thinking ? "/think" : "/no_think";
  if (m.startsWith("nvidia/llama")) {
    if (m.includes("v1-0") || m.includes("v1-1") || m.endsWith("v1")) return `detailed thinking ${thinking ? "on" : "off"}`;
    return thinking ? "/think" : "/no_think";
  }
  return null;
}
