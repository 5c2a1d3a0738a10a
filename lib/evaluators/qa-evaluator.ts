/**
 * QA: a judge compares the agent's final answer with the reference answer (factual
 * correctness, completeness, semantic equivalence). Reasoning marked as such
 * (`<agent-think>`) is dropped from the answer first. No answer, or no reference, is an error.
 */
import { stripAgentThinking } from "../formats/eval-dataset";
import { gradeSafely, type Grader } from "../judges/grader";
import type { Evaluator } from "./evaluator";
import { checkTemplate, DEFAULT_QA_TEMPLATE, scoreMessages, TEMPLATE_SPECS, type JudgeStyle } from "./prompts";
import { withThinking } from "../judges/thinking";
import { pythonStr } from "../formats/python-str";

export interface QaEvaluatorOptions {
  name: string;
  methodId?: string;
  judge: Grader;
  /** User-message template with {question}, {answer}, {reference}; ours by default. */
  template?: string;
  style?: JudgeStyle;
  /** NAT's `llm_judge_reasoning`: ask reasoning models to think. */
  thinking?: boolean;
}

export function createQaEvaluator(opts: QaEvaluatorOptions): Evaluator {
  const template = opts.template ?? DEFAULT_QA_TEMPLATE;
  const problems = checkTemplate(template, TEMPLATE_SPECS.qa);
  if (problems.length) throw new Error(`${opts.name}: QA prompt template: ${problems.join("; ")}`);
  const style = opts.style ?? "agentboard";
  const judge = opts.thinking === undefined ? opts.judge : withThinking(opts.judge, opts.thinking);
  return {
    name: opts.name,
    kind: "qa",
    methodId: opts.methodId ?? "qa",
    judgeId: opts.judge.id,
    async score(item) {
      if (!item.output) return { status: "error", error: "no agent output for this item", reason: "no agent output for this item" };
      if (item.output.answer === null) return { status: "error", error: "the agent's output has no generated answer", reason: "the agent's output has no generated answer" };
      const raw = style === "nat" && "groundTruthRaw" in item ? { value: item.groundTruthRaw } : null;
      // NAT takes a ground truth Python reads as false (0, false, [], {}) as none; Agentboard asks the judge about it.
      if (item.groundTruth === null || item.groundTruth === "" || (raw && !pythonTruthy(raw.value))) {
        const error = raw ? "the item's ground_truth is a value Python reads as false (0, false, an empty list or object), which NAT takes as no ground_truth" : "the item has no ground_truth to compare the answer with";
        return { status: "error", error, reason: "the item has no reference answer", nat: { score: 0, reasoning: "Error: marked for QA evaluation but no ground_truth provided" } };
      }
      const answer = stripAgentThinking(item.output.answer);
      // NAT formats the value as Python's str() does (True, 2.5, {'a': 1}).
      const reference = raw ? pythonStr(raw.value) : item.groundTruth;
      const vars = { question: item.query, answer, reference };
      const g = await gradeSafely(judge, { kind: "qa", style, messages: scoreMessages(template, vars, style), facts: vars });
      const details = { question: item.query, generated_answer: answer, ground_truth: raw ? raw.value : reference };
      if (g.outcome === "unjudged") return { status: "error", error: g.detail ?? g.reason, reason: g.reason, judge: opts.judge.id, details: { reasoning: "", ...details } };
      return {
        status: "scored",
        score: g.score!,
        reasoning: g.detail ?? g.reason,
        reason: g.reason,
        judge: opts.judge.id,
        // NAT's reasoning object, field for field, then the prompt's hash.
        details: { reasoning: g.detail ?? "", ...details, prompt_hash: g.promptHash, cache_hit: g.cacheHit },
      };
    },
  };
}

/** Python's `bool(x)` for a JSON value: 0, false, "", [], {} and null are false. */
function pythonTruthy(value: unknown): boolean {
  if (value === null || value === undefined || value === false || value === "") return false;
  if (typeof value === "number") return value !== 0;
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === "object") return Object.keys(value).length > 0;
  return true;
}
