/** A value as indented JSON (or preformatted text) in a captioned block; React escapes the text. */
export function JsonBlock({ value, label, full = false }: { value: unknown; label: string; full?: boolean }) {
  const text = typeof value === "string" ? value : (JSON.stringify(value, null, 2) ?? "undefined");
  return (
    <figure className="min-w-0">
      <figcaption className="sr-only">{label}</figcaption>
      <pre
        // A height-capped block scrolls, so it must be reachable by keyboard.
        tabIndex={full ? undefined : 0}
        className={`${full ? "" : "max-h-96 "}overflow-auto rounded-md border border-slate-200 bg-slate-50 p-3 text-xs leading-relaxed break-words whitespace-pre-wrap focus-visible:outline-2 focus-visible:outline-sky-600 dark:border-slate-800 dark:bg-slate-900`}
      >
        {text}
      </pre>
    </figure>
  );
}
