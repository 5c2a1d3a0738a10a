/**
 * The repository's source files and what each imports, for the architecture tests. Imports are
 * read by TypeScript's own scanner (`preProcessFile`), so every form counts: `import`, `import
 * type`, `export … from`, `import()`, `require()`, over any number of lines.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import ts from "typescript";

export const repo = path.resolve(import.meta.dirname, "../../..");

export const rel = (file: string): string => path.relative(repo, file).split(path.sep).join("/");

/** Every .ts, .tsx and .mts file under these repository folders (absolute paths). */
export function sourceFiles(...dirs: string[]): string[] {
  const walk = (dir: string): string[] =>
    readdirSync(dir).flatMap((name) => {
      const p = path.join(dir, name);
      return statSync(p).isDirectory() ? walk(p) : /\.(ts|tsx|mts)$/.test(name) ? [p] : [];
    });
  return dirs.flatMap((d) => walk(path.join(repo, d)));
}

/** The module specifiers a source text imports, in order. */
export function importsIn(text: string): string[] {
  return ts.preProcessFile(text, true, true).importedFiles.map((f) => f.fileName);
}

export function importsOf(file: string): string[] {
  return importsIn(readFileSync(file, "utf8"));
}

/** An import as a repository path (`lib/scoring/outcome`) when it is one of ours, else the package name as written. */
export function resolveImport(file: string, spec: string): string {
  if (spec.startsWith(".")) return rel(path.resolve(path.dirname(file), spec));
  return spec.startsWith("@/") ? spec.slice(2) : spec;
}

/** The folder a repository path belongs to for layering: `lib/<name>`, else its top-level folder. */
export function folderOf(repoPath: string): string {
  const parts = repoPath.split("/");
  return parts[0] === "lib" && parts.length > 2 ? `lib/${parts[1]}` : parts[0]!;
}
