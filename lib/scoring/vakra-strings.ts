/**
 * The strings VAKRA's scorer compares and sends to its judges (compat: vakra): each tool
 * response as `"" if x is None else str(x)`, answers flattened to the first cell of each
 * row, and texts with whitespace collapsed and lower-cased as its judges normalise them.
 */
import type { AnswerValue } from "../formats/dialogue";
import { pythonStr } from "../formats/python-str";

/** A tool response as VAKRA's exact-match stage compares it. */
export function vakraResponseString(response: unknown): string {
  return response === null || response === undefined ? "" : pythonStr(response);
}

/**
 * A reference answer as VAKRA stringifies it: a list contributes `str(row[0])` of each
 * non-empty row and `str(x)` of each non-list element, joined by ", "; anything else is
 * `str(answer)`. So `[[None]]` is "None", `[[25.0]]` "25.0" and `[[[1.25]]]` "[1.25]".
 */
export function vakraAnswerString(answer: AnswerValue | undefined): string {
  if (answer === null || answer === undefined) return "";
  if (!Array.isArray(answer)) return pythonStr(answer);
  const parts: string[] = [];
  for (const item of answer) {
    if (!Array.isArray(item)) parts.push(pythonStr(item));
    else if (item.length > 0) parts.push(pythonStr(item[0]));
  }
  return parts.join(", ");
}

/** A predicted answer: a string as written, anything else as a reference is stringified. */
export function vakraPredictionString(answer: AnswerValue | undefined): string {
  return typeof answer === "string" ? answer : vakraAnswerString(answer);
}

// Python's str.isspace() characters: what its `\s` and `strip()` treat as whitespace.
const PY_SPACE = "\\t\\n\\v\\f\\r\\x1c-\\x1f \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000";
const SPACE_RUN = new RegExp(`[${PY_SPACE}]+`, "g");
const EDGES = new RegExp(`^[${PY_SPACE}]+|[${PY_SPACE}]+$`, "g");

/** VAKRA's judge normalisation: stripped, whitespace runs made one space, lower-cased. */
export function vakraNormalise(text: string): string {
  return text.replace(EDGES, "").replace(SPACE_RUN, " ").toLowerCase();
}
