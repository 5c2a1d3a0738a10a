/**
 * Tool calls out of a raw trajectory, as VSS's trajectory evaluator reads them:
 * 1. With `agentSelectedOnly`, each LLM_END that chose tools keeps itself and, per choice in
 *    order, the next not yet kept TOOL_END after it with the same parent and name; other
 *    LLM_END and TOOL_END events go (tools run inside tools, LLM calls inside tools, the
 *    final answer's LLM step).
 * 2. What is left becomes (action, observation) pairs: an LLM_END is an "action" named after
 *    the model, a TOOL_END an action whose log is the last LLM output.
 * 3. A pair whose observation holds "Tool calls:" (an LLM choosing tools) opens a step and is
 *    not a call; every other pair is a call `{step, name, params}` in that step (step 1 before
 *    any), with the recorded tool input as its parameters (a Python literal read as such).
 * Without the filter, a text-only LLM step is therefore listed as a call, as upstream lists it.
 */
import { parsePythonLiteral, parseStructuredText } from "../formats/eval-python-literal";
import type { ToolCallStep } from "../formats/eval-tool-calls";
import { toolResultsByName, type TrajectoryEvent } from "../formats/eval-trajectory";

/** NAT's AgentAction as its output files show it. */
export interface AgentAction {
  tool: string;
  tool_input: unknown;
  log: string;
}

export interface CallExtraction {
  calls: ToolCallStep[];
  /** The (action, observation) pairs the calls were read from: the item's `trajectory`. */
  actions: [AgentAction, unknown][];
  /** Top-level tool outputs by tool name, in call order (what `$ref` resolves against). */
  toolResults: Record<string, unknown[]>;
  /** TOOL_ENDs left out because no LLM chose them. */
  droppedToolEnds: number;
  /** Choices no TOOL_END answered (the tool never ran). */
  unansweredSelections: number;
  notes: string[];
}

const choosesTools = (e: TrajectoryEvent) => e.type === "LLM_END" && e.toolSelections.length > 0;
const marksStep = (e: TrajectoryEvent) => choosesTools(e) || (typeof e.output === "string" && e.output.includes("Tool calls:"));

export function callsFromEvents(events: readonly TrajectoryEvent[], opts: { agentSelectedOnly: boolean }): CallExtraction {
  const notes: string[] = [];
  let filter = opts.agentSelectedOnly;
  if (filter && !events.some((e) => e.type === "LLM_END") && events.some((e) => e.type === "TOOL_END")) {
    // No LLM step at all: nothing could have chosen a tool, so filtering would drop every call.
    filter = false;
    notes.push("the trajectory has no LLM_END events, so every TOOL_END is kept");
  }
  const kept = new Set<number>();
  let unanswered = 0;
  if (filter) {
    events.forEach((e, i) => {
      if (!choosesTools(e)) return;
      kept.add(i);
      for (const sel of e.toolSelections) {
        let hit = -1;
        for (let j = i + 1; j < events.length; j++) {
          const t = events[j]!;
          if (t.type === "TOOL_END" && !kept.has(j) && t.parentId === e.parentId && t.name === sel.name) {
            hit = j;
            break;
          }
        }
        if (hit >= 0) kept.add(hit);
        else unanswered++;
      }
    });
  }
  const steps = events.filter((e, i) => (e.type === "LLM_END" || e.type === "TOOL_END") && (!filter || kept.has(i)));
  const dropped = filter ? events.filter((e, i) => e.type === "TOOL_END" && !kept.has(i)).length : 0;

  const actions: [AgentAction, unknown][] = [];
  const calls: ToolCallStep[] = [];
  let lastLlmOutput: unknown = "";
  let step = 0;
  for (const e of steps) {
    const log = e.type === "LLM_END" ? "" : typeof lastLlmOutput === "string" ? lastLlmOutput : String(lastLlmOutput ?? "");
    if (e.type === "LLM_END") lastLlmOutput = e.output ?? "";
    const input = e.input === undefined || e.input === null ? "" : e.input;
    actions.push([{ tool: e.name, tool_input: input, log }, e.output ?? ""]);
    if (marksStep(e)) {
      step++;
      continue;
    }
    const params = toolParams(input);
    const isObject = typeof params === "object" && params !== null && !Array.isArray(params);
    calls.push({ step: Math.max(step, 1), name: e.name, params: isObject ? (params as Record<string, unknown>) : {}, ...(isObject ? {} : { rawParams: params }), ...(e.output !== undefined ? { output: e.output } : {}) });
  }
  return { calls, actions, toolResults: toolResultsByName(steps), droppedToolEnds: dropped, unansweredSelections: unanswered, notes };
}

/** A recorded tool input as parameters: a string is read as a Python literal where it is one. */
function toolParams(input: unknown): unknown {
  return typeof input === "string" ? (parsePythonLiteral(input.trim()) ?? input) : input;
}

/** A tool's output as `$ref` paths walk it: objects as they are, text read as JSON, then as a Python literal. */
export function parseToolResult(output: unknown): unknown {
  return typeof output === "string" ? parseStructuredText(output) : output;
}
