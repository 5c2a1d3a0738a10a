/**
 * String lengths in a parsed outputs file, checked before any reader sees the records: each
 * string is held to the limit of what it is (an answer, a tool call's arguments, a tool
 * response, a name, a query, error text, an identifier), found from the keys on its path.
 * The walk is linear and bounded in depth (depth is refused earlier); a path is built only
 * for a breach.
 */
import { childPath, type DiagnosticSink } from "../formats/diagnostic";
import type { ValidationLimits } from "./limits";

type LimitName = keyof ValidationLimits & `max${string}Chars`;

interface Kind {
  what: string;
  limit: LimitName;
}

const K = {
  answer: { what: "answer", limit: "maxAnswerChars" },
  report: { what: "report", limit: "maxReportChars" },
  arguments: { what: "tool-call argument", limit: "maxArgumentChars" },
  responses: { what: "tool response", limit: "maxResponseChars" },
  query: { what: "query", limit: "maxQueryChars" },
  error: { what: "error text", limit: "maxErrorChars" },
  name: { what: "name", limit: "maxNameChars" },
  identifier: { what: "identifier", limit: "maxIdentifierChars" },
  text: { what: "string", limit: "maxTextChars" },
} satisfies Record<string, Kind>;

/** Keys whose whole subtree is of one kind. */
const SUBTREE: Record<string, Kind> = {
  answer: K.answer,
  generated_answer: K.answer,
  report: K.report,
  arguments: K.arguments,
  params: K.arguments,
  tool_input: K.arguments,
  tool_response: K.responses,
  tool_responses: K.responses,
  trajectory: K.responses,
  intermediate_steps: K.responses,
};

/** Keys whose string value (directly) is of one kind. */
const LEAF: Record<string, Kind> = {
  query: K.query,
  question: K.query,
  error: K.error,
  name: K.name,
  label: K.name,
  uuid: K.identifier,
  id: K.identifier,
  domain: K.identifier,
  status: K.identifier,
  turn_id: K.identifier,
  report_path: K.identifier,
};

const own = (table: Record<string, Kind>, key: string): Kind | undefined => (Object.hasOwn(table, key) ? table[key] : undefined);

/** Reports every string (and key) over its limit; returns how many there were. */
export function checkStringLimits(value: unknown, sink: DiagnosticSink, limits: ValidationLimits): number {
  let breaches = 0;
  const segments: (string | number)[] = [];
  let record: number | undefined;
  let uuid: string | undefined;

  const where = () => {
    let path = "$";
    for (const s of segments) path = childPath(path, s);
    return { path, ...(record !== undefined ? { record } : {}), ...(uuid !== undefined ? { uuid } : {}) };
  };
  const tooLong = (what: string, length: number, limit: LimitName) => {
    breaches++;
    sink.error("string_too_long", `${what} is ${length} characters long; expected at most ${limits[limit]} (limits.${limit})`, where());
  };

  const walk = (v: unknown, inherited: Kind | undefined, key: string | undefined): void => {
    if (typeof v === "string") {
      const kind = inherited ?? (key !== undefined ? own(LEAF, key) : undefined) ?? K.text;
      if (v.length > limits[kind.limit]) tooLong(kind.what, v.length, kind.limit);
      return;
    }
    if (typeof v !== "object" || v === null) return;
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        segments.push(i);
        walk(v[i], inherited, key);
        segments.pop();
      }
      return;
    }
    for (const k in v) {
      if (k.length > limits.maxKeyChars) {
        segments.push(k.slice(0, 40) + "…");
        tooLong("object key", k.length, "maxKeyChars");
        segments.pop();
        continue;
      }
      segments.push(k);
      walk((v as Record<string, unknown>)[k], inherited ?? own(SUBTREE, k), k);
      segments.pop();
    }
  };

  const idOf = (r: unknown): string | undefined => {
    if (typeof r !== "object" || r === null || Array.isArray(r)) return undefined;
    const id = (r as Record<string, unknown>).uuid ?? (r as Record<string, unknown>).id;
    if (typeof id === "number") return String(id);
    return typeof id === "string" && id.length <= limits.maxIdentifierChars ? id : undefined;
  };

  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      record = i;
      uuid = idOf(value[i]);
      segments.push(i);
      walk(value[i], undefined, undefined);
      segments.pop();
    }
  } else if (typeof value === "object" && value !== null) {
    // Outputs keyed by id: each key is the record's id.
    for (const k in value) {
      uuid = k.length <= limits.maxIdentifierChars ? k : undefined;
      if (uuid === undefined) {
        segments.push(k.slice(0, 40) + "…");
        tooLong("item id (object key)", k.length, "maxIdentifierChars");
        segments.pop();
        continue;
      }
      segments.push(k);
      walk((value as Record<string, unknown>)[k], undefined, undefined);
      segments.pop();
    }
  } else walk(value, undefined, undefined);
  return breaches;
}
