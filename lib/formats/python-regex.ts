/**
 * A Python `re` pattern in JavaScript's spelling: named groups (`(?P<name>…)`, `(?P=name)`),
 * `\A`/`\Z`, and leading inline flags (`(?i)`, `(?s)`, `(?m)`) as RegExp flags. NAT's report
 * evaluator and its `report_url_pattern` are Python patterns.
 */
export type PythonPattern = { ok: true; source: string; flags: string } | { ok: false; error: string };

export function translatePythonPattern(pattern: string): PythonPattern {
  let flags = "";
  let body = pattern;
  const inline = /^\(\?([aiLmsux]+)\)/.exec(body);
  if (inline) {
    if (/[Lx]/.test(inline[1]!)) return { ok: false, error: `inline flag ${JSON.stringify(inline[0])} is not supported` };
    flags = [...new Set(inline[1]!.replace(/[au]/g, ""))].join("");
    body = body.slice(inline[0].length);
  }
  const source = body.replace(/\(\?P</g, "(?<").replace(/\(\?P=(\w+)\)/g, "\\k<$1>").replace(/\\A/g, "^").replace(/\\Z/g, "$");
  return { ok: true, source, flags };
}

/** The pattern compiled (Unicode mode when it allows), or why it cannot be. */
export function compilePythonPattern(pattern: string, wrap: (source: string) => string = (s) => s): { ok: true; re: RegExp } | { ok: false; error: string } {
  const t = translatePythonPattern(pattern);
  if (!t.ok) return t;
  try {
    return { ok: true, re: new RegExp(wrap(t.source), `u${t.flags}`) };
  } catch {
    try {
      return { ok: true, re: new RegExp(wrap(t.source), t.flags) };
    } catch (err) {
      return { ok: false, error: err instanceof Error ? err.message.replace(/^Invalid regular expression: /, "") : String(err) };
    }
  }
}
