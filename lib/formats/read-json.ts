/**
 * Strict decoding of JSON files: UTF-8 checked byte by byte, syntax errors reported with
 * line and column, so a submitter can find the exact spot.
 */
import { childPath } from "./diagnostic";
import { locateJsonError } from "./locate-json-error";
import { JsonNumber, parseLosslessJson } from "./lossless-json";

export type JsonReadResult =
  | { ok: true; value: unknown; hadBom: boolean }
  | { ok: false; code: "not_utf8" | "json_syntax"; message: string };

// ignoreBOM keeps a leading BOM in the text, so it can be reported rather than silently dropped.
const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

export interface ReadJsonOptions {
  /**
   * Read numbers and keys as Python's `json.loads` does (lossless-json.ts), for files whose
   * values are compared as Python renders them. Only files that may need it pay for the
   * slower reader.
   */
  pythonValues?: boolean;
  /** The bytes' `scanJson(...).mayLoseFidelity`, when the caller has scanned them already. */
  mayLoseFidelity?: boolean;
}

export function readJson(bytes: Uint8Array, options: ReadJsonOptions = {}): JsonReadResult {
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    const offset = firstInvalidUtf8Offset(bytes);
    return {
      ok: false,
      code: "not_utf8",
      message: `file is not valid UTF-8: invalid byte 0x${(bytes[offset] ?? 0).toString(16).padStart(2, "0")} at byte offset ${offset}; expected UTF-8 encoded JSON`,
    };
  }
  const hadBom = text.charCodeAt(0) === 0xfeff;
  if (hadBom) text = text.slice(1);
  if (options.pythonValues && (options.mayLoseFidelity ?? mayLoseFidelity(bytes))) {
    try {
      return { ok: true, value: parseLosslessJson(text), hadBom };
    } catch {
      // fall through: JSON.parse's failure is described precisely below
    }
  }
  try {
    return { ok: true, value: JSON.parse(text), hadBom };
  } catch (err) {
    return { ok: false, code: "json_syntax", message: describeSyntaxError(text, err) };
  }
}

function describeSyntaxError(text: string, err: unknown): string {
  const problem = locateJsonError(text);
  if (!problem) return `invalid JSON: ${err instanceof Error ? err.message : String(err)}`;
  const { line, column } = lineColumn(text, problem.offset);
  const found = problem.offset >= text.length ? "the end of the file (truncated JSON?)" : JSON.stringify(text.slice(problem.offset, problem.offset + 12));
  return `invalid JSON at line ${line}, column ${column} (offset ${problem.offset}): expected ${problem.expected}, found ${found}`;
}

export function lineColumn(text: string, pos: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < pos && i < text.length; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: pos - lineStart + 1 };
}

/** Byte offset of the first byte that breaks UTF-8 (only called once decoding has failed). */
export function firstInvalidUtf8Offset(b: Uint8Array): number {
  let i = 0;
  while (i < b.length) {
    const c = b[i]!;
    let need: number;
    let min: number;
    if (c < 0x80) { i++; continue; }
    else if (c >= 0xc2 && c <= 0xdf) { need = 1; min = 0x80; }
    else if (c >= 0xe0 && c <= 0xef) { need = 2; min = 0x800; }
    else if (c >= 0xf0 && c <= 0xf4) { need = 3; min = 0x10000; }
    else return i;
    if (i + need >= b.length) return i;
    let cp = c & (0x3f >> need);
    for (let k = 1; k <= need; k++) {
      const cc = b[i + k];
      if (cc === undefined || (cc & 0xc0) !== 0x80) return i;
      cp = (cp << 6) | (cc & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return i;
    i += need + 1;
  }
  return b.length;
}

/** How deep a submitted file may nest: far beyond any real record, well within the stack. */
export const MAX_JSON_DEPTH = 64;

/**
 * The JSON path of the first value nested deeper than `limit`, or null. The recursion stops
 * at `limit`, so a hostile file cannot overflow the stack here; the path is built only on
 * the way back from a find. Callers refuse such values before the recursive code downstream
 * (canonical JSON, prompts, storage) meets them.
 */
export function tooDeepAt(value: unknown, limit: number, base = "$"): string | null {
  const found = deepPath(value, limit, 0);
  return found === null ? null : base + found;
}

function deepPath(v: unknown, limit: number, depth: number): string | null {
  if (typeof v !== "object" || v === null || v instanceof JsonNumber) return null;
  if (depth >= limit) return "";
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const p = deepPath(v[i], limit, depth + 1);
      if (p !== null) return `[${i}]${p}`;
    }
    return null;
  }
  for (const k in v) {
    const p = deepPath((v as Record<string, unknown>)[k], limit, depth + 1);
    if (p !== null) return `${/^[A-Za-z_$][\w$]*$/.test(k) ? `.${k}` : `[${JSON.stringify(k)}]`}${p}`;
  }
  return null;
}

export interface JsonScanLimits {
  /** Deepest nesting of objects and arrays (the root is level 1). */
  maxDepth: number;
  /** JSON values of any kind. */
  maxValues: number;
  /** Elements of a top-level array, or keys of a top-level object. */
  maxRecords: number;
}

export type JsonScanResult =
  | {
      ok: true;
      values: number;
      records: number;
      /**
       * Whether JSON.parse may read a value differently from Python's json.loads (so the
       * lossless reader is needed): a number with an integral fraction (`2.0`) or an exponent,
       * 16 or more digits, `-0`, `NaN` or `Infinity`, or an integer-like key (or one written
       * with escapes). Never false when the two readers would differ.
       */
      mayLoseFidelity: boolean;
    }
  | { ok: false; code: "too_deep" | "too_many_values" | "too_many_records"; message: string; path: string; record?: number };

interface Frame {
  array: boolean;
  index: number;
  keyStart: number;
  keyEnd: number;
  expectKey: boolean;
}

const unbounded: JsonScanLimits = { maxDepth: Infinity, maxValues: Infinity, maxRecords: Infinity };

/**
 * One linear pass over JSON bytes, before JSON.parse, that bounds what parsing would build:
 * nesting depth, number of values and number of top-level records. It allocates nothing per
 * value (a frame per nesting level, at most `maxDepth + 1`), so a hostile file is refused for
 * the price of reading its bytes once; strings are skipped with a native search for their
 * closing quote. On the way it notes whether the lossless reader is needed. It is not a
 * validator: malformed JSON is counted approximately and left to JSON.parse to report.
 */
export function scanJson(bytes: Uint8Array, limits: JsonScanLimits = unbounded): JsonScanResult {
  const n = bytes.length;
  const stack: Frame[] = [];
  let values = 0;
  let records = 0;
  let expectValue = true;
  let lossy = false;
  const rootIs = (array: boolean) => stack.length === 1 && stack[0]!.array === array;
  const pathHere = (): string => {
    let p = "$";
    for (const f of stack) p = f.array ? childPath(p, f.index) : childPath(p, decodeKey(bytes, f.keyStart, f.keyEnd));
    return p;
  };
  const startValue = (): JsonScanResult | undefined => {
    values++;
    expectValue = false;
    if (values > limits.maxValues) return { ok: false, code: "too_many_values", message: `file holds more than ${limits.maxValues} JSON values; expected at most ${limits.maxValues}`, path: pathHere() };
    if (rootIs(true)) {
      records++;
      if (records > limits.maxRecords) {
        return { ok: false, code: "too_many_records", message: `file holds more than ${limits.maxRecords} records; expected at most ${limits.maxRecords} per file`, path: pathHere(), record: stack[0]!.index };
      }
    }
    return undefined;
  };
  for (let i = 0; i < n; i++) {
    const c = bytes[i]!;
    if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) continue;
    if (c === 0x22) {
      const start = i;
      i = closingQuote(bytes, i + 1);
      const top = stack[stack.length - 1];
      if (top && !top.array && top.expectKey) {
        top.keyStart = start;
        top.keyEnd = i + 1;
        top.expectKey = false;
        if (!lossy) lossy = movableKey(bytes, start + 1, i);
        if (stack.length === 1) {
          records++;
          if (records > limits.maxRecords) {
            return { ok: false, code: "too_many_records", message: `file holds more than ${limits.maxRecords} records; expected at most ${limits.maxRecords} per file`, path: pathHere() };
          }
        }
      } else if (expectValue) {
        const bad = startValue();
        if (bad) return bad;
      }
      continue;
    }
    if (c === 0x7b || c === 0x5b) {
      if (expectValue) {
        const bad = startValue();
        if (bad) return bad;
      }
      if (stack.length >= limits.maxDepth) {
        return { ok: false, code: "too_deep", message: `value nested more than ${limits.maxDepth} levels deep; expected at most ${limits.maxDepth}`, path: pathHere() };
      }
      stack.push({ array: c === 0x5b, index: 0, keyStart: 0, keyEnd: 0, expectKey: c === 0x7b });
      expectValue = c === 0x5b;
      continue;
    }
    if (c === 0x7d || c === 0x5d) {
      stack.pop();
      expectValue = false;
      continue;
    }
    if (c === 0x2c) {
      const top = stack[stack.length - 1];
      if (top?.array) {
        top.index++;
        expectValue = true;
      } else if (top) top.expectKey = true;
      continue;
    }
    if (c === 0x3a) {
      expectValue = true;
      continue;
    }
    // A scalar's first byte (its other bytes find expectValue false); a number is read whole.
    if (expectValue) {
      const bad = startValue();
      if (bad) return bad;
      if ((c >= 0x30 && c <= 0x39) || c === 0x2d) {
        const end = numberEnd(bytes, i);
        if (!lossy) lossy = losesFidelity(bytes, i, end);
        i = end - 1;
      } else if (c === 0x4e || c === 0x49) lossy = true; // NaN, Infinity: only the lossless reader takes them
    }
  }
  return { ok: true, values, records, mayLoseFidelity: lossy };
}

/** Whether JSON.parse may read these bytes differently from Python: see JsonScanResult. */
export function mayLoseFidelity(bytes: Uint8Array): boolean {
  const scan = scanJson(bytes);
  return !scan.ok || scan.mayLoseFidelity;
}

/** Index of the quote closing a string whose first byte is at `from` (or the end of the bytes). */
function closingQuote(bytes: Uint8Array, from: number): number {
  for (let q = from; ; q++) {
    q = bytes.indexOf(0x22, q);
    if (q < 0) return bytes.length;
    let k = q - 1;
    while (k >= from && bytes[k] === 0x5c) k--;
    // An even run of backslashes before it escapes only itself: the quote closes the string.
    if ((q - 1 - k) % 2 === 0) return q;
  }
}

/** End (exclusive) of the number token starting at `i`. */
function numberEnd(bytes: Uint8Array, i: number): number {
  for (i++; i < bytes.length; i++) {
    const d = bytes[i]!;
    if (!((d >= 0x30 && d <= 0x39) || d === 0x2e || d === 0x65 || d === 0x45 || d === 0x2b || d === 0x2d)) break;
  }
  return i;
}

/** A number literal JavaScript may read differently from Python (see lossless-json.ts). */
function losesFidelity(bytes: Uint8Array, start: number, end: number): boolean {
  const from = bytes[start] === 0x2d ? start + 1 : start;
  const next = bytes[from];
  if (next === 0x49 || next === 0x4e) return true; // -Infinity, -NaN
  // 16 or more digits (with the point): a long integer, or a fraction past a double's precision.
  if (end - from >= 16) return true;
  if (from > start && end - from === 1 && next === 0x30) return true; // -0
  let dot = -1;
  let zeros = true;
  for (let k = from; k < end; k++) {
    const d = bytes[k]!;
    if (d === 0x65 || d === 0x45) return true; // an exponent: Python keeps a float
    if (d === 0x2e) dot = k;
    else if (dot >= 0 && d !== 0x30) zeros = false;
  }
  return dot >= 0 && zeros; // 2.0, 2.00: an integral float
}

/** A key JavaScript would move (integer-like), or one written with escapes (which could spell one). */
function movableKey(bytes: Uint8Array, start: number, end: number): boolean {
  if (end <= start) return false;
  for (let k = start; k < end; k++) {
    const d = bytes[k]!;
    if (d === 0x5c) return true;
    if (d < 0x30 || d > 0x39) return false;
  }
  return true;
}

function decodeKey(bytes: Uint8Array, start: number, end: number): string {
  const raw = Buffer.from(bytes.buffer, bytes.byteOffset + start, Math.min(end - start, 2_000)).toString("utf8");
  try {
    const k: unknown = JSON.parse(raw);
    if (typeof k === "string") return k;
  } catch {
    // a key cut short or malformed: show it as written
  }
  return raw.replace(/^"|"$/g, "");
}
