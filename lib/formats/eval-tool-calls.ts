/** Tool calls as evaluation datasets and agent outputs write them. */
import { childPath, describeType, type DiagnosticSink } from "./diagnostic";
import { readSelection } from "./eval-trajectory";

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

/** One tool call: calls sharing a `step` ran in parallel and are compared as a set. */
export interface ToolCallStep {
  step: number;
  name: string;
  params: Record<string, unknown>;
  /** The parameters as recorded when they are not an object (a string no literal reading fits): shown, never compared. */
  rawParams?: unknown;
  /** What the tool returned, when the trajectory recorded it (never compared). */
  output?: unknown;
}

/**
 * Reads tool calls: `{step, name, params}`, or `{name, arguments}` / OpenAI's
 * `{function: {name, arguments}}`. A call without a step follows the one before it.
 */
export function readToolCalls(raw: unknown[], sink: DiagnosticSink, path: string, record?: number): ToolCallStep[] | undefined {
  const out: ToolCallStep[] = [];
  let ok = true;
  let last = 0;
  raw.forEach((c, i) => {
    const at = childPath(path, i);
    const where = { path: at, ...(record !== undefined ? { record } : {}) };
    if (!isObj(c)) {
      sink.error("bad_tool_call", `expected a tool call {step, name, params}, found ${describeType(c)}`, where);
      ok = false;
      return;
    }
    const sel = readSelection(c);
    if (!sel) {
      sink.error("bad_tool_call", `a tool call needs a non-empty "name"`, { ...where, path: childPath(at, "name") });
      ok = false;
      return;
    }
    const rawParams = c.params ?? c.arguments ?? c.args ?? (isObj(c.function) ? c.function.arguments : undefined);
    if (rawParams !== undefined && rawParams !== null && !sel.arguments) {
      sink.error("bad_tool_call", `expected the parameters as an object, found ${describeType(rawParams)}`, { ...where, path: childPath(at, "params" in c ? "params" : "arguments" in c ? "arguments" : "args") });
      ok = false;
      return;
    }
    let step = last + 1;
    if (c.step !== undefined) {
      if (typeof c.step !== "number" || !Number.isInteger(c.step) || c.step < 0) {
        sink.error("bad_tool_call", `expected "step" to be a non-negative integer, found ${describeType(c.step)}`, { ...where, path: childPath(at, "step") });
        ok = false;
        return;
      }
      step = c.step;
    }
    last = step;
    out.push({ step, name: sel.name, params: sel.arguments ?? {}, ...("output" in c ? { output: c.output } : {}) });
  });
  return ok ? out : undefined;
}
