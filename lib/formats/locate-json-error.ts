/**
 * Finds where JSON text first goes wrong, for error messages (V8's own message often lacks
 * the position). Runs only after JSON.parse has failed. Iterative, with an explicit stack, so
 * hostile nesting depth cannot overflow the call stack.
 */
export interface JsonSyntaxProblem {
  offset: number;
  expected: string;
}

const WS = new Set([0x20, 0x09, 0x0a, 0x0d]);

export function locateJsonError(text: string): JsonSyntaxProblem | undefined {
  let i = 0;
  const n = text.length;
  const stack: ("[" | "{")[] = [];
  const skipWs = () => {
    while (i < n && WS.has(text.charCodeAt(i))) i++;
  };
  const fail = (expected: string): JsonSyntaxProblem => ({ offset: i, expected });

  /** Reads a string starting at text[i] === '"'. */
  const readString = (): JsonSyntaxProblem | undefined => {
    i++;
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c === 0x22) {
        i++;
        return undefined;
      }
      if (c < 0x20) return fail("a closing quote (control characters must be escaped)");
      if (c === 0x5c) {
        const e = text[i + 1];
        if (e === "u") {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) return fail("four hex digits after \\u");
          i += 6;
        } else if (e !== undefined && '"\\/bfnrt'.includes(e)) i += 2;
        else return fail("a valid escape sequence");
      } else i++;
    }
    return fail("a closing quote");
  };

  /** Reads one scalar or opens a container; returns true when a container was opened. */
  const readValue = (): JsonSyntaxProblem | boolean => {
    skipWs();
    if (i >= n) return fail("a value");
    const c = text[i]!;
    if (c === "[" || c === "{") {
      stack.push(c);
      i++;
      return true;
    }
    if (c === '"') return readString() ?? false;
    const lit = /^(true|false|null|-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?)/.exec(text.slice(i, i + 400));
    if (!lit) return fail("a value (string, number, object, array, true, false or null)");
    i += lit[0].length;
    return false;
  };

  let r = readValue();
  if (typeof r === "object") return r;
  while (stack.length) {
    const top = stack[stack.length - 1]!;
    skipWs();
    // r is true only right after the top container was opened.
    const justOpened = r === true;
    if (justOpened && (text[i] === (top === "[" ? "]" : "}"))) {
      i++;
      stack.pop();
      r = false;
      continue;
    }
    if (!justOpened) {
      if (i >= n) return fail(top === "[" ? "',' or ']'" : "',' or '}'");
      if (text[i] === (top === "[" ? "]" : "}")) {
        i++;
        stack.pop();
        r = false;
        continue;
      }
      if (text[i] !== ",") return fail(top === "[" ? "',' or ']' after an array element" : "',' or '}' after a property");
      i++;
      skipWs();
    }
    if (top === "{") {
      if (text[i] !== '"') return fail("a double-quoted property name");
      const s = readString();
      if (s) return s;
      skipWs();
      if (text[i] !== ":") return fail("':' after a property name");
      i++;
    }
    r = readValue();
    if (typeof r === "object") return r;
  }
  skipWs();
  return i < n ? fail("the end of the file (extra data after the JSON value)") : undefined;
}
