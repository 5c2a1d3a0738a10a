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
  let t = s.replace(/<img\b[^>]*>/gi, "").trim();
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
