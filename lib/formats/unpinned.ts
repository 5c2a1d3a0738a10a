/**
 * A string cut from a larger one (`text.slice`, as the lossless JSON reader takes values from a
 * file's text) may be a V8 "sliced string" that keeps the whole text alive. Values that outlive
 * their file (predictions, ids for the report, kept diagnostics) are copied instead, so memory
 * follows what is kept, not the files it came from. (JSON.parse copies on its own.)
 */

/** `s` as a string of its own: the same characters, sharing no memory with the text it came from. */
export function unpinned(s: string): string {
  // Below 13 characters V8 copies rather than slices. Otherwise the concatenation is flattened
  // into a new string, and the slice then hangs off that copy, not off the file's text.
  return s.length < 13 ? s : ` ${s}`.slice(1);
}
