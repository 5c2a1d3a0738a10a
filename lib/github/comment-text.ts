/**
 * Submitted text in the bot's GitHub comments. Every value a submitter controls (agent name,
 * domain, status, error text, download errors, reasons, file names) goes through
 * `commentText` before it is put in a comment, and every comment through `fitComment`
 * before it is sent, so that nothing submitted can:
 *
 * - mention anyone (`@user`, `@org/team`) or reference another issue (`#12`, `GH-12`,
 *   `owner/repo#12`): GitHub finds these in the rendered text, so backslash escapes do not
 *   stop them; a zero-width space after `@` and `#` does;
 * - link anywhere (`[click](…)`, `<https://…>`, a bare `https://…` or `www.…` autolink):
 *   brackets are escaped and a zero-width space breaks every scheme and `www.`;
 * - add HTML, images, emphasis, headings, tables, code, math or block structure: `& < >` become
 *   entities, Markdown punctuation is backslash-escaped, newlines become spaces, and a value
 *   that would start a block (a list, quote, heading) is escaped at its start;
 * - reorder what is shown (bidirectional overrides become U+FFFD) or hide in control characters;
 * - push the comment over GitHub's 65,536-character limit: each value is capped, and the whole
 *   comment is cut to a budget with a link to the full report.
 *
 * Pure: no GitHub calls, no environment.
 */

/** GitHub refuses comment bodies longer than this (HTTP 422). */
export const GITHUB_COMMENT_LIMIT = 65_536;

/**
 * What a bot comment is cut to, below GitHub's limit with room to spare (GitHub counts
 * characters, JavaScript UTF-16 units, which are never fewer). Change it per call with
 * `fitComment(…, { maxChars })`.
 */
export const COMMENT_MAX_CHARS = 60_000;

/** How many characters of one submitted value a comment shows by default (`commentText`'s `maxChars`). */
export const VALUE_MAX_CHARS = 500;

const ZWSP = "\u200b";
// C0 and C1 controls except tab, newline and carriage return (those become spaces).
const CONTROLS = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/g;
// Bidirectional marks, embeddings, overrides and isolates: they can make text display
// differently from what it is.
const BIDI = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
const WHITESPACE = /[\s\u2028\u2029]+/g;
// Markdown punctuation that can start or end markup inline (`$` is GitHub's math).
const MARKDOWN = /[\\`*[\]()#|~!{}$^]/g;
// `_` makes emphasis only next to a non-alphanumeric character; inside a word
// (`host_not_allowed`) it is left readable.
const LOOSE_UNDERSCORE = /(?<![\p{L}\p{N}])_|_(?![\p{L}\p{N}])/gu;
// What would open a block if the value began a line: a list, a quote, a setext underline.
const BLOCK_START = /^([-+=>]|\d{1,9}[.)])/;

export interface CommentTextOptions {
  /** Characters of the value to keep before "… (N more characters)" (default VALUE_MAX_CHARS). */
  maxChars?: number;
}

/**
 * A submitted value as inert, single-line comment text: shown as written, but unable to
 * mention, link, format or overflow. Anything (not only strings) is accepted and stringified.
 */
export function commentText(value: unknown, options: CommentTextOptions = {}): string {
  const max = Math.max(1, Math.floor(options.maxChars ?? VALUE_MAX_CHARS));
  let text = (typeof value === "string" ? value : String(value ?? ""))
    .replace(CONTROLS, "")
    .replace(BIDI, "\ufffd")
    .replace(WHITESPACE, " ")
    .trim();
  let more = "";
  if (text.length > max) {
    let cut = max;
    // Never split a surrogate pair.
    if (/[\ud800-\udbff]/.test(text[cut - 1] ?? "")) cut--;
    more = ` … (${(text.length - cut).toLocaleString("en-US")} more characters)`;
    text = text.slice(0, cut).trimEnd();
  }
  const escaped = text
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(MARKDOWN, "\\$&")
    .replace(LOOSE_UNDERSCORE, "\\_")
    // Found by GitHub in rendered text, where an escape no longer is: break them instead.
    .replace(/@/g, `@${ZWSP}`)
    .replace(/#/g, `#${ZWSP}`)
    .replace(/\b(GH)-(?=\d)/gi, `$1${ZWSP}-`)
    .replace(/:\/\//g, `:${ZWSP}//`)
    .replace(/\b(www)\./gi, `$1${ZWSP}.`)
    .replace(/\b(mailto|xmpp|tel|data|javascript):/gi, `$1${ZWSP}:`)
    .replace(BLOCK_START, (m) => (/\d/.test(m) ? `${m.slice(0, -1)}\\${m.slice(-1)}` : `\\${m}`));
  return escaped + more;
}

/**
 * Several lines of submitted text (a problem list, a reason over several lines) as inert
 * comment lines, each through `commentText`; at most `maxLines` are kept.
 */
export function commentLines(value: unknown, options: CommentTextOptions & { maxLines?: number } = {}): string[] {
  const maxLines = options.maxLines ?? 20;
  const lines = String(value ?? "")
    .split(/\r\n?|\n/)
    .map((l) => commentText(l, options))
    .filter((l) => l !== "");
  if (lines.length <= maxLines) return lines;
  return [...lines.slice(0, maxLines), `… and ${lines.length - maxLines} more line(s)`];
}

export interface FitCommentOptions {
  /** Default COMMENT_MAX_CHARS; never more than GITHUB_COMMENT_LIMIT. */
  maxChars?: number;
  /** Where the whole report can be read (our own page), linked when the comment is cut. */
  fullReportUrl?: string;
}

/**
 * The comment as it can be sent: unchanged when it fits, else cut at a line boundary (an open
 * code fence is closed) with a note and a link to the full report.
 */
export function fitComment(body: string, options: FitCommentOptions = {}): string {
  const max = Math.min(GITHUB_COMMENT_LIMIT, Math.max(200, Math.floor(options.maxChars ?? COMMENT_MAX_CHARS)));
  if (body.length <= max) return body;
  const where = options.fullReportUrl ? ` The full report: ${options.fullReportUrl}` : "";
  const note = `\n\n---\n_This comment was shortened to fit GitHub's limit of ${GITHUB_COMMENT_LIMIT.toLocaleString("en-US")} characters._${where}\n`;
  const room = max - note.length - 8; // 8: a closing fence, if one is needed
  let kept = body.slice(0, Math.max(0, room));
  const lineEnd = kept.lastIndexOf("\n");
  if (lineEnd > room / 2) kept = kept.slice(0, lineEnd);
  else if (/[\ud800-\udbff]$/.test(kept)) kept = kept.slice(0, -1);
  // A fence left open would swallow the note.
  const fences = kept.split("\n").filter((l) => /^ {0,3}(`{3,}|~{3,})/.test(l)).length;
  if (fences % 2 === 1) kept += "\n```";
  return kept.trimEnd() + note;
}
