/**
 * Raw agent trajectories as the NeMo Agent Toolkit records them (`intermediate_steps`:
 * `{parent_id, payload: {event_type, event_timestamp, name, UUID, data: {input, output}}}`)
 * or flattened (`{event_type, event_timestamp, name, uuid, parent_id, input, output}`),
 * read into one event shape. Tool selections on an LLM_END are taken from structured
 * `tool_calls` where the trajectory has them, else from NAT's `Tool calls: [...]` text.
 */
import { childPath, describeType, type DiagnosticSink } from "./diagnostic";
import { parseStructuredText } from "./eval-python-literal";

/** A tool call an LLM chose, as recorded on its LLM_END event. */
export interface ToolSelection {
  id: string | null;
  name: string;
  arguments: Record<string, unknown> | null;
}

export interface TrajectoryEvent {
  /** Upper-case NAT event type: LLM_START, LLM_END, TOOL_START, TOOL_END, … */
  type: string;
  /** Seconds (event_timestamp); null when the event has none. */
  timestamp: number | null;
  /** Seconds at which the span started (span_event_timestamp), on END events. */
  spanStart: number | null;
  name: string;
  uuid: string | null;
  parentId: string | null;
  input: unknown;
  output: unknown;
  /** On LLM_END: the tools it chose (empty when it chose none). */
  toolSelections: ToolSelection[];
  /** On TOOL_END: the id of the selection it answers, when the trajectory records it. */
  toolCallId: string | null;
  /** NAT's `function_ancestry.function_name`: `<workflow>` for the agent's own calls; null when not recorded. */
  ancestorName: string | null;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
const str = (v: unknown): string | null => (typeof v === "string" && v !== "" ? v : typeof v === "number" ? String(v) : null);

/** Reads a trajectory array; an event that cannot be read is an error at its path. */
export function readTrajectory(raw: unknown, sink: DiagnosticSink, path: string): TrajectoryEvent[] | undefined {
  if (!Array.isArray(raw)) {
    sink.error("bad_trajectory", `expected a list of trajectory events, found ${describeType(raw)}`, { path });
    return undefined;
  }
  const out: TrajectoryEvent[] = [];
  let ok = true;
  raw.forEach((e, i) => {
    const ev = readEvent(e, sink, childPath(path, i));
    if (ev) out.push(ev);
    else ok = false;
  });
  return ok ? out : undefined;
}

function readEvent(raw: unknown, sink: DiagnosticSink, path: string): TrajectoryEvent | undefined {
  if (!isObj(raw)) {
    sink.error("bad_trajectory_event", `expected an event object, found ${describeType(raw)}`, { path });
    return undefined;
  }
  const p = isObj(raw.payload) ? raw.payload : raw;
  const base = p === raw ? path : childPath(path, "payload");
  const type = str(p.event_type);
  if (!type) {
    sink.error("bad_trajectory_event", `an event needs an "event_type" such as "TOOL_END", found ${"event_type" in p ? describeType(p.event_type) : "nothing"}`, { path: childPath(base, "event_type") });
    return undefined;
  }
  const timestamp = readSeconds(p.event_timestamp, sink, childPath(base, "event_timestamp"));
  const spanStart = readSeconds(p.span_event_timestamp, sink, childPath(base, "span_event_timestamp"));
  if (timestamp === undefined || spanStart === undefined) return undefined;
  const data = isObj(p.data) ? p.data : {};
  const metadata = isObj(p.metadata) ? p.metadata : {};
  const input = "input" in data ? data.input : p.input;
  const output = "output" in data ? data.output : p.output;
  const upper = type.toUpperCase();
  return {
    type: upper,
    timestamp,
    spanStart,
    name: str(p.name) ?? "",
    uuid: str(p.UUID ?? p.uuid),
    parentId: str(raw.parent_id ?? p.parent_id),
    input,
    output,
    toolSelections: upper === "LLM_END" ? readSelections(p.tool_calls ?? data.tool_calls ?? metadata.tool_calls, output) : [],
    toolCallId: str(p.tool_call_id ?? data.tool_call_id ?? metadata.tool_call_id),
    ancestorName: isObj(raw.function_ancestry) ? str(raw.function_ancestry.function_name) : null,
  };
}

function readSeconds(v: unknown, sink: DiagnosticSink, path: string): number | null | undefined {
  if (v === undefined || v === null) return null;
  if (typeof v === "number" && Number.isFinite(v)) return v;
  if (typeof v === "string" && v.trim() !== "") {
    // ISO timestamps are accepted too; NAT writes epoch seconds.
    const n = Number(v);
    if (Number.isFinite(n)) return n;
    const ms = Date.parse(v);
    if (Number.isFinite(ms)) return ms / 1000;
  }
  sink.error("bad_timestamp", `expected a timestamp in seconds (or an ISO date), found ${describeType(v)}`, { path });
  return undefined;
}

function readSelections(structured: unknown, output: unknown): ToolSelection[] {
  let list: unknown = structured;
  if (list === undefined && typeof output === "string") {
    const at = output.indexOf("Tool calls:");
    if (at >= 0) list = parseStructuredText(output.slice(at + "Tool calls:".length));
  }
  if (!Array.isArray(list)) return [];
  const out: ToolSelection[] = [];
  for (const c of list) {
    const s = readSelection(c);
    if (s) out.push(s);
  }
  return out;
}

/** `{name, args|arguments}`, OpenAI's `{id, function: {name, arguments: "<json>"}}`, or NIM's variants. */
export function readSelection(c: unknown): ToolSelection | undefined {
  if (!isObj(c)) return undefined;
  const fn = isObj(c.function) ? c.function : undefined;
  const name = str(fn?.name) ?? str(c.name);
  if (!name) return undefined;
  const rawArgs = parseStructuredText(fn?.arguments ?? c.arguments ?? c.args ?? c.params ?? null);
  return { id: str(c.id), name, arguments: isObj(rawArgs) ? rawArgs : null };
}

/**
 * The agent's own tool outputs by tool name, in call order: top-level TOOL_ENDs (NAT's
 * `<workflow>` ancestry, or none recorded) and structured calls that recorded an output.
 * What a `$ref` in `trajectory_ground_truth` resolves against.
 */
export function toolResultsByName(events: readonly TrajectoryEvent[], calls: readonly { name: string; output?: unknown }[] = []): Record<string, unknown[]> {
  const out: Record<string, unknown[]> = {};
  for (const e of events) if (e.type === "TOOL_END" && e.output != null && (e.ancestorName === null || e.ancestorName === "<workflow>")) (out[e.name] ??= []).push(e.output);
  for (const c of calls) if (c.output != null) (out[c.name] ??= []).push(c.output);
  return out;
}
