/**
 * Trajectory: the agent's tool calls, from structured `tool_calls` or read out of its raw
 * trajectory (optionally only the tools its own LLM chose).
 * - With reference calls: the deterministic comparison runs first and is the score with the
 *   offline judge; an LLM judge gets it in its prompt and gives the score.
 * - Without: an LLM judge grades the trajectory from the tool schemas and the conversation
 *   so far; the offline judge checks each call against the tool schemas, and without
 *   schemas there is nothing to judge by, which is an error.
 */
import { stripAgentThinking, type HistoryTurn } from "../formats/eval-dataset";
import type { ToolCallStep } from "../formats/eval-tool-calls";
import { gradeSafely, type Grade, type Grader } from "../judges/grader";
import type { Evaluator } from "./evaluator";
import { checkTemplate, DEFAULT_TRAJECTORY_FREE_TEMPLATE, DEFAULT_TRAJECTORY_REFERENCE_TEMPLATE, scoreMessages, TEMPLATE_SPECS, type JudgeStyle } from "./prompts";
import type { Outcome } from "./result";
import { checkCallsAgainstSchemas, formatToolSchemas, type ToolSchema } from "./tool-schemas";
import { callsFromEvents, parseToolResult, type AgentAction, type CallExtraction } from "./trajectory-calls";
import { withThinking } from "../judges/thinking";
import { toolResultsByName } from "../formats/eval-trajectory";
import { pythonJsonDumps, pythonStr } from "../formats/python-str";
import { compareToolCalls, type TrajectoryComparison } from "./trajectory-compare";

export interface TrajectoryEvaluatorOptions {
  name: string;
  methodId?: string;
  judge: Grader;
  /** Keep only tools the agent's LLM chose (drops tools called inside tools). Default true. */
  agentSelectedToolsOnly?: boolean;
  toolSchemas?: readonly ToolSchema[] | null;
  prompts?: { withReference?: string; withoutReference?: string };
  style?: JudgeStyle;
  /** NAT's `llm_judge_reasoning`: ask reasoning models to think. */
  thinking?: boolean;
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
  const style = opts.style ?? "agentboard";
  const judge = opts.thinking === undefined ? opts.judge : withThinking(opts.judge, opts.thinking);

  return {
    name: opts.name,
    kind: "trajectory",
    methodId: opts.methodId ?? "trajectory",
    judgeId: judge.id,
    async score(item): Promise<Outcome> {
      if (!item.output) return { status: "error", error: "no agent output for this item", reason: "no agent output for this item" };
      const extraction: CallExtraction | null = item.output.toolCalls
        ? { calls: item.output.toolCalls, actions: item.output.toolCalls.map((c) => [{ tool: c.name, tool_input: c.rawParams ?? c.params, log: "" }, c.output ?? ""]), toolResults: toolResultsByName([], item.output.toolCalls), droppedToolEnds: 0, unansweredSelections: 0, notes: [] }
        : item.output.events
          ? callsFromEvents(item.output.events, { agentSelectedOnly })
          : null;
      if (!extraction) return { status: "error", error: "the agent's output has neither tool_calls nor a trajectory", reason: "the agent's output has neither tool_calls nor a trajectory" };
      const calls = extraction.calls;
      const answer = stripAgentThinking(item.output.answer ?? "");
      const expected = item.trajectoryGroundTruth;
      const resolved = expected ? resolveRefs(expected, extraction.toolResults, item.priorToolResults ?? {}) : null;
      // What the judge and the output show: the dataset's calls as written (its key order, its extra keys), references resolved.
      const shownReference = resolved ? resolveWrittenRefs(item.trajectoryGroundTruthRaw, extraction.toolResults, item.priorToolResults ?? {}) ?? resolved.map(shownCall) : null;
      // NAT's reasoning object, field for field, then Agentboard's evidence.
      const base = {
        query: item.query,
        actual_tool_calls: calls.map(shownCall),
        expected_tool_calls: item.trajectoryGroundTruthRaw ?? (expected ? expected.map(shownCall) : null),
        ...(shownReference ? { resolved_expected_tool_calls: shownReference } : {}),
        final_answer: answer,
        trajectory: extraction.actions,
        conversation_history: item.history.map((t) => ({ turn_id: t.turnId, query: t.query, answer: t.answer })),
        track_agent_selected_tools_only: agentSelectedOnly,
        ...(item.output.toolCalls ? { tool_calls_given: true } : { dropped_tool_ends: extraction.droppedToolEnds, unanswered_selections: extraction.unansweredSelections }),
        ...(extraction.notes.length ? { notes: extraction.notes } : {}),
      };

      if (style === "nat" && judge.readsPrompts) {
        // NAT has no prompt of its own for either mode: an item whose mode has no configured template is an error, scored 0.0.
        const missing = resolved !== null ? (opts.prompts?.withReference === undefined ? "custom_prompt_template_with_reference" : null) : opts.prompts?.withoutReference === undefined ? "custom_prompt_template_without_reference" : null;
        if (missing) {
          const error = `the item ${resolved !== null ? "has" : "has no"} trajectory_ground_truth, and the evaluator has no ${missing}: NAT's trajectory evaluator has no default prompt`;
          return { status: "error", error, reason: error, judge: null, nat: { score: 0, reasoning: { error: `Evaluator error: ${error}` } } };
        }
      }

      if (resolved !== null) {
        const comparison = compareToolCalls(calls, resolved);
        if (!judge.readsPrompts) {
          return { status: "scored", score: comparison.score, reasoning: comparison.summary, reason: comparisonReason(comparison), judge: "program", details: { reasoning: comparison.summary, ...base, mode: "reference", comparison } };
        }
        const vars = {
          question: item.query,
          reference: pythonJsonDumps(shownReference),
          agent_trajectory: calls.length ? pythonJsonDumps(calls.map(shownCall)) : "(no tool calls)",
          answer,
          comparison: comparison.summary,
        };
        const g = await gradeSafely(judge, { kind: "trajectory", style, messages: scoreMessages(withRef, vars, style), facts: { question: item.query, answer: vars.agent_trajectory, reference: vars.reference } });
        return graded(g, base, { mode: "reference", comparison, prompt_hash: g.promptHash, cache_hit: g.cacheHit });
      }

      if (judge.readsPrompts) {
        const vars = {
          question: item.query,
          agent_trajectory: formatTrajectory(extraction.actions),
          answer,
          tool_schemas: formatToolSchemas(opts.toolSchemas ?? []),
          conversation_history: formatHistory(item.history),
        };
        const g = await gradeSafely(judge, { kind: "trajectory", style, messages: scoreMessages(withoutRef, vars, style), facts: { question: item.query, answer: vars.agent_trajectory, reference: "" } });
        return graded(g, base, { mode: "reference_free", prompt_hash: g.promptHash, cache_hit: g.cacheHit });
      }
      if (!opts.toolSchemas) {
        const error = "the item has no trajectory_ground_truth, and the rules judge can judge a trajectory without one only against tool schemas: set toolSchemas, or use an LLM judge";
        return { status: "error", error, reason: error };
      }
      const check = checkCallsAgainstSchemas(calls, opts.toolSchemas);
      const reasoning = check.checked === 0 ? "no tool calls, where this item expects the agent to use its tools" : check.problems.length ? `${check.checked - check.problems.length} of ${check.checked} calls conform to the tool schemas; ${check.problems.join("; ")}` : `all ${check.checked} calls conform to the tool schemas`;
      return { status: "scored", score: check.score, reasoning, reason: reasoning, judge: "program", details: { reasoning, ...base, mode: "schema_check", schema_check: check } };
    },
  };

  function graded(g: Grade, base: Record<string, unknown>, extra: Record<string, unknown>): Outcome {
    if (g.outcome === "unjudged") return { status: "error", error: g.detail ?? g.reason, reason: g.reason, judge: judge.id, details: { ...base, ...extra } };
    return { status: "scored", score: g.score!, reasoning: g.detail ?? g.reason, reason: g.reason, judge: judge.id, details: { reasoning: g.detail ?? "", ...base, ...extra } };
  }
}

/**
 * Reference calls with every `{"$ref": {tool, path, index?, turn?}}` parameter replaced by
 * the value it points at in the agent's own tool outputs (this turn's, or an earlier turn's);
 * a reference that cannot be resolved stays as written.
 */
export function resolveRefs(expected: readonly ToolCallStep[], toolResults: Record<string, unknown[]>, priorTurns: Record<string, Record<string, unknown[]>>): ToolCallStep[] {
  return expected.map((c) => {
    const params: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(c.params)) params[k] = resolveRef(v, toolResults, priorTurns);
    return { ...c, params };
  });
}

function resolveRef(v: unknown, toolResults: Record<string, unknown[]>, priorTurns: Record<string, Record<string, unknown[]>>): unknown {
  if (typeof v !== "object" || v === null || Array.isArray(v) || !("$ref" in v)) return v;
  const ref = (v as { $ref: unknown }).$ref;
  if (typeof ref !== "object" || ref === null) return v;
  const { tool, path = [], index = 0, turn } = ref as { tool?: unknown; path?: unknown; index?: unknown; turn?: unknown };
  if (typeof tool !== "string" || !tool || !Array.isArray(path) || typeof index !== "number") return v;
  const source = turn ? (priorTurns[String(turn)] ?? {}) : toolResults;
  const list = source[tool] ?? [];
  if (index >= list.length) return v;
  let value = parseToolResult(list[index < 0 ? list.length + index : index]);
  for (const key of path) {
    // Python indexing: lists and strings by (possibly negative) integers, dicts by keys.
    if ((Array.isArray(value) || typeof value === "string") && typeof key === "number" && Number.isInteger(key)) {
      const i = key < 0 ? value.length + key : key;
      if (i < 0 || i >= value.length) return v;
      value = value[i];
    } else if (typeof value === "object" && value !== null && !Array.isArray(value) && typeof key === "string" && Object.hasOwn(value, key)) {
      value = (value as Record<string, unknown>)[key];
    } else return v;
  }
  return value;
}

/**
 * The calls as the dataset wrote them, each `params` value that is a `$ref` replaced as
 * {@link resolveRefs} replaces it; null when the dataset's value is not a list.
 */
export function resolveWrittenRefs(written: unknown, toolResults: Record<string, unknown[]>, priorTurns: Record<string, Record<string, unknown[]>>): unknown[] | null {
  if (!Array.isArray(written)) return null;
  return written.map((c) => {
    if (typeof c !== "object" || c === null || Array.isArray(c)) return c;
    const params = (c as Record<string, unknown>).params;
    if (typeof params !== "object" || params === null || Array.isArray(params)) return c;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(params)) out[k] = resolveRef(v, toolResults, priorTurns);
    return { ...c, params: out };
  });
}

/** The comparison's figures: public, unlike its summary, which names the expected calls. */
function comparisonReason(c: TrajectoryComparison): string {
  const parts = [`tool names F1 ${c.toolNames.f1.toFixed(2)}`];
  if (c.params) parts.push(`parameters F1 ${c.params.f1.toFixed(2)}`);
  if (c.order) parts.push(`order ${c.order.score.toFixed(2)}`);
  return `tool-call comparison ${c.score.toFixed(2)}: ${parts.join(", ")}${c.exact ? " (exact)" : ""}`;
}

/** A call as NAT shows it: `{step, name, params}`. */
function shownCall(c: ToolCallStep): { step: number; name: string; params: unknown } {
  return { step: c.step, name: c.name, params: c.rawParams ?? c.params };
}

/** NAT's reference-free trajectory text: `Action / Input / Observation` per pair, values as Python's str(). */
export function formatTrajectory(actions: readonly [AgentAction, unknown][]): string {
  return actions.map(([a, out]) => `Action: ${a.tool}\nInput: ${pythonStr(a.tool_input)}\nObservation: ${pythonStr(out)}`).join("\n");
}

export function formatHistory(history: readonly HistoryTurn[]): string {
  if (history.length === 0) return "(no previous turns)";
  return history.map((t) => `[${t.turnId}] User: ${t.query}\n[${t.turnId}] Assistant: ${t.answer}`).join("\n");
}
