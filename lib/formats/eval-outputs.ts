/**
 * The agent's outputs for each item or turn: generated answer, tool calls (structured or as
 * raw trajectory events), event timestamps and, for reports, the generated report (JSON, a
 * markdown string, or a file). They sit inline on a dataset item, or in an outputs file
 * keyed by id: `{"<id>": {...}}`, or a list of `{id, ...}` records such as NAT's
 * `workflow_output.json` (where `answer` is the reference and `generated_answer` the agent's).
 */
import { childPath, describeType, type DiagnosticSink } from "./diagnostic";
import { readToolCalls, type ToolCallStep } from "./eval-tool-calls";
import { readTrajectory, type TrajectoryEvent } from "./eval-trajectory";

export type ReportDraft =
  | { kind: "json"; value: Record<string, unknown> }
  | { kind: "markdown"; text: string }
  /** A path relative to the file the output was read from. */
  | { kind: "file"; path: string };

export interface AgentOutputDraft {
  /** The final answer; null when none was recorded. */
  answer: string | null;
  /** Structured tool calls, when given as such. */
  toolCalls: ToolCallStep[] | null;
  /** Raw trajectory events, when given. */
  events: TrajectoryEvent[] | null;
  /** The trajectory as written. */
  rawTrajectory?: unknown;
  /** Event timestamps in seconds (from `timestamps`, besides those on the events). */
  timestamps: number[];
  report: ReportDraft | null;
  /** Where it was read: the file is the caller's, the JSON path is ours. */
  path: string;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

const OUTPUT_KEYS = ["generated_answer", "tool_calls", "trajectory", "intermediate_steps", "timestamps", "report", "report_path"];

export interface OutputReadOptions {
  record?: number;
  /** Keys that hold the agent's answer, first present wins. */
  answerKeys: string[];
}

/**
 * Reads the output fields of one object. Returns null when it has none, undefined when
 * they hold errors (the sink says which).
 */
export function readOutputFields(raw: Obj, sink: DiagnosticSink, path: string, opts: OutputReadOptions): AgentOutputDraft | null | undefined {
  const keys = [...new Set([...opts.answerKeys, ...OUTPUT_KEYS])];
  if (!keys.some((k) => k in raw)) return null;
  const before = sink.errorCount;
  const where = (key: string) => ({ path: childPath(path, key), ...(opts.record !== undefined ? { record: opts.record } : {}) });

  let answer: string | null = null;
  const answerKey = opts.answerKeys.find((k) => k in raw);
  if (answerKey !== undefined) {
    const a = raw[answerKey];
    if (typeof a === "string") answer = a;
    else if (typeof a === "number" || typeof a === "boolean") answer = String(a);
    else if (a !== null) sink.error("bad_answer", `expected the generated answer as a string, found ${describeType(a)}`, where(answerKey));
  }

  let toolCalls: ToolCallStep[] | null = null;
  if (raw.tool_calls !== undefined && raw.tool_calls !== null) {
    if (!Array.isArray(raw.tool_calls)) sink.error("bad_tool_calls", `expected a list of tool calls, found ${describeType(raw.tool_calls)}`, where("tool_calls"));
    else toolCalls = readToolCalls(raw.tool_calls, sink, childPath(path, "tool_calls"), opts.record) ?? null;
  }

  let events: TrajectoryEvent[] | null = null;
  const trajKey = "trajectory" in raw ? "trajectory" : "intermediate_steps" in raw ? "intermediate_steps" : undefined;
  if (trajKey && raw[trajKey] !== null) events = readTrajectory(raw[trajKey], sink, childPath(path, trajKey)) ?? null;

  const timestamps: number[] = [];
  if (raw.timestamps !== undefined && raw.timestamps !== null) {
    if (!Array.isArray(raw.timestamps) || raw.timestamps.some((t) => typeof t !== "number" || !Number.isFinite(t))) {
      sink.error("bad_timestamps", "expected a list of timestamps in seconds", where("timestamps"));
    } else for (const t of raw.timestamps as number[]) timestamps.push(t);
  }

  let report: ReportDraft | null = null;
  if (raw.report !== undefined && raw.report !== null) {
    if (isObj(raw.report)) report = { kind: "json", value: raw.report };
    else if (typeof raw.report === "string") report = reportFromText(raw.report);
    else sink.error("bad_report", `expected the report as a JSON object or a markdown string, found ${describeType(raw.report)}`, where("report"));
  }
  if (raw.report_path !== undefined && raw.report_path !== null) {
    if (report) sink.error("bad_report", `give "report" or "report_path", not both`, where("report_path"));
    else if (typeof raw.report_path !== "string" || raw.report_path.trim() === "") sink.error("bad_report", `expected "report_path" to be a file path, found ${describeType(raw.report_path)}`, where("report_path"));
    else report = { kind: "file", path: raw.report_path };
  }

  if (sink.errorCount > before) return undefined;
  return { answer, toolCalls, events, ...(trajKey && raw[trajKey] != null ? { rawTrajectory: raw[trajKey] } : {}), timestamps, report, path };
}

/** A report string is JSON when it parses as an object, markdown otherwise. */
export function reportFromText(text: string): ReportDraft {
  const t = text.trim();
  if (t.startsWith("{")) {
    try {
      const v: unknown = JSON.parse(t);
      if (isObj(v)) return { kind: "json", value: v };
    } catch {
      // markdown that happens to open with a brace
    }
  }
  return { kind: "markdown", text };
}

/**
 * A record with configured keys renamed to the ones the readers know (`[from, to]` pairs; NAT's
 * `dataset.structure`); the record itself when nothing differs.
 */
export function renameKeys(raw: Obj, pairs: readonly [string, string][]): Obj {
  const moves = pairs.filter(([from, to]) => from !== to);
  if (moves.length === 0) return raw;
  const out: Obj = { ...raw };
  for (const [from, to] of moves) {
    delete out[to];
    if (from in raw) out[to] = raw[from];
    delete out[from];
  }
  return out;
}

/** Reads an outputs file's parsed JSON into outputs by id; `keys` rename NAT's configured answer and trajectory keys. */
export function readOutputsFile(value: unknown, sink: DiagnosticSink, keys?: { id: string; generatedAnswer: string; trajectory: string }): Map<string, AgentOutputDraft> {
  if (keys && Array.isArray(value)) {
    const pairs: [string, string][] = [[keys.id, "id"], [keys.generatedAnswer, "generated_answer"], [keys.trajectory, "intermediate_steps"]];
    value = value.map((r) => (isObj(r) ? renameKeys(r, pairs) : r));
  }
  const out = new Map<string, AgentOutputDraft>();
  const answerKeys = ["generated_answer", "answer"];
  const add = (id: string, raw: unknown, path: string, record?: number) => {
    if (!isObj(raw)) {
      sink.error("output_not_object", `expected an output object, found ${describeType(raw)}`, { path, ...(record !== undefined ? { record } : {}) });
      return;
    }
    if (out.has(id)) {
      sink.error("duplicate_id", `outputs for id "${id}" appear twice (first at ${out.get(id)!.path})`, { path, ...(record !== undefined ? { record } : {}) });
      return;
    }
    // NAT's records carry `answer` as the reference: only `generated_answer` is the agent's there.
    const keys = "generated_answer" in raw ? ["generated_answer"] : answerKeys;
    const draft = readOutputFields(raw, sink, path, { answerKeys: keys, ...(record !== undefined ? { record } : {}) });
    if (draft) out.set(id, draft);
    else if (draft === null) out.set(id, { answer: null, toolCalls: null, events: null, timestamps: [], report: null, path });
  };
  if (Array.isArray(value)) {
    value.forEach((raw, i) => {
      const path = `$[${i}]`;
      const id = isObj(raw) ? raw.id : undefined;
      if (typeof id !== "string" && typeof id !== "number") {
        sink.error("bad_id", `expected each output record to carry its item's "id", found ${id === undefined ? "nothing" : describeType(id)}`, { record: i, path: childPath(path, "id") });
        return;
      }
      add(String(id), raw, path, i);
    });
  } else if (isObj(value)) {
    for (const [id, raw] of Object.entries(value)) add(id, raw, childPath("$", id));
  } else {
    sink.error("bad_outputs", `expected an object keyed by item id, or a list of {id, ...} records, found ${describeType(value)}`, { path: "$" });
  }
  return out;
}
