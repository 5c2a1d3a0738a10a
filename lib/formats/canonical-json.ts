/**
 * Comparable forms of tool responses. `canonicalJson` (strict) treats a JSON-looking string
 * and the value it encodes alike, sorts object keys and compares numbers by value (a big
 * integer by all its digits). `pythonStr` (lib/formats/python-str.ts, compat: vakra) reproduces Python's `str()` of
 * the same value, which is what VAKRA compares.
 */
import { JsonNumber, parseLosslessJson } from "./lossless-json";

export function canonicalJson(value: unknown): string {
  if (typeof value === "string") {
    const t = value.trim();
    if ((t.startsWith("{") && t.endsWith("}")) || (t.startsWith("[") && t.endsWith("]"))) {
      try {
        return stableStringify(parseLosslessJson(t));
      } catch {
        // not JSON after all: compare as text
      }
    }
    return JSON.stringify(value);
  }
  return stableStringify(value);
}

/** Sorted keys, numbers by value; built in place (this runs for every response the exact-match stage compares). */
function stableStringify(value: unknown): string {
  if (value === null || value === undefined) return "null";
  if (typeof value === "string") return JSON.stringify(value);
  if (typeof value === "number") return Number.isFinite(value) ? String(value === 0 ? 0 : value) : "null";
  if (typeof value !== "object") return JSON.stringify(value);
  if (value instanceof JsonNumber) return value.kind === "int" ? value.source : stableStringify(value.valueOf());
  if (Array.isArray(value)) {
    let out = "[";
    for (let i = 0; i < value.length; i++) out += (i === 0 ? "" : ",") + stableStringify(value[i]);
    return `${out}]`;
  }
  const obj = value as Record<string, unknown>;
  const keys = Object.keys(obj).sort();
  let out = "{";
  for (const k of keys) {
    const v = obj[k];
    if (v === undefined) continue;
    out += (out.length === 1 ? "" : ",") + JSON.stringify(k) + ":" + stableStringify(v);
  }
  return `${out}}`;
}
