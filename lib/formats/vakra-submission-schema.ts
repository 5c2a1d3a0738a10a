/**
 * What VAKRA's own output checker (`validate_output.py`, its pydantic `OutputRecord` model)
 * demands of a domain file, as facts: a non-empty top-level array of records, each with
 * `uuid`, `domain` (strings), `status` ("success" or "error"), `error` (a string),
 * `duration_s` (a number), and `output`, a list of turns `{turn_id (integer), query (string),
 * answer (string), sequence: {tool_call: [{name (string), arguments (object)}]}}`. Keys it does
 * not name are ignored. Pydantic's lax mode lets some other forms through: an integer
 * `turn_id` written as a float with no fraction, a numeric string or a boolean; a number,
 * numeric string or boolean for `duration_s`. Nothing else is coerced: an answer that is a
 * list or a number, or a null `error`, fails its check.
 *
 * Agentboard's reader (read-dialogues.ts) is more tolerant; this says where a file it reads
 * would still fail VAKRA's checker, so a submitter can keep files both accept.
 */
import { describeType } from "./diagnostic";
import { JsonNumber } from "./lossless-json";

/** One place a record fails VAKRA's checker. */
export interface VakraSchemaFinding {
  /** Index of the record in the top-level array (absent for the file as a whole). */
  record?: number;
  uuid?: string;
  /** JSON path, e.g. `$[3].output[0].answer`. */
  path: string;
  /** What VAKRA's checker expects there, and what the file has. */
  message: string;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v) && !(v instanceof JsonNumber);
const isNumber = (v: unknown): v is number | JsonNumber => typeof v === "number" || v instanceof JsonNumber;
/** describeType, with a number that kept its source text named as the number it is. */
const kind = (v: unknown) => (v instanceof JsonNumber ? "a number" : describeType(v));
const NUMERIC = /^\s*[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?\s*$/;
const INTEGER = /^\s*[+-]?\d+(\.0*)?\s*$/;

/** Whether lax mode takes the value as an integer (pydantic `int`). */
function laxInteger(v: unknown): boolean {
  if (typeof v === "boolean") return true;
  if (typeof v === "string") return INTEGER.test(v);
  if (!isNumber(v)) return false;
  const n = Number(v.valueOf());
  return Number.isFinite(n) && Number.isInteger(n);
}

/** Whether lax mode takes the value as a float (pydantic `float`). */
function laxFloat(v: unknown): boolean {
  return typeof v === "boolean" || isNumber(v) || (typeof v === "string" && NUMERIC.test(v));
}

/**
 * Every place the parsed file fails VAKRA's checker, at most `max` of them (the count stops
 * there too: a bundle of bad records must not build a list as long as the file).
 */
export function vakraSchemaFindings(value: unknown, max = 10_000): VakraSchemaFinding[] {
  const out: VakraSchemaFinding[] = [];
  const add = (f: VakraSchemaFinding) => {
    if (out.length < max) out.push(f);
  };
  if (!Array.isArray(value)) {
    add({ path: "$", message: `expected a top-level array of records, found ${kind(value)}` });
    return out;
  }
  if (value.length === 0) {
    add({ path: "$", message: "expected at least one record; the array is empty" });
    return out;
  }
  for (let i = 0; i < value.length && out.length < max; i++) checkRecord(value[i], i, add);
  return out;
}

function checkRecord(raw: unknown, record: number, add: (f: VakraSchemaFinding) => void): void {
  const base = `$[${record}]`;
  if (!isObj(raw)) {
    add({ record, path: base, message: `expected a record object, found ${kind(raw)}` });
    return;
  }
  const uuid = typeof raw.uuid === "string" ? raw.uuid : undefined;
  const at = (path: string, message: string) => add({ record, ...(uuid !== undefined ? { uuid } : {}), path, message });
  const field = (key: string, ok: (v: unknown) => boolean, expected: string) => {
    if (!(key in raw)) at(`${base}.${key}`, `"${key}" is required (${expected})`);
    else if (!ok(raw[key])) at(`${base}.${key}`, `expected ${expected}, found ${kind(raw[key])}`);
  };
  const isString = (v: unknown) => typeof v === "string";
  field("uuid", isString, "a string");
  field("domain", isString, "a string");
  field("status", (v) => v === "success" || v === "error", `"success" or "error"`);
  field("error", isString, "a string (empty when there was none)");
  field("duration_s", laxFloat, "a number of seconds");
  if (!("output" in raw)) {
    at(`${base}.output`, `"output" is required (a list of turns)`);
    return;
  }
  if (!Array.isArray(raw.output)) {
    at(`${base}.output`, `expected a list of turns, found ${kind(raw.output)}`);
    return;
  }
  raw.output.forEach((turn, t) => checkTurn(turn, `${base}.output[${t}]`, at));
}

function checkTurn(raw: unknown, path: string, at: (path: string, message: string) => void): void {
  if (!isObj(raw)) {
    at(path, `expected a turn object, found ${kind(raw)}`);
    return;
  }
  const field = (key: string, ok: (v: unknown) => boolean, expected: string) => {
    if (!(key in raw)) at(`${path}.${key}`, `"${key}" is required (${expected})`);
    else if (!ok(raw[key])) at(`${path}.${key}`, `expected ${expected}, found ${kind(raw[key])}`);
  };
  field("turn_id", laxInteger, "an integer");
  field("query", (v) => typeof v === "string", "a string");
  field("answer", (v) => typeof v === "string", "a string");
  if (!("sequence" in raw)) {
    at(`${path}.sequence`, `"sequence" is required (an object with "tool_call")`);
    return;
  }
  const seq = raw.sequence;
  if (!isObj(seq)) {
    at(`${path}.sequence`, `expected an object with "tool_call", found ${kind(seq)}`);
    return;
  }
  if (!("tool_call" in seq)) {
    at(`${path}.sequence.tool_call`, `"tool_call" is required (a list of tool calls, empty when none)`);
    return;
  }
  if (!Array.isArray(seq.tool_call)) {
    at(`${path}.sequence.tool_call`, `expected a list of tool calls, found ${kind(seq.tool_call)}`);
    return;
  }
  seq.tool_call.forEach((call, c) => {
    const p = `${path}.sequence.tool_call[${c}]`;
    if (!isObj(call)) {
      at(p, `expected a tool call {"name", "arguments"}, found ${kind(call)}`);
      return;
    }
    if (!("name" in call)) at(`${p}.name`, `"name" is required (a string)`);
    else if (typeof call.name !== "string") at(`${p}.name`, `expected a string, found ${kind(call.name)}`);
    if (!("arguments" in call)) at(`${p}.arguments`, `"arguments" is required (an object)`);
    else if (!isObj(call.arguments)) at(`${p}.arguments`, `expected an object, found ${kind(call.arguments)}`);
  });
}
