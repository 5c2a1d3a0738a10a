/**
 * Reads the Python literals NAT writes into trajectories (`{'name': 'x', 'args': {'n': 3}}`,
 * `True`, `None`, tuples) as JSON values. Only literals: no names, calls or expressions, so
 * a hostile string can do nothing but fail to parse. Returns undefined when the text is not
 * one complete literal.
 */
export function parsePythonLiteral(text: string): unknown {
  let i = 0;
  const n = text.length;
  const fail = Symbol("fail");
  type Result = unknown | typeof fail;

  const ws = () => {
    while (i < n && /\s/.test(text[i]!)) i++;
  };

  const readString = (): Result => {
    let prefix = "";
    while (i < n && /[rRbBuU]/.test(text[i]!)) prefix += text[i++];
    const raw = /r/i.test(prefix);
    const q = text[i];
    if (q !== "'" && q !== '"') return fail;
    const triple = text.slice(i, i + 3) === q.repeat(3);
    const close = triple ? q.repeat(3) : q;
    i += close.length;
    let out = "";
    while (i < n) {
      if (text.startsWith(close, i)) {
        i += close.length;
        return out;
      }
      const c = text[i]!;
      if (c === "\\" && !raw) {
        const e = text[i + 1];
        const simple: Record<string, string> = { n: "\n", t: "\t", r: "\r", "\\": "\\", "'": "'", '"': '"', "0": "\0", a: "\x07", b: "\b", f: "\f", v: "\v", "\n": "" };
        if (e !== undefined && e in simple) {
          out += simple[e];
          i += 2;
        } else if (e === "x" || e === "u" || e === "U") {
          const len = e === "x" ? 2 : e === "u" ? 4 : 8;
          const hex = text.slice(i + 2, i + 2 + len);
          if (!new RegExp(`^[0-9a-fA-F]{${len}}$`).test(hex)) return fail;
          out += String.fromCodePoint(parseInt(hex, 16));
          i += 2 + len;
        } else {
          out += c;
          i++;
        }
      } else {
        if (!triple && c === "\n") return fail;
        out += c;
        i++;
      }
    }
    return fail;
  };

  const readSequence = (closer: string): Result => {
    const items: unknown[] = [];
    ws();
    if (text[i] === closer) {
      i++;
      return items;
    }
    for (;;) {
      const v = readValue();
      if (v === fail) return fail;
      items.push(v);
      ws();
      if (text[i] === ",") {
        i++;
        ws();
        if (text[i] === closer) {
          i++;
          return items;
        }
        continue;
      }
      if (text[i] === closer) {
        i++;
        return items;
      }
      return fail;
    }
  };

  const readDict = (): Result => {
    const out: Record<string, unknown> = {};
    ws();
    if (text[i] === "}") {
      i++;
      return out;
    }
    for (;;) {
      const k = readValue();
      if (k === fail || (typeof k !== "string" && typeof k !== "number" && typeof k !== "boolean" && k !== null)) return fail;
      ws();
      if (text[i] !== ":") return fail;
      i++;
      const v = readValue();
      if (v === fail) return fail;
      out[String(k)] = v;
      ws();
      if (text[i] === ",") {
        i++;
        ws();
        if (text[i] === "}") {
          i++;
          return out;
        }
        continue;
      }
      if (text[i] === "}") {
        i++;
        return out;
      }
      return fail;
    }
  };

  function readValue(): Result {
    ws();
    const c = text[i];
    if (c === undefined) return fail;
    if (c === "{") {
      i++;
      return readDict();
    }
    if (c === "[") {
      i++;
      return readSequence("]");
    }
    if (c === "(") {
      i++;
      return readSequence(")");
    }
    if (c === "'" || c === '"' || (/[rRbBuU]/.test(c) && /^[rRbBuU]{1,2}['"]/.test(text.slice(i, i + 3)))) {
      // Adjacent literals concatenate, as in Python.
      let s = readString();
      if (s === fail) return fail;
      for (;;) {
        const save = i;
        ws();
        if (text[i] === "'" || text[i] === '"') {
          const next = readString();
          if (next === fail) return fail;
          s = (s as string) + (next as string);
        } else {
          i = save;
          return s;
        }
      }
    }
    const word = /^(True|False|None|-?(?:\d[\d_]*)?\.?\d[\d_]*(?:[eE][-+]?\d+)?|-?inf|nan)/.exec(text.slice(i, i + 64));
    if (!word) return fail;
    i += word[0].length;
    switch (word[0]) {
      case "True":
        return true;
      case "False":
        return false;
      case "None":
        return null;
      default: {
        const num = Number(word[0].replace(/_/g, ""));
        return Number.isFinite(num) ? num : fail;
      }
    }
  }

  const v = readValue();
  ws();
  return v === fail || i < n ? undefined : v;
}

/** A tool's input as an object: JSON text, a Python literal, or the value itself. */
export function parseStructuredText(value: unknown): unknown {
  if (typeof value !== "string") return value;
  const t = value.trim();
  if (t === "") return value;
  try {
    return JSON.parse(t);
  } catch {
    const py = parsePythonLiteral(t);
    return py === undefined ? value : py;
  }
}
