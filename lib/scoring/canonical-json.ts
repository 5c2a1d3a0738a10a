/**
 * Comparable forms of tool responses. `canonicalJson` (strict) treats a JSON-looking string
 * and the value it encodes alike and sorts object keys. `pythonStr` reproduces Python's
 * `str()` of the same value, which is what VAKRA compares (compat: vakra).
 */
export function canonicalJson(value: unknown): string {
  if (typeof value === "string") {
    const t = value.trim();
    if ((t.startsWith("{") && t.endsWith("}")) || (t.startsWith("[") && t.endsWith("]"))) {
      try {
        return canonicalJson(JSON.parse(t));
      } catch {
        // not JSON after all: compare as text
      }
    }
    return JSON.stringify(value);
  }
  return stableStringify(value);
}

function stableStringify(value: unknown): string {
  if (value === null || value === undefined) return "null";
  if (typeof value === "number") return Number.isFinite(value) ? JSON.stringify(value === 0 ? 0 : value) : "null";
  if (typeof value !== "object") return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(stableStringify).join(",")}]`;
  const obj = value as Record<string, unknown>;
  const keys = Object.keys(obj).filter((k) => obj[k] !== undefined).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${stableStringify(obj[k])}`).join(",")}}`;
}

export function pythonStr(value: unknown): string {
  return typeof value === "string" ? value : pythonRepr(value);
}

function pythonRepr(value: unknown): string {
  if (value === null || value === undefined) return "None";
  if (value === true) return "True";
  if (value === false) return "False";
  if (typeof value === "number") {
    if (Number.isInteger(value) && !Object.is(value, -0)) return String(value);
    return pythonFloat(value);
  }
  if (typeof value === "string") return pythonStringRepr(value);
  if (Array.isArray(value)) return `[${value.map(pythonRepr).join(", ")}]`;
  const entries = Object.entries(value as Record<string, unknown>);
  return `{${entries.map(([k, v]) => `${pythonStringRepr(k)}: ${pythonRepr(v)}`).join(", ")}}`;
}

/** Python's float repr: shortest round-trip digits, exponent form below 1e-4 or from 1e16. */
function pythonFloat(n: number): string {
  if (Number.isNaN(n)) return "nan";
  if (!Number.isFinite(n)) return n > 0 ? "inf" : "-inf";
  if (n === 0) return Object.is(n, -0) ? "-0.0" : "0.0";
  const [mantissa, expText] = n.toExponential().split("e") as [string, string];
  const exp = Number(expText);
  if (exp < -4 || exp >= 16) return `${mantissa}e${exp < 0 ? "-" : "+"}${String(Math.abs(exp)).padStart(2, "0")}`;
  const s = n.toFixed(Math.max(0, (mantissa.split(".")[1]?.length ?? 0) - exp));
  return s.includes(".") ? s : `${s}.0`;
}

/** Python prefers single quotes unless the string holds one and no double quote. */
function pythonStringRepr(s: string): string {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = quote;
  for (const ch of s) {
    if (ch === "\\") out += "\\\\";
    else if (ch === quote) out += `\\${quote}`;
    else if (ch === "\n") out += "\\n";
    else if (ch === "\r") out += "\\r";
    else if (ch === "\t") out += "\\t";
    else if (ch < " " || ch === "\x7f") out += `\\x${ch.charCodeAt(0).toString(16).padStart(2, "0")}`;
    else out += ch;
  }
  return out + quote;
}
