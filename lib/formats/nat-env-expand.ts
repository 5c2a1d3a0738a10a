/**
 * NAT's environment-variable expansion in config files (the `expandvars` package NAT calls
 * with `surrounded_vars_only=True`): `${NAME}`, `${NAME:-default}` / `${NAME-default}` (the
 * default when NAME is unset or empty, itself expanded, so defaults nest), `${NAME:=default}`
 * (also sets NAME for the rest of the load), `${NAME:+alternative}` and `${NAME:?message}`.
 * A bare `$NAME` is left as written at the top level (NAT's current rule), but expanded inside
 * a default, as NAT does. `\$` is a literal `$` and `\\` one backslash; any other backslash
 * stays. An unset NAME without a default becomes "" as in NAT, and each such use is returned
 * (with its offsets) so the caller can refuse the ones evaluation reads. The rarely used forms
 * (`${#NAME}`, `${!NAME}`, `${NAME:offset:length}`, `$$`) are refused with the reason.
 */

/** The environment as the expansion sees it; `:=` writes to it, as NAT writes os.environ. */
export type ExpansionEnv = Map<string, string>;

/** One use of an unset variable with no default: its name and where it is in the input. */
export interface UnsetUse {
  name: string;
  start: number;
  end: number;
}

export type ExpansionResult = { ok: true; text: string; unset: UnsetUse[] } | { ok: false; error: string; at: number };

/** The most text one expansion may produce: a config, not a way to fill memory. */
export const MAX_EXPANDED_CHARS = 16 * 1024 * 1024;
/** How deep defaults may nest (`${A:-${B:-…}}`): far beyond any config, well within the stack. */
export const MAX_NESTING = 32;

class ExpansionError extends Error {
  constructor(
    message: string,
    readonly at: number,
  ) {
    super(message);
  }
}

// Python's str.isalnum() or "_": names may hold any letter or digit, as in expandvars.
const isNameChar = (c: string | undefined) => c !== undefined && (c === "_" || /[\p{L}\p{N}]/u.test(c));

export function expandNatVariables(input: string, env: ExpansionEnv, limit = MAX_EXPANDED_CHARS): ExpansionResult {
  try {
    const r = expand(input, 0, input.length, env, true, limit, 0);
    return { ok: true, text: r.text, unset: r.unset };
  } catch (err) {
    if (err instanceof ExpansionError) return { ok: false, error: err.message, at: err.at };
    throw err;
  }
}

/** Expands input[from, to); `surrounded` is NAT's top-level rule (only `${…}` expands). */
function expand(input: string, from: number, to: number, env: ExpansionEnv, surrounded: boolean, limit: number, depth: number): { text: string; unset: UnsetUse[] } {
  if (depth > MAX_NESTING) throw new ExpansionError(`defaults nest more than ${MAX_NESTING} deep`, from);
  const out: string[] = [];
  const unset: UnsetUse[] = [];
  let size = 0;
  const push = (s: string) => {
    size += s.length;
    if (size > limit) throw new ExpansionError(`expanding variables makes the config longer than ${limit} characters`, from);
    out.push(s);
  };
  let i = from;
  while (i < to) {
    const c = input[i]!;
    if (c === "\\") {
      const next = i + 1 < to ? input[i + 1] : undefined;
      if (next === undefined) throw new ExpansionError("a backslash at the very end escapes nothing (NAT's expansion refuses it); remove it or double it", i);
      push(next === "$" || next === "\\" ? next : c + next);
      i += 2;
    } else if (c === "$") {
      const next = i + 1 < to ? input[i + 1] : undefined;
      if (next === "{" || (!surrounded && (next === "$" || isNameChar(next)))) {
        const ref = readReference(input, i, to);
        const value = resolve(ref, input, env, limit, depth);
        push(value.text);
        unset.push(...value.unset);
        i = ref.end;
      } else {
        push(c);
        i += 1;
      }
    } else {
      push(c);
      i += 1;
    }
  }
  return { text: out.join(""), unset };
}

interface Reference {
  name: string;
  start: number;
  end: number;
  /** "-", "=", "+", "?", or null for a plain reference. */
  op: "-" | "=" | "+" | "?" | null;
  /** The operand's bounds in the input, unexpanded. */
  operand: [number, number] | null;
}

/** Reads `${…}` or `$NAME` starting at `start` (the `$`), as expandvars reads it. */
function readReference(input: string, start: number, to: number): Reference {
  let j = start + 1;
  const text = () => input.slice(start, Math.min(j + 1, to));
  if (input[j] !== "{") {
    // A bare $NAME (only inside a default): the name is the longest run of name characters.
    if (input[j] === "$") throw new ExpansionError("$$ is NAT's process id, which a config cannot rely on; write \\$ for a literal $", start);
    let name = "";
    while (j < to && isNameChar(input[j])) name += input[j++];
    return { name, start, end: j, op: null, operand: null };
  }
  j += 1;
  if (input[j] === "!" || input[j] === "#") {
    throw new ExpansionError(`${input[j] === "!" ? "indirect ${!NAME}" : "length ${#NAME}"} expansion is not supported; use \${NAME} or \${NAME:-default}`, start);
  }
  let name = "";
  if (input[j] === "$") throw new ExpansionError("${$} is NAT's process id, which a config cannot rely on", start);
  while (j < to && isNameChar(input[j])) name += input[j++];
  if (j >= to) throw new ExpansionError(`${input.slice(start, to)}: missing '}'`, start);
  if (name === "") throw new ExpansionError(`${text()}: bad substitution (expected a variable name after \${)`, start);
  if (input[j] === "}") return { name, start, end: j + 1, op: null, operand: null };
  if (input[j] === ":") j += 1;
  const op = input[j];
  if (op !== "-" && op !== "=" && op !== "+" && op !== "?") {
    throw new ExpansionError(`\${${name}${input.slice(start + 2 + name.length, Math.min(j + 1, to))}…}: only \${NAME}, \${NAME:-default}, \${NAME:=default}, \${NAME:+value} and \${NAME:?message} are supported`, start);
  }
  j += 1;
  const operandStart = j;
  let depth = 0;
  for (; j < to; j++) {
    const c = input[j];
    if (c === "{") depth++;
    else if (c === "}") {
      if (depth === 0) return { name, start, end: j + 1, op, operand: [operandStart, j] };
      depth--;
    }
  }
  throw new ExpansionError(`\${${name}…: missing '}'`, start);
}

function resolve(ref: Reference, input: string, env: ExpansionEnv, limit: number, depth: number): { text: string; unset: UnsetUse[] } {
  const value = env.get(ref.name);
  if (ref.op === null) return value === undefined ? { text: "", unset: [{ name: ref.name, start: ref.start, end: ref.end }] } : { text: value, unset: [] };
  // expandvars expands the operand before looking at the value, so its errors and `:=` happen either way.
  const operand = expand(input, ref.operand![0], ref.operand![1], env, false, limit, depth + 1);
  const isSet = value !== undefined && value !== "";
  switch (ref.op) {
    case "-":
      return isSet ? { text: value, unset: [] } : operand;
    case "=":
      if (isSet) return { text: value, unset: [] };
      env.set(ref.name, operand.text);
      return operand;
    case "+":
      return isSet ? operand : { text: "", unset: [] };
    case "?":
      if (isSet) return { text: value, unset: [] };
      throw new ExpansionError(`${ref.name}: ${operand.text || "parameter null or not set"}`, ref.start);
  }
}

/** 1-based line of an offset, for messages. */
export function lineOf(text: string, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset && i < text.length; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}
