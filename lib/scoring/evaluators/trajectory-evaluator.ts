/**
 * Trajectory: the agent's tool calls, from structured `tool_calls` or read out of its raw
 * trajectory (optionally only the tools its own LLM chose).
 * - With reference calls: the deterministic comparison runs first and is the score with the
 *   offline judge; an LLM judge gets it in its prompt and gives the score.
 * - Without: an LLM judge grades the trajectory from the tool schemas and the conversation
 *   so far; the offline judge checks each call against the tool schemas, and without
 *   schemas there is nothing to judge by, which is an error.
 */
import { stripAgentThinking, type HistoryTurn } from "../../formats/eval-dataset";
import type { ToolCallStep } from "../../formats/eval-tool-calls";
import { gradeSafely, type Grade, type Grader } from "../judges/grader";
import type { Evaluator } from "./evaluator";
import { checkTemplate, DEFAULT_TRAJECTORY_FREE_TEMPLATE, DEFAULT_TRAJECTORY_REFERENCE_TEMPLATE, scoreMessages, TEMPLATE_SPECS } from "./prompts";
import type { Outcome } from "./result";
import { checkCallsAgainstSchemas, formatToolSchemas, type ToolSchema } from "./tool-schemas";
import { callsFromEvents, type CallExtraction } from "./trajectory-calls";
import { compareToolCalls, type TrajectoryComparison } from "./trajectory-compare";

export interface TrajectoryEvaluatorOptions {
  name: string;
  methodId?: string;
  judge: Grader;
  /** Keep only tools the agent's LLM chose (drops tools called inside tools). Default true. */
  agentSelectedToolsOnly?: boolean;
  toolSchemas?: readonly ToolSchema[] | null;
  prompts?: { withReference?: string; withoutReference?: string };
}

export function createTrajectoryEvaluator(opts: TrajectoryEvaluatorOptions): Evaluator {
  const withRef = opts.prompts?.withReference ?? DEFAULT_TRAJECTORY_REFERENCE_TEMPLATE;
  const withoutRef = opts.prompts?.withoutReference ?? DEFAULT_TRAJECTORY_FREE_TEMPLATE;
  const problems = [
    ...checkTemplate(withRef, TEMPLATE_SPECS.trajectoryWithReference).map((p) => `reference prompt: ${p}`),
    ...checkTemplate(withoutRef, TEMPLATE_SPECS.trajectoryWithoutReference).map((p) => `reference-free prompt: ${p}`),
  ];
  if (problems.length) throw new Error(`${opts.name}: ${problems.join("; ")}`);
  const agentSelectedOnly = opts.agentSelectedToolsOnly ?? true;
  const judge = opts.judge;

  return {
    name: opts.name,
    kind: "trajectory",
    methodId: opts.methodId ?? "trajectory",
    judgeId: judge.id,
    async score(item): Promise<Outcome> {
      if (!item.output) return { status: "error", error: "no agent output for this item", reason: "no agent output for this item" };
      const extraction: CallExtraction | null = item.output.toolCalls
        ? { calls: item.output.toolCalls, droppedToolEnds: 0, unansweredSelections: 0, notes: [] }
        : item.output.events
          ? callsFromEvents(item.output.events, { agentSelectedOnly })
          : null;
      if (!extraction) return { status: "error", error: "the agent's output has neither tool_calls nor a trajectory", reason: "the agent's output has neither tool_calls nor a trajectory" };
      const calls = extraction.calls;
      const answer = stripAgentThinking(item.output.answer ?? "");
      const base = {
        actual_tool_calls: calls,
        expected_tool_calls: item.trajectoryGroundTruth,
        agent_selected_tools_only: item.output.toolCalls ? null : agentSelectedOnly,
        ...(item.output.toolCalls ? {} : { dropped_tool_ends: extraction.droppedToolEnds, unanswered_selections: extraction.unansweredSelections }),
        ...(extraction.notes.length ? { notes: extraction.notes } : {}),
      };

      if (item.trajectoryGroundTruth !== null) {
        const comparison = compareToolCalls(calls, item.trajectoryGroundTruth);
        if (!judge.readsPrompts) {
          return { status: "scored", score: comparison.score, reasoning: comparison.summary, reason: comparisonReason(comparison), judge: "program", details: { mode: "reference", ...base, comparison } };
        }
        const vars = {
          question: item.query,
          reference: JSON.stringify(item.trajectoryGroundTruth.map(stripOutput), null, 2),
          agent_trajectory: calls.length ? JSON.stringify(calls.map(stripOutput), null, 2) : "(no tool calls)",
          answer,
          comparison: comparison.summary,
        };
        const g = await gradeSafely(judge, { kind: "trajectory", messages: scoreMessages(withRef, vars), facts: { question: item.query, answer: vars.agent_trajectory, reference: vars.reference } });
        return graded(g, { mode: "reference", ...base, comparison, prompt_hash: g.promptHash, cache_hit: g.cacheHit });
      }

      if (judge.readsPrompts) {
        const vars = {
          question: item.query,
          agent_trajectory: formatTrajectory(calls),
          answer,
          tool_schemas: formatToolSchemas(opts.toolSchemas ?? []),
          conversation_history: formatHistory(item.history),
        };
        const g = await gradeSafely(judge, { kind: "trajectory", messages: scoreMessages(withoutRef, vars), facts: { question: item.query, answer: vars.agent_trajectory, reference: "" } });
        return graded(g, { mode: "reference_free", ...base, conversation_history: item.history, prompt_hash: g.promptHash, cache_hit: g.cacheHit });
      }
      if (!opts.toolSchemas) {
        const error = "the item has no trajectory_ground_truth, and the rules judge can judge a trajectory without one only against tool schemas: set toolSchemas, or use an LLM judge";
        return { status: "error", error, reason: error };
      }
      const check = checkCallsAgainstSchemas(calls, opts.toolSchemas);
      const reasoning = check.checked === 0 ? "no tool calls, where this item expects the agent to use its tools" : check.problems.length ? `${check.checked - check.problems.length} of ${check.checked} calls conform to the tool schemas; ${check.problems.join("; ")}` : `all ${check.checked} calls conform to the tool schemas`;
      return { status: "scored", score: check.score, reasoning, reason: reasoning, judge: "program", details: { mode: "schema_check", ...base, schema_check: check } };
    },
  };

  function graded(g: Grade, details: Record<string, unknown>): Outcome {
    if (g.outcome === "unjudged") return { status: "error", error: g.detail ?? g.reason, reason: g.reason, judge: judge.id, details };
    return { status: "scored", score: g.score!, reasoning: g.detail ?? g.reason, reason: g.reason, judge: judge.id, details };
  }
}

/** The comparison's figures: public, unlike its summary, which names the expected calls. */
function comparisonReason(c: TrajectoryComparison): string {
  const parts = [`tool names F1 ${c.toolNames.f1.toFixed(2)}`];
  if (c.params) parts.push(`parameters F1 ${c.params.f1.toFixed(2)}`);
  if (c.order) parts.push(`order ${c.order.score.toFixed(2)}`);
  return `tool-call comparison ${c.score.toFixed(2)}: ${parts.join(", ")}${c.exact ? " (exact)" : ""}`;
}

function stripOutput(c: ToolCallStep): Omit<ToolCallStep, "output"> {
  return { step: c.step, name: c.name, params: c.params };
}

/** Action / Input / Observation lines, step by step. */
export function formatTrajectory(calls: readonly ToolCallStep[]): string {
  if (calls.length === 0) return "(no tool calls)";
  return calls
    .map((c) => `Step ${c.step} · Action: ${c.name}\nInput: ${JSON.stringify(c.params)}\nObservation: ${c.output === undefined ? "(not recorded)" : clip(typeof c.output === "string" ? c.output : JSON.stringify(c.output))}`)
    .join("\n\n");
}

export function formatHistory(history: readonly HistoryTurn[]): string {
  if (history.length === 0) return "(no earlier turns)";
  return history.map((t) => `[${t.turnId}] User: ${t.query}\n[${t.turnId}] Assistant: ${t.answer}`).join("\n");
}

function clip(s: string, n = 2000): string {
  return s.length <= n ? s : `${s.slice(0, n)} … (${s.length - n} more characters)`;
}
