/**
 * How much of any submitted text a page renders. Every string a submitter controls (names,
 * descriptions, answers, arguments, tool responses, reasons, validation messages) is cut to a
 * length here, every list to a count, so one hostile entry cannot make a page of megabytes.
 * Public pages use PUBLIC_RENDER_LIMITS; a signed-in maintainer may ask for FULL_RENDER_LIMITS
 * (`?full=1`), which are larger but still bounded. Change the numbers here.
 */

export interface RenderLimits {
  /** Agent, model, maintainer and link names, domains, codes. */
  name: number;
  /** Prose: descriptions, reasons, queries, string answers, validation messages. */
  text: number;
  /** One JSON value (an answer, a call's arguments, a tool response): characters of its strings in all. */
  json: number;
  /** Items of a list shown on one page: tool calls, responses, verdicts, models, links, warning codes. */
  list: number;
  /** Events of a submission's status timeline shown (the latest). */
  timeline: number;
}

export const PUBLIC_RENDER_LIMITS: RenderLimits = { name: 200, text: 4_000, json: 20_000, list: 50, timeline: 100 };
export const FULL_RENDER_LIMITS: RenderLimits = { name: 10_000, text: 1_000_000, json: 2_000_000, list: 1_000, timeline: 2_000 };

/** How deep a JSON value is shown; deeper parts become a marker. */
const MAX_JSON_DEPTH = 32;

/** Counts what was cut, so a page can say so (and offer maintainers the whole of it). */
export interface Clipper {
  readonly limits: RenderLimits;
  /** How many values were shortened. */
  cuts: number;
  text(s: string, max?: number): string;
  name(s: string): string;
  /** A value read from the database as its first characters and its full length (see `prefixOf`). */
  prefix(p: { head: string; length: number }, max?: number): string;
  list<T>(items: readonly T[], max?: number): T[];
  json(value: unknown): unknown;
}

/** `s` cut to `max` characters (never inside a surrogate pair), with a note of how much was cut. */
export function clipText(s: string, max: number): { text: string; cut: boolean } {
  if (s.length <= max) return { text: s, cut: false };
  let end = Math.max(0, max);
  const code = s.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end--;
  return { text: `${s.slice(0, end)}… [${(s.length - end).toLocaleString("en-US")} more characters]`, cut: true };
}

export function createClipper(limits: RenderLimits = PUBLIC_RENDER_LIMITS): Clipper {
  const c: Clipper = {
    limits,
    cuts: 0,
    text(s, max = limits.text) {
      const out = clipText(typeof s === "string" ? s : String(s ?? ""), max);
      if (out.cut) c.cuts++;
      return out.text;
    },
    name(s) {
      return c.text(s, limits.name);
    },
    prefix({ head, length }, max = limits.text) {
      if (length <= max && head.length <= max) return head;
      c.cuts++;
      return `${clipText(head, max).text.replace(/… \[[\d,]+ more characters\]$/, "")}… [${Math.max(1, length - max).toLocaleString("en-US")} more characters]`;
    },
    list(items, max = limits.list) {
      if (items.length <= max) return [...items];
      c.cuts++;
      return items.slice(0, max);
    },
    json(value) {
      const budget = { left: limits.json };
      const out = clipJson(value, budget, 0, limits.list);
      if (out.cut) c.cuts++;
      return out.value;
    },
  };
  return c;
}

/**
 * A JSON value with its strings sharing one character budget, arrays and objects cut to
 * `maxItems` entries, and nesting cut at MAX_JSON_DEPTH. Cut places say how much is missing.
 */
function clipJson(value: unknown, budget: { left: number }, depth: number, maxItems: number): { value: unknown; cut: boolean } {
  if (value === null || typeof value === "number" || typeof value === "boolean") return { value, cut: false };
  if (typeof value === "string") {
    const out = clipText(value, Math.max(0, budget.left));
    budget.left -= Math.min(value.length, Math.max(0, budget.left));
    return { value: out.text, cut: out.cut };
  }
  if (typeof value !== "object") return { value: String(value), cut: false };
  if (depth >= MAX_JSON_DEPTH) return { value: "… [nested too deep to show]", cut: true };
  let cut = false;
  if (Array.isArray(value)) {
    const out: unknown[] = [];
    for (const v of value) {
      if (out.length >= maxItems || budget.left <= 0) break;
      const r = clipJson(v, budget, depth + 1, maxItems);
      cut ||= r.cut;
      out.push(r.value);
    }
    if (out.length < value.length) {
      out.push(`… [${(value.length - out.length).toLocaleString("en-US")} more items]`);
      cut = true;
    }
    return { value: out, cut };
  }
  const out: Record<string, unknown> = {};
  const keys = Object.keys(value);
  let shown = 0;
  for (const k of keys) {
    if (shown >= maxItems || budget.left <= 0) break;
    const key = clipText(k, 200);
    budget.left -= key.text.length;
    const r = clipJson((value as Record<string, unknown>)[k], budget, depth + 1, maxItems);
    cut ||= r.cut || key.cut;
    // defineProperty: a key such as "__proto__" stays a plain key.
    Object.defineProperty(out, key.text, { value: r.value, enumerable: true, writable: true, configurable: true });
    shown++;
  }
  if (shown < keys.length) {
    Object.defineProperty(out, "…", { value: `${(keys.length - shown).toLocaleString("en-US")} more keys`, enumerable: true, writable: true, configurable: true });
    cut = true;
  }
  return { value: out, cut };
}
