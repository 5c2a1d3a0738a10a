/**
 * Python's `str()` of a JSON value as `json.loads` would have built it: what VAKRA compares
 * and shows its judge. Values read by `lossless-json.ts` keep what Python keeps (float vs
 * integer literals, big integers, key order); plain JavaScript values are taken as
 * `json.loads` would read their JSON text.
 */
import { JsonNumber, orderedKeys } from "./lossless-json";

/** `str(x)`: a string is itself, everything else its repr. */
export function pythonStr(value: unknown): string {
  return typeof value === "string" ? value : pythonRepr(value);
}

/** `repr(x)` for JSON-shaped values. */
export function pythonRepr(value: unknown): string {
  if (value === null || value === undefined) return "None";
  if (value === true) return "True";
  if (value === false) return "False";
  if (typeof value === "string") return pythonStringRepr(value);
  if (typeof value === "number") return Number.isInteger(value) && !Object.is(value, -0) ? String(value) : pythonFloatRepr(value);
  if (typeof value === "bigint") return value.toString();
  if (value instanceof JsonNumber) return value.kind === "int" ? value.source : pythonFloatRepr(value.valueOf());
  if (Array.isArray(value)) return `[${value.map(pythonRepr).join(", ")}]`;
  if (typeof value === "object") {
    const obj = value as Record<string, unknown>;
    return `{${orderedKeys(obj)
      .map((k) => `${pythonStringRepr(k)}: ${pythonRepr(obj[k])}`)
      .join(", ")}}`;
  }
  return String(value);
}

/**
 * Python's float repr: the shortest digits that round-trip (JavaScript picks the same ones),
 * laid out by Python's rule: positional while the decimal point falls within 16 digits of
 * the first one and at most 4 zeros after it, scientific otherwise. Built from the digits
 * themselves, since re-rounding through `toFixed` can change the last one.
 */
export function pythonFloatRepr(n: number): string {
  if (Number.isNaN(n)) return "nan";
  if (!Number.isFinite(n)) return n > 0 ? "inf" : "-inf";
  if (n === 0) return Object.is(n, -0) ? "-0.0" : "0.0";
  const sign = n < 0 ? "-" : "";
  const [mantissa, expText] = Math.abs(n).toExponential().split("e") as [string, string];
  const digits = mantissa.replace(".", "");
  const exp = Number(expText);
  // The decimal point sits after `point` digits: 0.d1d2… × 10^point.
  const point = exp + 1;
  if (point <= -4 || point > 16) {
    const m = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    return `${sign}${m}e${exp < 0 ? "-" : "+"}${String(Math.abs(exp)).padStart(2, "0")}`;
  }
  if (point <= 0) return `${sign}0.${"0".repeat(-point)}${digits}`;
  if (point >= digits.length) return `${sign}${digits}${"0".repeat(point - digits.length)}.0`;
  return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
}

// What Python's str.isprintable() refuses: other (control, format, surrogate, private use,
// unassigned) and separators, except the ASCII space.
const ESCAPED = /[\\\t\n\r]|[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}]|(?! )\p{Zs}/gu;

/** Python's string repr: single quotes unless the text holds one and no double quote. */
export function pythonStringRepr(s: string): string {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  const body = s.replace(ESCAPED, escapeChar);
  return quote + (quote === "'" ? body.replaceAll("'", "\\'") : body) + quote;
}

function escapeChar(ch: string): string {
  if (ch === "\\") return "\\\\";
  if (ch === "\n") return "\\n";
  if (ch === "\r") return "\\r";
  if (ch === "\t") return "\\t";
  const cp = ch.codePointAt(0)!;
  if (cp < 0x100) return `\\x${cp.toString(16).padStart(2, "0")}`;
  if (cp < 0x10000) return `\\u${cp.toString(16).padStart(4, "0")}`;
  return `\\U${cp.toString(16).padStart(8, "0")}`;
}

export interface JsonDumpsOptions {
  indent?: number;
  /** Python's `ensure_ascii` (its default, true): every non-ASCII character written `\uXXXX`. */
  ensureAscii?: boolean;
}

/**
 * Python's `json.dumps(value, indent=2)` (`", "`-free since indent is set): the text NAT's
 * evaluators put in their judge prompts for sections and tool calls (ASCII-escaped), and the
 * files VAKRA's evaluator writes (`ensure_ascii=False`).
 */
export function pythonJsonDumps(value: unknown, opts: JsonDumpsOptions = {}): string {
  const indent = opts.indent ?? 2;
  const str = opts.ensureAscii === false ? jsonUnicodeString : jsonAsciiString;
  const pad = (d: number) => " ".repeat(indent * d);
  const dump = (v: unknown, depth: number): string => {
    if (v === null || v === undefined) return "null";
    if (v === true) return "true";
    if (v === false) return "false";
    if (typeof v === "string") return str(v);
    if (typeof v === "number") {
      if (Number.isNaN(v)) return "NaN";
      if (!Number.isFinite(v)) return v > 0 ? "Infinity" : "-Infinity";
      return Number.isInteger(v) && !Object.is(v, -0) ? String(v) : pythonFloatRepr(v);
    }
    if (v instanceof JsonNumber) {
      if (v.kind === "int") return v.source;
      const n = v.valueOf();
      return Number.isNaN(n) ? "NaN" : !Number.isFinite(n) ? (n > 0 ? "Infinity" : "-Infinity") : pythonFloatRepr(n);
    }
    if (Array.isArray(v)) {
      if (v.length === 0) return "[]";
      return `[\n${v.map((x) => pad(depth + 1) + dump(x, depth + 1)).join(",\n")}\n${pad(depth)}]`;
    }
    if (typeof v === "object") {
      const obj = v as Record<string, unknown>;
      const keys = orderedKeys(obj).filter((k) => obj[k] !== undefined);
      if (keys.length === 0) return "{}";
      return `{\n${keys.map((k) => `${pad(depth + 1)}${str(k)}: ${dump(obj[k], depth + 1)}`).join(",\n")}\n${pad(depth)}}`;
    }
    return str(String(v));
  };
  return dump(value, 0);
}

const JSON_ESCAPES: Record<string, string> = { '"': '\\"', "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b", "\f": "\\f" };

/** A JSON string with every non-ASCII UTF-16 unit as `\uXXXX`, as `ensure_ascii` writes it. */
function jsonAsciiString(s: string): string {
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    const code = s.charCodeAt(i);
    if (JSON_ESCAPES[c]) out += JSON_ESCAPES[c];
    else if (code < 0x20 || code > 0x7e) out += `\\u${code.toString(16).padStart(4, "0")}`;
    else out += c;
  }
  return out + '"';
}

/**
 * A JSON string as `ensure_ascii=False` writes it: `JSON.stringify` escapes the same characters
 * the same way (`"`, `\\`, `\b\f\n\r\t`, other controls as lower-case `\u00xx`), except a lone
 * surrogate, which Python could not encode to UTF-8 at all: escaped, the file stays valid UTF-8.
 */
const jsonUnicodeString = (s: string): string => JSON.stringify(s);
