/**
 * Strict decoding of JSON files: UTF-8 checked byte by byte, syntax errors reported with
 * line and column, so a submitter can find the exact spot.
 */
import { locateJsonError } from "./locate-json-error";

export type JsonReadResult =
  | { ok: true; value: unknown; hadBom: boolean }
  | { ok: false; code: "not_utf8" | "json_syntax"; message: string };

// ignoreBOM keeps a leading BOM in the text, so it can be reported rather than silently dropped.
const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

export function readJson(bytes: Uint8Array): JsonReadResult {
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
  if (typeof v !== "object" || v === null) return null;
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
