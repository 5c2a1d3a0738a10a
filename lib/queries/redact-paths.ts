/**
 * Public text must not show where files live on the server: a bundle submitted through the
 * CLI is recorded with its absolute path (its source reference, and the "received" audit
 * reason). Known paths are shortened to their last two parts; any other absolute path in the
 * text is shortened the same way.
 */

/** The last two parts of a path: "/srv/agentboard/bundles/abc/bundle.zip" → "abc/bundle.zip". */
export function shortPath(p: string): string {
  return p.split(/[\\/]+/).filter(Boolean).slice(-2).join("/");
}

// An absolute POSIX path (two or more parts) or a Windows drive path, not part of a URL.
const ABSOLUTE_PATH = /(?<![\w:/.~-])(?:\/(?:[^\s/'"`<>|]+\/)+[^\s/'"`<>|]*|[A-Za-z]:\\(?:[^\s\\'"`<>|]+\\)*[^\s\\'"`<>|]*)/g;

export function redactPaths(text: string, known: readonly string[] = []): string {
  let out = text;
  for (const p of known) if (p && (p.startsWith("/") || /^[A-Za-z]:\\/.test(p))) out = out.split(p).join(shortPath(p));
  return out.replace(ABSOLUTE_PATH, (m) => `…/${shortPath(m)}`);
}

/** A source reference as the public sees it: GitHub issue URLs as they are, anything else shortened. */
export function publicSourceRef(source: string, sourceRef: string): string {
  return source === "github" ? sourceRef : shortPath(sourceRef);
}
