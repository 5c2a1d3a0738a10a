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
      if (item.groundTruth === null || item.groundTruth === "") {
        return { status: "error", error: "the item has no ground_truth to compare the answer with", reason: "the item has no reference answer", nat: { score: 0, reasoning: "Error: marked for QA evaluation but no ground_truth provided" } };
      }
      const answer = stripAgentThinking(item.output.answer);
      const vars = { question: item.query, answer, reference: item.groundTruth };
      const g = await gradeSafely(judge, { kind: "qa", style, messages: scoreMessages(template, vars, style), facts: vars });
      const details = { question: item.query, generated_answer: answer, ground_truth: item.groundTruth };
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
