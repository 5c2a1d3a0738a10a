/**
 * What this CLI was built from. The bundle (`scripts/build-cli.ts`) defines AGENTBOARD_BUILD
 * at build time; run from source (tsx) the version comes from package.json and the commit from
 * git, read only when asked (`--version`), so other commands pay nothing for it.
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";

export interface BuildInfo {
  version: string;
  /** Short commit hash, `+` when the tree had uncommitted changes; null outside a git checkout. */
  commit: string | null;
  /** Changes whenever the code does: the bundle's content hash, or "source" when run through tsx. */
  id: string;
}

declare const AGENTBOARD_BUILD: BuildInfo | undefined;

/** The bundle's build, or null when running from the TypeScript source. */
export const bundled: BuildInfo | null = typeof AGENTBOARD_BUILD === "undefined" ? null : AGENTBOARD_BUILD;

/** The repository root of a source run (this file is scripts/commands/build-info.ts). */
const sourceRoot = () => path.resolve(import.meta.dirname, "../..");

/** The commit of a checkout (`a034990+` with uncommitted changes to tracked files), or null. */
export function gitCommit(root: string): string | null {
  const git = (...args: string[]) => spawnSync("git", ["-C", root, ...args], { encoding: "utf8", timeout: 5_000 });
  const head = git("rev-parse", "--short", "HEAD");
  if (head.status !== 0 || !head.stdout.trim()) return null;
  const dirty = git("status", "--porcelain", "--untracked-files=no").stdout?.trim();
  return `${head.stdout.trim()}${dirty ? "+" : ""}`;
}

function buildInfo(): BuildInfo {
  if (bundled) return bundled;
  const root = sourceRoot();
  const pkg = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")) as { version: string };
  return { version: pkg.version, commit: gitCommit(root), id: "source" };
}

/** What a run's manifest records of this build: the version and the commit. */
export function agentboardVersion(info: BuildInfo = buildInfo()): { version: string; commit: string | null } {
  return { version: info.version, commit: info.commit };
}

export function versionLine(info: BuildInfo = buildInfo()): string {
  const commit = info.commit ? `commit ${info.commit.replace(/\+$/, "")}${info.commit.endsWith("+") ? " with local changes" : ""}` : "commit unknown";
  return `agentboard ${info.version} (${commit}${bundled ? "" : ", from source"})`;
}

/**
 * Where a worker thread of the bundle starts: `<name>.mjs` beside the bundle's chunks. From
 * source there is none (the work then runs on the calling thread).
 */
export function bundledWorker(name: string): URL | undefined {
  return bundled ? new URL(`./${name}.mjs`, import.meta.url) : undefined;
}
