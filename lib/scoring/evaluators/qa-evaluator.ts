/**
 * QA: a judge compares the agent's final answer with the reference answer (factual
 * correctness, completeness, semantic equivalence). Reasoning marked as such
 * (`<agent-think>`) is dropped from the answer first. No answer, or no reference, is an error.
 */
import { stripAgentThinking } from "../../formats/eval-dataset";
import { gradeSafely, type Grader } from "../judges/grader";
import type { Evaluator } from "./evaluator";
import { checkTemplate, DEFAULT_QA_TEMPLATE, scoreMessages, TEMPLATE_SPECS } from "./prompts";

export interface QaEvaluatorOptions {
  name: string;
  methodId?: string;
  judge: Grader;
  /** User-message template with {question}, {answer}, {reference}; ours by default. */
  template?: string;
}

export function createQaEvaluator(opts: QaEvaluatorOptions): Evaluator {
  const template = opts.template ?? DEFAULT_QA_TEMPLATE;
  const problems = checkTemplate(template, TEMPLATE_SPECS.qa);
  if (problems.length) throw new Error(`${opts.name}: QA prompt template: ${problems.join("; ")}`);
  return {
    name: opts.name,
    kind: "qa",
    methodId: opts.methodId ?? "qa",
    judgeId: opts.judge.id,
    async score(item) {
      if (!item.output) return { status: "error", error: "no agent output for this item", reason: "no agent output for this item" };
      if (item.output.answer === null) return { status: "error", error: "the agent's output has no generated answer", reason: "the agent's output has no generated answer" };
      if (item.groundTruth === null) return { status: "error", error: "the item has no ground_truth to compare the answer with", reason: "the item has no reference answer" };
      const answer = stripAgentThinking(item.output.answer);
      const vars = { question: item.query, answer, reference: item.groundTruth };
      const g = await gradeSafely(opts.judge, { kind: "qa", messages: scoreMessages(template, vars), facts: vars });
      if (g.outcome === "unjudged") return { status: "error", error: g.detail ?? g.reason, reason: g.reason, judge: opts.judge.id };
      return {
        status: "scored",
        score: g.score!,
        reasoning: g.detail ?? g.reason,
        reason: g.reason,
        judge: opts.judge.id,
        details: { question: item.query, generated_answer: answer, ground_truth: item.groundTruth, prompt_hash: g.promptHash, cache_hit: g.cacheHit },
      };
    },
  };
}
