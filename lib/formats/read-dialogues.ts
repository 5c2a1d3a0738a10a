/**
 * Tolerant readers for VAKRA-shaped domain files. Real files deviate from the documented
 * schema (list-wrapped `sequence`, string turn ids, nested answers, JSON-string arguments);
 * the reader accepts each deviation, normalises it, and says so as a warning, so the
 * validator can decide what is fatal and the scorer never sees a raw shape.
 */
import { describeType, preview, type DiagnosticSink } from "./diagnostic";
import type { AnswerValue, GroundTruthDialogue, PredictedDialogue, ToolCall, ToolPolicy, Turn } from "./dialogue";
import { JsonNumber, numberValue, toPlainJson } from "./lossless-json";
import { pythonStr } from "./python-str";
import { readUsage } from "./usage";

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

interface RecordCtx {
  sink: DiagnosticSink;
  record: number;
  uuid?: string;
  base: string;
}

function err(ctx: RecordCtx, code: string, path: string, message: string): void {
  ctx.sink.error(code, message, { record: ctx.record, uuid: ctx.uuid, path });
}
function warn(ctx: RecordCtx, code: string, path: string, message: string): void {
  ctx.sink.warn(code, message, { record: ctx.record, uuid: ctx.uuid, path });
}

export interface ReadOptions {
  /** Domain implied by the file name (`<domain>.json`). */
  fileDomain: string;
}

/** A dialogue with the index of the record it was read from. */
export interface Indexed<T> {
  record: number;
  dialogue: T;
}

/** Reads a prediction file's parsed JSON. Records with errors are dropped; the sink says why. */
export function readPredictionFile(value: unknown, sink: DiagnosticSink, opts: ReadOptions): Indexed<PredictedDialogue>[] {
  const records = topLevelArray(value, sink);
  const out: Indexed<PredictedDialogue>[] = [];
  for (let i = 0; i < records.length; i++) {
    const d = readPrediction(records[i], { sink, record: i, base: `$[${i}]` }, opts);
    if (d) out.push({ record: i, dialogue: d });
  }
  return out;
}

export function readGroundTruthFile(value: unknown, sink: DiagnosticSink, opts: ReadOptions): GroundTruthDialogue[] {
  const records = topLevelArray(value, sink);
  const out: GroundTruthDialogue[] = [];
  for (let i = 0; i < records.length; i++) {
    const d = readGroundTruth(records[i], { sink, record: i, base: `$[${i}]` }, opts);
    if (d) out.push(d);
  }
  return out;
}

function topLevelArray(value: unknown, sink: DiagnosticSink): unknown[] {
  if (Array.isArray(value)) return value;
  sink.error("not_an_array", `expected a top-level JSON array of records, found ${describeType(value)}`, { path: "$" });
  return [];
}

function readPrediction(raw: unknown, ctx: RecordCtx, opts: ReadOptions): PredictedDialogue | undefined {
  const before = ctx.sink.errorCount;
  const head = readHead(raw, ctx, opts);
  if (!head) return undefined;
  const r = raw as Obj;

  let status: "success" | "error" = "success";
  if (!("status" in r)) warn(ctx, "status_missing", `${ctx.base}.status`, `"status" is missing; assumed "success"`);
  else if (r.status === "success" || r.status === "error") status = r.status;
  else err(ctx, "bad_status", `${ctx.base}.status`, `expected "success" or "error", found ${preview(r.status)}`);

  let error = "";
  if (!("error" in r)) warn(ctx, "error_missing", `${ctx.base}.error`, `"error" is missing; assumed ""`);
  else if (typeof r.error === "string") error = r.error;
  // Neither field changes a score (VAKRA never reads them): a bad one is ignored, not fatal.
  else if (r.error !== null) warn(ctx, "bad_error", `${ctx.base}.error`, `expected a string or null, found ${describeType(r.error)}; ignored`);

  let durationS: number | null = null;
  const duration = numberValue(r.duration_s);
  if (!("duration_s" in r)) warn(ctx, "duration_missing", `${ctx.base}.duration_s`, `"duration_s" is missing`);
  else if (duration !== undefined && Number.isFinite(duration) && duration >= 0) durationS = duration;
  else if (r.duration_s !== null) warn(ctx, "bad_duration", `${ctx.base}.duration_s`, `expected a non-negative number of seconds, found ${describeType(r.duration_s)}; ignored`);

  const usage = readUsage(r.usage, `${ctx.base}.usage`, (w) => warn(ctx, "bad_usage", w.path, w.message));

  const turns = readTurns(r.output, ctx, "prediction");
  if (status === "success" && Array.isArray(r.output) && r.output.length === 0) {
    warn(ctx, "no_turns", `${ctx.base}.output`, `status is "success" but "output" holds no turns; the dialogue scores 0`);
  }
  if (!turns || ctx.sink.errorCount > before) return undefined;
  return { uuid: head.uuid, domain: head.domain, status, error, durationS, usage, turns };
}

function readGroundTruth(raw: unknown, ctx: RecordCtx, opts: ReadOptions): GroundTruthDialogue | undefined {
  const before = ctx.sink.errorCount;
  const head = readHead(raw, ctx, opts);
  if (!head) return undefined;
  const r = raw as Obj;
  let instructions = "";
  if (typeof r.additional_instructions === "string") instructions = r.additional_instructions;
  else if (r.additional_instructions != null) {
    err(ctx, "bad_instructions", `${ctx.base}.additional_instructions`, `expected a string, found ${describeType(r.additional_instructions)}`);
  }
  const policy = r.policy === undefined ? undefined : readPolicy(r.policy, ctx);
  const turns = readTurns(r.output, ctx, "groundtruth");
  if (turns && turns.length === 0) err(ctx, "no_turns", `${ctx.base}.output`, "ground truth must hold at least one turn");
  if (!turns || ctx.sink.errorCount > before) return undefined;
  return { uuid: head.uuid, domain: head.domain, instructions, ...(policy ? { policy } : {}), turns };
}

function readHead(raw: unknown, ctx: RecordCtx, opts: ReadOptions): { uuid: string; domain: string } | undefined {
  if (!isObj(raw)) {
    err(ctx, "record_not_object", ctx.base, `expected a record object, found ${describeType(raw)}`);
    return undefined;
  }
  let uuid: string | undefined;
  if (typeof raw.uuid === "string" && raw.uuid.trim() !== "") uuid = raw.uuid;
  else if (numberValue(raw.uuid) !== undefined) {
    // Paired as Python pairs them: by str(uuid).
    uuid = pythonStr(raw.uuid);
    warn(ctx, "uuid_number", `${ctx.base}.uuid`, `uuid is a number; read as the string "${uuid}"`);
  } else {
    err(ctx, "bad_uuid", `${ctx.base}.uuid`, `expected a non-empty string uuid, found ${"uuid" in raw ? describeType(raw.uuid) : "nothing"}`);
    return undefined;
  }
  ctx.uuid = uuid;
  if (typeof raw.domain !== "string" || raw.domain === "") {
    err(ctx, "bad_domain", `${ctx.base}.domain`, `expected the domain name "${opts.fileDomain}", found ${"domain" in raw ? describeType(raw.domain) : "nothing"}`);
    return undefined;
  }
  if (raw.domain !== opts.fileDomain) {
    err(ctx, "domain_mismatch", `${ctx.base}.domain`, `domain ${preview(raw.domain)} differs from the file name; expected "${opts.fileDomain}"`);
    return undefined;
  }
  return { uuid, domain: raw.domain };
}

function readPolicy(raw: unknown, ctx: RecordCtx): ToolPolicy | undefined {
  const path = `${ctx.base}.policy`;
  if (!isObj(raw)) {
    err(ctx, "bad_policy", path, `expected {"allowTools": [...], "denyTools": [...]}, found ${describeType(raw)}`);
    return undefined;
  }
  const policy: ToolPolicy = {};
  for (const key of ["allowTools", "denyTools"] as const) {
    const v = raw[key];
    if (v === undefined) continue;
    if (!Array.isArray(v) || v.some((g) => typeof g !== "string" || g === "")) {
      err(ctx, "bad_policy", `${path}.${key}`, "expected an array of non-empty glob strings");
      return undefined;
    }
    policy[key] = v as string[];
  }
  for (const key of Object.keys(raw)) {
    if (key !== "allowTools" && key !== "denyTools") err(ctx, "bad_policy", `${path}.${key}`, `unknown policy key; expected "allowTools" or "denyTools"`);
  }
  return policy;
}

function readTurns(raw: unknown, ctx: RecordCtx, role: "prediction" | "groundtruth"): Turn[] | undefined {
  const path = `${ctx.base}.output`;
  if (!Array.isArray(raw)) {
    err(ctx, "bad_output", path, `expected "output" to be an array of turns, found ${raw === undefined ? "nothing" : describeType(raw)}`);
    return undefined;
  }
  const turns: Turn[] = [];
  const seen = new Map<number, number>();
  for (let t = 0; t < raw.length; t++) {
    const turn = readTurn(raw[t], ctx, `${path}[${t}]`, role);
    if (!turn) continue;
    const first = seen.get(turn.turnId);
    if (first !== undefined) {
      err(ctx, "duplicate_turn_id", `${path}[${t}].turn_id`, `turn_id ${turn.turnId} is predicted twice (first at ${path}[${first}]); expected each turn_id once`);
      continue;
    }
    seen.set(turn.turnId, t);
    turns.push(turn);
  }
  return turns;
}

function readTurn(raw: unknown, ctx: RecordCtx, path: string, role: "prediction" | "groundtruth"): Turn | undefined {
  if (!isObj(raw)) {
    err(ctx, "turn_not_object", path, `expected a turn object, found ${describeType(raw)}`);
    return undefined;
  }
  let turnId: number | undefined;
  const id = numberValue(raw.turn_id);
  if (id !== undefined && Number.isSafeInteger(id) && id >= 0) {
    turnId = id;
    // 3.0 finds turn 3 in Python's dict lookup, so it pairs as 3 here too.
    if (raw.turn_id instanceof JsonNumber) warn(ctx, "turn_id_float", `${path}.turn_id`, `turn_id is the float ${raw.turn_id.source}; read as the integer ${id}`);
  } else if (typeof raw.turn_id === "string" && /^\d+$/.test(raw.turn_id.trim())) {
    turnId = Number(raw.turn_id.trim());
    warn(ctx, "turn_id_string", `${path}.turn_id`, `turn_id is the string ${preview(raw.turn_id)}; read as the number ${turnId}`);
  } else {
    err(ctx, "bad_turn_id", `${path}.turn_id`, `expected a non-negative integer turn_id, found ${"turn_id" in raw ? describeType(raw.turn_id) : "nothing"}`);
    return undefined;
  }

  let query = "";
  if (typeof raw.query === "string") query = raw.query;
  else if (role === "groundtruth" || raw.query !== undefined) {
    err(ctx, "bad_query", `${path}.query`, `expected a string query, found ${"query" in raw ? describeType(raw.query) : "nothing"}`);
    return undefined;
  } else warn(ctx, "query_missing", `${path}.query`, `"query" is missing`);

  const answer = readAnswer(raw.answer, ctx, `${path}.answer`, role);
  if (answer === undefined) return undefined;

  const seq = readSequence(raw.sequence, ctx, `${path}.sequence`, role);
  if (!seq) return undefined;
  return { turnId, query, answer, calls: seq.calls, ...(seq.responses ? { responses: seq.responses } : {}) };
}

function readAnswer(raw: unknown, ctx: RecordCtx, path: string, role: "prediction" | "groundtruth"): AnswerValue | undefined {
  if (typeof raw === "string") return raw;
  if (raw === undefined) {
    warn(ctx, "answer_missing", path, '"answer" is missing; read as an empty answer');
    return "";
  }
  if (isObj(raw) || (Array.isArray(raw) && hasObject(raw))) {
    // Judges read an answer as text; an object is read as Python's str() of it, as VAKRA reads it.
    warn(ctx, "answer_object", path, "answer holds a JSON object; read as its Python str() text");
    return isObj(raw) ? pythonStr(raw) : (objectsAsText(raw) as AnswerValue[]);
  }
  if (typeof raw === "number" || typeof raw === "boolean" || raw instanceof JsonNumber) return raw;
  if (raw === null) {
    if (role === "prediction") warn(ctx, "answer_null", path, "answer is null; read as an empty answer");
    return "";
  }
  if (Array.isArray(raw)) {
    if (!isAnswerTree(raw)) {
      err(ctx, "bad_answer", path, "expected a string or nested lists of strings and numbers; found an object inside the list");
      return undefined;
    }
    if (role === "prediction") warn(ctx, "answer_list", path, "answer is a list; compared as its values");
    return raw as AnswerValue[];
  }
  err(ctx, "bad_answer", path, `expected a string answer, found ${raw === undefined ? "nothing" : describeType(raw)}`);
  return undefined;
}

function hasObject(v: unknown[]): boolean {
  return v.some((x) => isObj(x) || (Array.isArray(x) && hasObject(x)));
}

function objectsAsText(v: unknown): unknown {
  if (isObj(v)) return pythonStr(v);
  return Array.isArray(v) ? v.map(objectsAsText) : v;
}

function isAnswerTree(v: unknown): boolean {
  if (Array.isArray(v)) return v.every(isAnswerTree);
  return v === null || typeof v === "string" || typeof v === "number" || typeof v === "boolean" || v instanceof JsonNumber;
}

function readSequence(
  raw: unknown,
  ctx: RecordCtx,
  path: string,
  role: "prediction" | "groundtruth",
): { calls: ToolCall[]; responses?: unknown[] } | undefined {
  if (raw === undefined || raw === null) {
    warn(ctx, "sequence_missing", path, `"sequence" is missing; read as no tool calls`);
    return { calls: [] };
  }
  // Legacy files wrap the sequence in a list of objects: merge them in order.
  let parts: { value: Obj; path: string }[];
  if (Array.isArray(raw)) {
    warn(ctx, "sequence_list", path, `"sequence" is a list; its ${raw.length} part(s) are merged in order`);
    parts = [];
    for (let i = 0; i < raw.length; i++) {
      const p = raw[i];
      if (!isObj(p)) {
        err(ctx, "bad_sequence", `${path}[${i}]`, `expected an object with "tool_call", found ${describeType(p)}`);
        return undefined;
      }
      parts.push({ value: p, path: `${path}[${i}]` });
    }
  } else if (isObj(raw)) {
    parts = [{ value: raw, path }];
  } else {
    err(ctx, "bad_sequence", path, `expected an object with "tool_call", found ${describeType(raw)}`);
    return undefined;
  }

  const calls: ToolCall[] = [];
  let responses: unknown[] | undefined;
  for (const part of parts) {
    const tc = part.value.tool_call;
    if (tc !== undefined && tc !== null) {
      if (!Array.isArray(tc)) {
        err(ctx, "bad_tool_call", `${part.path}.tool_call`, `expected an array of tool calls, found ${describeType(tc)}`);
        return undefined;
      }
      for (let c = 0; c < tc.length; c++) {
        const call = readCall(tc[c], ctx, `${part.path}.tool_call[${c}]`);
        if (!call) return undefined;
        calls.push(call);
      }
    }
    const tr = part.value.tool_response;
    if (tr !== undefined && tr !== null) {
      if (!Array.isArray(tr)) {
        // VAKRA reads a non-list tool_response as no responses; so do we, and say so.
        warn(ctx, "bad_tool_response", `${part.path}.tool_response`, `expected an array of tool responses, found ${describeType(tr)}; read as no responses`);
        responses ??= [];
      } else responses = responses ? responses.concat(tr) : tr;
    }
  }
  if (role === "groundtruth" && responses && responses.length !== calls.length) {
    warn(ctx, "response_count", `${path}.tool_response`, `${responses.length} tool responses for ${calls.length} tool calls`);
  }
  return responses ? { calls, responses } : { calls };
}

function readCall(raw: unknown, ctx: RecordCtx, path: string): ToolCall | undefined {
  if (!isObj(raw)) {
    err(ctx, "bad_tool_call", path, `expected a tool call {"name", "arguments"}, found ${describeType(raw)}`);
    return undefined;
  }
  if (typeof raw.name !== "string" || raw.name.trim() === "") {
    err(ctx, "empty_tool_name", `${path}.name`, `tool name is ${"name" in raw ? describeType(raw.name) : "missing"}; expected a non-empty string`);
    return undefined;
  }
  let args: Record<string, unknown>;
  const a = raw.arguments;
  if (a === undefined || a === null) {
    args = {};
  } else if (isObj(a)) {
    args = a;
  } else if (typeof a === "string") {
    // Some agents record arguments as a JSON string; parse it here, never in the replay.
    let parsed: unknown;
    try {
      parsed = a.trim() === "" ? {} : JSON.parse(a);
    } catch {
      err(ctx, "bad_arguments", `${path}.arguments`, "arguments is a string that is not valid JSON; expected an object");
      return undefined;
    }
    if (!isObj(parsed)) {
      err(ctx, "bad_arguments", `${path}.arguments`, `arguments string holds ${describeType(parsed)}; expected an object`);
      return undefined;
    }
    warn(ctx, "arguments_string", `${path}.arguments`, "arguments is a JSON string; parsed to an object");
    args = parsed;
  } else {
    err(ctx, "bad_arguments", `${path}.arguments`, `expected an object, found ${describeType(a)}`);
    return undefined;
  }
  // Arguments go to the environment as JSON: plain values, whatever the file's number forms.
  const call: ToolCall = { name: raw.name, arguments: toPlainJson(args) as Record<string, unknown> };
  if (typeof raw.label === "string") call.label = raw.label;
  return call;
}
