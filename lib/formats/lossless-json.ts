/**
 * JSON read the way Python's `json.loads` reads it. `JSON.parse` loses three things VAKRA's
 * comparisons depend on: a float written `314328.0` becomes the integer 314328, integers
 * beyond 2^53 round to their neighbours, and integer-like object keys move to the front in
 * numeric order. This reader returns the same plain values as `JSON.parse`, except that:
 *
 * - a number JavaScript cannot hold as Python does is a {@link JsonNumber} (an integral or
 *   non-finite float literal, or an integer outside the safe range), carrying its source text;
 * - an object with integer-like keys carries the file's key order under {@link KEY_ORDER}.
 *
 * Everything else (strings, safe integers, other floats) is the value `JSON.parse` gives, so
 * code that does not care about Python's forms reads the result as ordinary JSON. Like
 * Python, `NaN`, `Infinity` and `-Infinity` are accepted.
 */

import { unpinned } from "./unpinned";

/**
 * A number whose Python form a JavaScript number cannot carry. An integer's source is already
 * Python's `str()` of it (JSON allows no leading zeros, and "-0" is read as 0).
 */
export class JsonNumber {
  /** Python's type for the literal: a literal with `.`, `e` or `E` is a float. */
  readonly kind: "int" | "float";
  constructor(readonly source: string) {
    this.kind = /^-?(?:NaN|Infinity)$|[.eE]/.test(source) ? "float" : "int";
  }
  /** The nearest double: what `JSON.parse` would have given. */
  valueOf(): number {
    return this.source === "NaN" ? Number.NaN : Number(this.source);
  }
  toJSON(): number | null {
    const n = this.valueOf();
    return Number.isFinite(n) ? n : null;
  }
  toString(): string {
    return this.source;
  }
}

/** The file's key order of an object whose keys JavaScript would reorder. */
export const KEY_ORDER: unique symbol = Symbol("agentboard.keyOrder");

export type KeyOrdered = Record<string, unknown> & { [KEY_ORDER]?: readonly string[] };

/** Own keys in the order the file wrote them. */
export function orderedKeys(obj: object): string[] {
  const order = (obj as KeyOrdered)[KEY_ORDER];
  return order ? [...order] : Object.keys(obj);
}

/** A JSON number (plain or {@link JsonNumber}) as a double, or undefined for anything else. */
export function numberValue(v: unknown): number | undefined {
  if (typeof v === "number") return v;
  if (v instanceof JsonNumber) return v.valueOf();
  return undefined;
}

/** Deep copy with every {@link JsonNumber} turned into its double: what `JSON.parse` gives. */
export function toPlainJson(v: unknown): unknown {
  if (v instanceof JsonNumber) return v.valueOf();
  if (Array.isArray(v)) return v.map(toPlainJson);
  if (v && typeof v === "object") {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v)) define(out, k, toPlainJson((v as Record<string, unknown>)[k]));
    return out;
  }
  return v;
}

export class LosslessJsonError extends SyntaxError {
  constructor(
    message: string,
    readonly offset: number,
  ) {
    super(message);
    this.name = "LosslessJsonError";
  }
}

/** Deeper than any file we accept (read-json's MAX_JSON_DEPTH), shallow enough for the stack. */
const MAX_DEPTH = 512;
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
const INTEGER_KEY = /^(?:0|[1-9]\d{0,9})$/;
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][-+]?\d+)?/y;

function define(obj: Record<string, unknown>, key: string, value: unknown): void {
  // An own "__proto__" key, as JSON.parse makes it, never the prototype setter.
  if (key === "__proto__") Object.defineProperty(obj, key, { value, writable: true, enumerable: true, configurable: true });
  else obj[key] = value;
}

/** Parses JSON text. Throws {@link LosslessJsonError} with the offset of the first problem. */
export function parseLosslessJson(text: string): unknown {
  let i = 0;
  const n = text.length;
  const fail = (expected: string): never => {
    throw new LosslessJsonError(`expected ${expected} at offset ${i}`, i);
  };
  const ws = () => {
    for (; i < n; i++) {
      const c = text.charCodeAt(i);
      if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) break;
    }
  };
  const string = (): string => {
    const start = i;
    i++;
    let escaped = false;
    for (; i < n; i++) {
      const c = text.charCodeAt(i);
      if (c === 0x22) break;
      if (c === 0x5c) {
        escaped = true;
        i++;
      } else if (c < 0x20) fail("no raw control character inside a string");
    }
    if (i >= n) fail("a closing quote");
    i++;
    // A copy: a slice would keep the whole file's text alive as long as the value lives.
    if (!escaped) return unpinned(text.slice(start + 1, i - 1));
    try {
      return JSON.parse(text.slice(start, i)) as string;
    } catch {
      i = start;
      return fail("a valid string escape");
    }
  };
  const number = (): unknown => {
    const start = i;
    for (const word of ["NaN", "Infinity", "-Infinity"]) {
      if (text.startsWith(word, i)) {
        i += word.length;
        return new JsonNumber(word);
      }
    }
    NUMBER.lastIndex = i;
    const m = NUMBER.exec(text);
    if (!m) return fail("a value");
    // A copy, as for strings: a regular expression's match is a slice of the file's text.
    const src = unpinned(m[0]);
    i = start + src.length;
    if (/[.eE]/.test(src)) {
      const v = Number(src);
      return Number.isInteger(v) || !Number.isFinite(v) ? new JsonNumber(src) : v;
    }
    if (src.length < 16) return src === "-0" ? 0 : Number(src);
    // A literal has no leading zeros, so more than 17 characters is beyond 2^53 whatever it says.
    if (src.length > 17) return new JsonNumber(src);
    const big = BigInt(src);
    return big <= MAX_SAFE && big >= -MAX_SAFE ? Number(big) : new JsonNumber(src);
  };
  const value = (depth: number): unknown => {
    if (depth > MAX_DEPTH) fail(`at most ${MAX_DEPTH} levels of nesting`);
    ws();
    const c = text.charCodeAt(i);
    if (c === 0x22) return string();
    if (c === 0x7b) {
      i++;
      const obj: Record<string, unknown> = {};
      let order: string[] | undefined;
      const keys: string[] = [];
      ws();
      if (text.charCodeAt(i) === 0x7d) {
        i++;
        return obj;
      }
      for (;;) {
        ws();
        if (text.charCodeAt(i) !== 0x22) fail("a string key");
        const key = string();
        ws();
        if (text.charCodeAt(i) !== 0x3a) fail('":"');
        i++;
        const v = value(depth + 1);
        if (!Object.prototype.hasOwnProperty.call(obj, key)) {
          keys.push(key);
          if (!order && INTEGER_KEY.test(key)) order = keys;
        }
        define(obj, key, v);
        ws();
        const d = text.charCodeAt(i++);
        if (d === 0x2c) continue;
        if (d === 0x7d) break;
        i--;
        fail('"," or "}"');
      }
      if (order) Object.defineProperty(obj, KEY_ORDER, { value: order, enumerable: false });
      return obj;
    }
    if (c === 0x5b) {
      i++;
      const arr: unknown[] = [];
      ws();
      if (text.charCodeAt(i) === 0x5d) {
        i++;
        return arr;
      }
      for (;;) {
        arr.push(value(depth + 1));
        ws();
        const d = text.charCodeAt(i++);
        if (d === 0x2c) continue;
        if (d === 0x5d) break;
        i--;
        fail('"," or "]"');
      }
      return arr;
    }
    if (text.startsWith("true", i)) {
      i += 4;
      return true;
    }
    if (text.startsWith("false", i)) {
      i += 5;
      return false;
    }
    if (text.startsWith("null", i)) {
      i += 4;
      return null;
    }
    return number();
  };
  const result = value(0);
  ws();
  if (i < n) fail("the end of the input");
  return result;
}
