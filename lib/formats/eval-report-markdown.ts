/**
 * Reads a generated markdown report into the JSON shape reference reports use:
 * `# Title` → `title`; `## Section` → a key; `### Subsection` → a key inside its section;
 * two-column table rows and `**Label:** value` lines → fields; rows of wider tables → the
 * list of their other cells. A header row (one followed by a `|---|` rule) is skipped,
 * whatever its text. Prose becomes the section's value when it has no fields, or its `text`
 * field when it has some; paragraphs keep a newline between them, and `<img>` tags go.
 */

type Container = { fields: Record<string, unknown>; text: string[] };

// Linear patterns only: reports come from submitters, and a backtracking pattern on one long
// line would stall validation (closing #s and table rules are handled in code below).
const HEADING = /^(#{1,6})\s+(.*)$/;
const RULE_CELL = /^:?-{2,}:?$/;
const LABEL_LINE = /^(?:[-*+]\s+)?\*\*([^*]+?)(?::\*\*|\*\*\s*:)\s*(.*)$/;

export function parseMarkdownReport(markdown: string): Record<string, unknown> {
  return readMarkdown(markdown);
}

function readMarkdown(markdown: string): Record<string, unknown> {
  const root: Container = { fields: {}, text: [] };
  let section: Container | null = null;
  let sub: Container | null = null;
  let table: string[] = [];
  let inFence = false;
  const sections: [string, Container, Map<string, Container>][] = [];
  let subsOf = new Map<string, Container>();
  let title: string | null = null;

  const current = () => sub ?? section ?? root;
  const flushTable = () => {
    if (table.length) readTable(table, current());
    table = [];
  };

  for (const rawLine of markdown.split(/\r?\n/)) {
    const line = rawLine.trim();
    if (line.startsWith("```")) {
      flushTable();
      inFence = !inFence;
      continue;
    }
    if (inFence) {
      if (line) current().text.push(line);
      continue;
    }
    if (line.startsWith("|")) {
      table.push(line);
      continue;
    }
    flushTable();
    const h = HEADING.exec(line);
    if (h) {
      const level = h[1]!.length;
      const name = cleanKey(stripClosingHashes(h[2]!));
      if (level === 1 && title === null) {
        title = name;
      } else if (level <= 2 || (level === 3 && !section)) {
        section = { fields: {}, text: [] };
        sub = null;
        subsOf = new Map();
        sections.push([name, section, subsOf]);
      } else if (level === 3) {
        sub = { fields: {}, text: [] };
        subsOf.set(uniqueKey(name, subsOf), sub);
      } else {
        current().text.push(name);
      }
      continue;
    }
    const label = LABEL_LINE.exec(line);
    if (label) {
      const c = current();
      c.fields[uniqueKey(cleanKey(label[1]!), c.fields)] = cleanText(label[2]!);
      continue;
    }
    const text = cleanText(line);
    if (text) current().text.push(text);
    else if (line === "") current().text.push("");
  }
  flushTable();

  const out: Record<string, unknown> = {};
  if (title !== null) out.title = title;
  const rootValue = valueOf(root);
  if (typeof rootValue === "string" ? rootValue !== "" : Object.keys(rootValue).length) {
    if (typeof rootValue === "string") out.text = rootValue;
    else Object.assign(out, rootValue);
  }
  for (const [name, c, subs] of sections) {
    const fields: Record<string, unknown> = { ...c.fields };
    for (const [subName, s] of subs) fields[uniqueKey(subName, fields)] = valueOf(s);
    out[uniqueKey(name, out)] = valueOf({ fields, text: c.text });
  }
  return out;
}

function valueOf(c: Container): Record<string, unknown> | string {
  const text = joinParagraphs(c.text);
  if (Object.keys(c.fields).length === 0) return text;
  return text ? { ...c.fields, [uniqueKey("text", c.fields)]: text } : c.fields;
}

/** Lines of a paragraph joined by a space, paragraphs by a newline. */
function joinParagraphs(lines: string[]): string {
  const paragraphs: string[] = [];
  let cur: string[] = [];
  for (const l of lines) {
    if (l === "") {
      if (cur.length) paragraphs.push(cur.join(" "));
      cur = [];
    } else cur.push(l);
  }
  if (cur.length) paragraphs.push(cur.join(" "));
  return paragraphs.join("\n");
}

function readTable(rows: string[], into: Container): void {
  const cells = rows.map(splitRow);
  const hasHeader = rows.length > 1 && isRuleRow(rows[1]!);
  cells.forEach((row, i) => {
    if (isRuleRow(rows[i]!) || (hasHeader && i === 0)) return;
    const [key, ...rest] = row;
    if (key === undefined || key === "" || rest.length === 0) return;
    into.fields[uniqueKey(key, into.fields)] = rest.length === 1 ? rest[0] : rest;
  });
}

function splitRow(row: string): string[] {
  let t = row.trim();
  if (t.startsWith("|")) t = t.slice(1);
  if (t.endsWith("|") && !t.endsWith("\\|")) t = t.slice(0, -1);
  return t.split(/(?<!\\)\|/).map((c) => cleanText(c.replace(/\\\|/g, "|")));
}

function cleanKey(s: string): string {
  return cleanText(s).replace(/:$/, "").trim();
}

/** Emphasis markers around the whole cell and `<img>` tags removed, whitespace trimmed. */
function cleanText(s: string): string {
  let t = removeImgTags(s).trim();
  const m = /^(\*\*|__|\*|_|`)(.*)\1$/.exec(t);
  if (m) t = m[2]!.trim();
  return t;
}

/** `key`, or `key (2)`, `key (3)`… when a container already holds it. */
function uniqueKey(key: string, taken: Record<string, unknown> | Map<string, unknown>): string {
  const has = (k: string) => (taken instanceof Map ? taken.has(k) : Object.prototype.hasOwnProperty.call(taken, k));
  if (!has(key)) return key;
  for (let n = 2; ; n++) if (!has(`${key} (${n})`)) return `${key} (${n})`;
}

/** `Title ##` → `Title`: a heading's optional closing hashes and the spaces around them. */
function stripClosingHashes(text: string): string {
  let end = text.trimEnd().length;
  while (end > 0 && text[end - 1] === "#") end--;
  return text.slice(0, end).trimEnd();
}

/** `|---|:--:|`: a table's header rule, every cell dashes with optional alignment colons. */
function isRuleRow(row: string): boolean {
  const cells = row.trim().replace(/^\|/, "").replace(/\|$/, "").split("|");
  return cells.every((c) => RULE_CELL.test(c.trim()));
}

/**
 * `<img …>` tags removed. A scan rather than a regex: `<img\b[^>]*>` retried from every `<img`
 * of a long line with no `>` is quadratic.
 */
function removeImgTags(s: string): string {
  let out = "";
  let from = 0;
  for (let at = s.indexOf("<", from); at !== -1; at = s.indexOf("<", at + 1)) {
    // `<img` in any case, then a word boundary.
    if (s.slice(at + 1, at + 4).toLowerCase() !== "img" || (at + 4 < s.length && WORD_CHAR.test(s[at + 4]!))) continue;
    const close = s.indexOf(">", at + 4);
    // No `>` left: no later `<img` can close either.
    if (close === -1) break;
    out += s.slice(from, at);
    from = close + 1;
    at = close;
  }
  return out + s.slice(from);
}

const WORD_CHAR = /[\p{L}\p{N}_]/u;

// ---------------------------------------------------------------------------------------
// VSS's reading (`--compat nat`). What its report evaluator gets from a generated report,
// rule for rule, so scores match VSS's even where its rules drop information:
// - `# ` sets `title` (the last one wins); `## ` starts a section, `### ` a subsection;
//   headings without the space after the hashes, and deeper ones, are not headings.
// - A section or subsection appears only once it has table rows (or, in a section named
//   "Analysis Results", text lines); a section with both a table and subsections keeps only
//   the subsections; a later section of the same name replaces the earlier one.
// - Table rows: cells trimmed, asterisks stripped from their ends, empty cells dropped; a row
//   with at least two cells whose first is not "field" (any case) maps the first to the
//   second, or to the list of the rest; rows starting `|---` are rules. Text lines: `<img>`
//   tags removed, lines joined with nothing between them, `[mm:ss]`-style markers removed.
// - `**Incident Snapshot:**` and `**Incident Video:**` lines put their link (a `(http…)` on
//   the line, else a URL opening the next line; for the video, the next two lines, blank
//   ones skipped) under a top-level "Resources".
// ---------------------------------------------------------------------------------------

type VssValue = Record<string, unknown> | string;

export function readMarkdownAsVss(content: string): Record<string, unknown> {
  const lines = content.split("\n");
  const result: Record<string, unknown> = {};
  let section: string | null = null;
  let subsection: string | null = null;
  let table: string[] = [];
  let text: string[] = [];

  const sectionObject = (name: string): Record<string, unknown> => {
    if (!Object.hasOwn(result, name)) put(result, name, {});
    const v = result[name];
    // VSS fails on a section that already holds text; so does this (the evaluator records the error).
    if (typeof v !== "object" || v === null) throw new Error(`the report's section "${name}" holds text and cannot take the subsection "${subsection}"`);
    return v as Record<string, unknown>;
  };
  // Python's truth tests: an empty section or subsection name counts as none.
  const flush = () => {
    if (subsection) put(sectionObject(section!), subsection, vssTableOrText(table, text));
    else put(result, section!, vssTableOrText(table, text));
  };

  for (let i = 0; i < lines.length; i++) {
    const line = pyStrip(lines[i]!);
    if (line.startsWith("# ")) {
      put(result, "title", pyStrip(line.slice(2)));
    } else if (line.startsWith("## ")) {
      if ((table.length || text.length) && section) {
        flush();
        table = [];
        text = [];
      }
      section = pyStrip(line.slice(3));
      subsection = null;
    } else if (line.startsWith("### ")) {
      if ((table.length || text.length) && section) {
        // Without a subsection, the section's own rows are dropped.
        if (subsection) flush();
        else if (!Object.hasOwn(result, section)) put(result, section, {});
        table = [];
        text = [];
      }
      subsection = pyStrip(line.slice(4));
      if (section !== null && !Object.hasOwn(result, section)) put(result, section, {});
    } else if (line.startsWith("|")) {
      table.push(line);
    } else if (line.startsWith("**Incident Snapshot:**")) {
      const url = parenthesisedLink(line) ?? (i + 1 < lines.length ? leadingUrl(pyStrip(lines[i + 1]!)) : null);
      const resources = resourcesOf(result);
      if (url !== null) put(resources, "Incident Snapshot", url);
    } else if (line.startsWith("**Incident Video:**")) {
      let url = parenthesisedLink(line);
      for (let j = i + 1; url === null && j < Math.min(i + 3, lines.length); j++) {
        const next = pyStrip(lines[j]!);
        if (next) url = leadingUrl(next);
      }
      const resources = resourcesOf(result);
      if (url !== null) put(resources, "Incident Video", url);
    } else if (section === "Analysis Results" && line) {
      text.push(line);
    }
  }
  if ((table.length || text.length) && section) flush();
  return result;
}

function resourcesOf(result: Record<string, unknown>): Record<string, unknown> {
  if (!Object.hasOwn(result, "Resources")) put(result, "Resources", {});
  const v = result.Resources;
  if (typeof v !== "object" || v === null) throw new Error(`the report's section "Resources" holds text and cannot take a link`);
  return v as Record<string, unknown>;
}

/** `obj[key] = value` as Python's dict does it: any key (even `__proto__`) an own, enumerable property. */
function put(obj: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(obj, key, { value, writable: true, enumerable: true, configurable: true });
}

/** The text of the first `(http…)` with something after `http` and a closing parenthesis. */
function parenthesisedLink(line: string): string | null {
  for (let at = line.indexOf("(http"); at !== -1; at = line.indexOf("(http", at + 1)) {
    const close = line.indexOf(")", at + 5);
    if (close === -1) return null;
    if (close > at + 5) return line.slice(at + 1, close);
  }
  return null;
}

/** A URL at the start of a line, up to the first whitespace. */
function leadingUrl(line: string): string | null {
  return /^https?:\/\/\S+/.exec(line)?.[0] ?? null;
}

function vssTableOrText(table: readonly string[], text: readonly string[]): VssValue {
  if (table.length === 0) {
    const joined = text.map((t) => pyStrip(removeImgTags(t))).filter((t) => t !== "").join("");
    return pyStrip(joined.replace(TIME_MARKER, ""));
  }
  const out: Record<string, unknown> = {};
  for (const raw of table) {
    const line = pyStrip(raw);
    if (!line || line.startsWith("|---") || line === "|") continue;
    const cells = line.split("|").map((c) => stripAsterisks(pyStrip(c))).filter((c) => c !== "");
    if (cells.length >= 2 && cells[0]!.toLowerCase() !== "field") put(out, cells[0]!, cells.length === 2 ? cells[1] : cells.slice(1));
  }
  return out;
}

function stripAsterisks(s: string): string {
  let start = 0;
  let end = s.length;
  while (start < end && s[start] === "*") start++;
  while (end > start && s[end - 1] === "*") end--;
  return s.slice(start, end);
}

// `[12.5]`, `[0:07s]`, `[01:10 - 01:30]`: a time is seconds with one or two decimals, or
// m:ss, each with an optional "s"; a second time after a dash makes a range.
const TIME = String.raw`(?:\d+\.\d{1,2}s?|\d{1,2}:\d{2}s?)`;
const TIME_MARKER = new RegExp(String.raw`\[\s*${TIME}(?:\s*-\s*${TIME})?\s*\]`, "g");

// What Python's str.strip() removes (str.isspace): JavaScript's trim() also takes U+FEFF, a
// byte-order mark VSS keeps, and misses U+001C–U+001F and U+0085.
const PY_SPACE = /[\t\n\v\f\r\x1c-\x20\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]/;

function pyStrip(s: string): string {
  let start = 0;
  let end = s.length;
  while (start < end && PY_SPACE.test(s[start]!)) start++;
  while (end > start && PY_SPACE.test(s[end - 1]!)) end--;
  return s.slice(start, end);
}
