/**
 * Tool calls out of a raw trajectory. Every LLM_END that chose tools opens a step; the
 * TOOL_ENDs answering its choices share that step (they ran in parallel). A TOOL_END answers
 * a choice by tool-call id where both record one, else as the next unanswered choice of the
 * same name at the same level (same parent). With `agentSelectedOnly`, TOOL_ENDs answering
 * no choice (tools called inside tools) are dropped, and LLM steps never become "tools".
 */
import { parseStructuredText } from "../../formats/eval-python-literal";
import type { ToolCallStep } from "../../formats/eval-tool-calls";
import type { ToolSelection, TrajectoryEvent } from "../../formats/eval-trajectory";

export interface CallExtraction {
  calls: ToolCallStep[];
  /** TOOL_ENDs left out because no LLM chose them. */
  droppedToolEnds: number;
  /** Choices no TOOL_END answered (the tool never ran). */
  unansweredSelections: number;
  notes: string[];
}

interface Pending {
  selection: ToolSelection;
  step: number;
  parentId: string | null;
  answered: boolean;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

export function callsFromEvents(events: readonly TrajectoryEvent[], opts: { agentSelectedOnly: boolean }): CallExtraction {
  const notes: string[] = [];
  const anySelections = events.some((e) => e.type === "LLM_END" && e.toolSelections.length > 0);
  let filter = opts.agentSelectedOnly;
  if (filter && !anySelections && events.some((e) => e.type === "TOOL_END")) {
    // Nothing recorded which tools the LLM chose: filtering would drop every call.
    filter = false;
    notes.push("the trajectory records no tool choices on its LLM_END events, so every TOOL_END is kept");
  }
  const pending: Pending[] = [];
  const calls: ToolCallStep[] = [];
  let step = 0;
  let dropped = 0;
  for (const e of events) {
    if (e.type === "LLM_END" && e.toolSelections.length > 0) {
      step++;
      for (const selection of e.toolSelections) pending.push({ selection, step, parentId: e.parentId, answered: false });
      continue;
    }
    if (e.type !== "TOOL_END") continue;
    const match =
      (e.toolCallId !== null ? pending.find((p) => !p.answered && p.selection.id === e.toolCallId) : undefined) ??
      pending.find((p) => !p.answered && p.selection.name === e.name && p.parentId === e.parentId && (e.toolCallId === null || p.selection.id === null));
    if (match) match.answered = true;
    else if (filter) {
      dropped++;
      continue;
    }
    const input = parseStructuredText(e.input);
    const params = match?.selection.arguments ?? (isObj(input) ? input : e.input === undefined || e.input === null ? {} : { input: e.input });
    calls.push({ step: match?.step ?? Math.max(step, 1), name: e.name, params, ...(e.output !== undefined ? { output: e.output } : {}) });
  }
  return { calls, droppedToolEnds: dropped, unansweredSelections: pending.filter((p) => !p.answered).length, notes };
}
