/**
 * Text a submitter controls that must not reach a page, a comment or a terminal as is: C0
 * control characters (except tab and newline), DEL, and the bidirectional overrides and
 * isolates that make a name display differently from what it is. The GitHub issue form and
 * the validator of CLI bundles refuse the same characters with this one rule.
 */

/** C0 controls except tab (U+0009) and newline (U+000A), DEL, U+202A–U+202E and U+2066–U+2069. */
export const UNSAFE_TEXT = /[\u0000-\u0008\u000b-\u001f\u007f\u202a-\u202e\u2066-\u2069]/;

/** What the form and the validator say when text holds such a character. */
export const UNSAFE_TEXT_EXPECTED = "expected no control or bidirectional-override characters";

/** True when the text holds none of the refused characters. */
export function isSafeText(text: string): boolean {
  return !UNSAFE_TEXT.test(text);
}

/** The first refused character and its index, or null. */
export function firstUnsafeChar(text: string): { index: number; codePoint: string } | null {
  const m = UNSAFE_TEXT.exec(text);
  if (!m) return null;
  return { index: m.index, codePoint: `U+${m[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, "0")}` };
}
