/**
 * A string cut from a larger one (a value the JSON readers took from a file's text) may be a
 * V8 "sliced string" that keeps the whole text alive. Whatever outlives the file (ids kept for
 * the report, kept diagnostics) is copied first, so memory follows the largest file, not the
 * sum of them.
 */

/** `s` as a string of its own: the same characters, sharing no memory with the text it came from. */
export function unpinned(s: string): string {
  // Below 13 characters V8 copies rather than slices. Otherwise the concatenation is flattened
  // into a new string, and the slice then hangs off that copy, not off the file's text.
  return s.length < 13 ? s : ` ${s}`.slice(1);
}
