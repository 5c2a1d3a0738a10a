/**
 * A folder by content, for benchmark versions: `putTree` stores each regular file and returns
 * the manifest (relative `/`-separated path → sha256) kept in `benchmark_versions.files`;
 * `materializeTree` lays the folder out again on any host, under `<cacheDir>/trees/<tree hash>`.
 *
 * Nothing is skipped silently: a symbolic link or special file in the folder is an error, and
 * empty folders (a manifest cannot hold them) and what the caller chose to exclude are listed in
 * the result. A manifest is read as
 * untrusted: a path that is absolute, has `.`/`..`/empty segments or a backslash, or would need
 * a file to also be a folder is refused before anything is written, and every laid-out file is
 * checked against its hash. A laid-out folder is reused only when it holds exactly the
 * manifest's files with the right hashes; otherwise it is laid out afresh.
 */
import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { lstat, mkdir, readdir, rename, rm } from "node:fs/promises";
import path from "node:path";
import { isSha256, type BlobStore } from "./blob-store";
import { fetchToCache } from "./cache";
import { hashFile, partName, writeVerified } from "./verified-file";

export type TreeManifest = Record<string, string>;

export interface TreeLimits {
  maxFiles: number;
  /** Total bytes of all files. */
  maxBytes: number;
}

/** Generous for a benchmark folder (the demo one is ~4 MB in ~100 files), small enough to stop a wrong folder. */
export const DEFAULT_TREE_LIMITS: TreeLimits = { maxFiles: 20_000, maxBytes: 2 * 1024 * 1024 * 1024 };

export interface StoredTree {
  manifest: TreeManifest;
  files: number;
  bytes: number;
  /** Folders with no file anywhere below them: not in the manifest, so not laid out again. */
  emptyDirs: string[];
  /** What the caller's `exclude` left out (files and whole folders), so the omission is on record. */
  excluded: string[];
}

export interface PutTreeOptions {
  limits?: TreeLimits;
  /** Paths (relative, `/`-separated) to leave out, e.g. derived caches; a folder left out is not walked. */
  exclude?: (rel: string) => boolean;
}

export class TreeError extends Error {
  override readonly name = "TreeError";
}

/** Why a manifest path is unsafe to lay out, or undefined when it is a plain relative path. */
export function unsafePathReason(rel: string): string | undefined {
  if (rel.length === 0) return "empty path";
  if (rel.includes("\0")) return "NUL in path";
  if (rel.includes("\\")) return "backslash in path";
  if (rel.startsWith("/") || /^[A-Za-z]:/.test(rel)) return "absolute path";
  const parts = rel.split("/");
  if (parts.some((p) => p === "" || p === "." || p === "..")) return "empty, '.' or '..' segment";
  return undefined;
}

/** Stores every regular file under `dir`; refuses links, special files and a folder over the limits before storing anything. */
export async function putTree(store: BlobStore, dir: string, opts: PutTreeOptions = {}): Promise<StoredTree> {
  const root = path.resolve(dir);
  const limits = opts.limits ?? DEFAULT_TREE_LIMITS;
  const files: { rel: string; abs: string }[] = [];
  const emptyDirs: string[] = [];
  const excluded: string[] = [];
  let bytes = 0;
  const walk = async (abs: string, rel: string): Promise<boolean> => {
    const entries = (await readdir(abs, { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    let any = false;
    for (const e of entries) {
      const childRel = rel ? `${rel}/${e.name}` : e.name;
      const childAbs = path.join(abs, e.name);
      if (opts.exclude?.(childRel)) {
        excluded.push(childRel);
        continue;
      }
      const unsafe = unsafePathReason(childRel);
      if (unsafe) throw new TreeError(`${childAbs}: cannot be stored in a tree (${unsafe})`);
      if (e.isDirectory()) {
        any = (await walk(childAbs, childRel)) || any;
      } else if (e.isFile()) {
        if (files.length >= limits.maxFiles) throw new TreeError(`${root}: more than ${limits.maxFiles} files`);
        bytes += (await lstat(childAbs)).size;
        if (bytes > limits.maxBytes) throw new TreeError(`${root}: more than ${limits.maxBytes} bytes`);
        files.push({ rel: childRel, abs: childAbs });
        any = true;
      } else {
        throw new TreeError(`${childAbs}: ${e.isSymbolicLink() ? "a symbolic link" : "not a regular file"}; a stored tree holds regular files only`);
      }
    }
    if (!any && rel) emptyDirs.push(rel);
    return any;
  };
  await walk(root, "");
  const manifest: TreeManifest = {};
  await eachLimited(files, 8, async (f) => {
    manifest[f.rel] = (await store.put({ file: f.abs })).sha256;
  });
  return { manifest: sortedManifest(manifest), files: files.length, bytes, emptyDirs, excluded };
}

/** Checks a manifest read from elsewhere (the database) and returns its entries, sorted. */
export function manifestEntries(manifest: unknown, limits: TreeLimits = DEFAULT_TREE_LIMITS): [string, string][] {
  if (typeof manifest !== "object" || manifest === null || Array.isArray(manifest)) throw new TreeError("a tree manifest must be an object of path → sha256");
  const entries = Object.entries(manifest as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  if (entries.length > limits.maxFiles) throw new TreeError(`tree manifest has ${entries.length} files, above the limit of ${limits.maxFiles}`);
  const names = new Set(entries.map(([rel]) => rel));
  for (const [rel, sha] of entries) {
    const unsafe = unsafePathReason(rel);
    if (unsafe) throw new TreeError(`tree manifest path ${JSON.stringify(rel.slice(0, 200))} refused: ${unsafe}`);
    if (!isSha256(sha)) throw new TreeError(`tree manifest path ${JSON.stringify(rel)}: ${JSON.stringify(sha)} is not a sha256`);
    const parts = rel.split("/");
    for (let i = 1; i < parts.length; i++) {
      const folder = parts.slice(0, i).join("/");
      if (names.has(folder)) throw new TreeError(`tree manifest path ${JSON.stringify(rel)} refused: ${JSON.stringify(folder)} is also a file`);
    }
  }
  return entries as [string, string][];
}

/** A manifest's identity: equal manifests lay out to the same folder. */
export function treeHash(manifest: TreeManifest): string {
  const h = createHash("sha256").update("agentboard.tree/1\n");
  for (const [rel, sha] of manifestEntries(manifest, { maxFiles: Number.MAX_SAFE_INTEGER, maxBytes: Number.MAX_SAFE_INTEGER })) h.update(`${rel}\0${sha}\n`);
  return h.digest("hex");
}

// Per process by nature: the layouts under way, keyed by destination folder.
const inFlight = new Map<string, Promise<string>>();

/** A local folder holding exactly the manifest's files, each checked; blobs come through the cache. */
export async function materializeTree(store: BlobStore, manifest: TreeManifest, cacheDir: string, limits: TreeLimits = DEFAULT_TREE_LIMITS): Promise<string> {
  const entries = manifestEntries(manifest, limits);
  const folder = path.join(path.resolve(cacheDir), "trees", treeHash(manifest));
  let p = inFlight.get(folder);
  if (!p) {
    p = layOut(store, entries, folder, cacheDir, limits).finally(() => inFlight.delete(folder));
    inFlight.set(folder, p);
  }
  return p;
}

async function layOut(store: BlobStore, entries: [string, string][], folder: string, cacheDir: string, limits: TreeLimits): Promise<string> {
  const state = await treeState(folder, entries);
  if (state === "good") return folder;
  // Only a damaged layout is removed: an absent one may be appearing right now (another process's rename).
  if (state === "bad") await rm(folder, { recursive: true, force: true });
  const tmp = partName(folder);
  await mkdir(tmp, { recursive: true });
  try {
    let total = 0;
    await eachLimited(entries, 8, async ([rel, sha]) => {
      const blob = await fetchToCache(store, sha, cacheDir);
      const dest = path.join(tmp, ...rel.split("/"));
      // The paths were checked; this guards the check itself.
      if (path.relative(tmp, dest).startsWith("..") || path.isAbsolute(path.relative(tmp, dest))) throw new TreeError(`tree path ${rel} leaves the folder`);
      const { size } = await writeVerified(createReadStream(blob), dest, { sha256: sha, maxBytes: store.maxBytes, what: `${rel} (blob ${sha})` });
      total += size;
      if (total > limits.maxBytes) throw new TreeError(`tree is more than ${limits.maxBytes} bytes`);
    });
    await rename(tmp, folder);
  } catch (err) {
    await rm(tmp, { recursive: true, force: true });
    // Another process laid the same tree out first: its folder is as good as ours, once checked.
    if (isTaken(err) && (await treeState(folder, entries)) === "good") return folder;
    throw err;
  }
  return folder;
}

const isTaken = (err: unknown) => ["ENOTEMPTY", "EEXIST"].includes((err as NodeJS.ErrnoException).code ?? "");

/** "good" when `folder` holds regular files (no links) exactly at the entries' paths, each with its hash. */
async function treeState(folder: string, entries: [string, string][]): Promise<"good" | "bad" | "absent"> {
  const found: string[] = [];
  const walk = async (abs: string, rel: string): Promise<boolean> => {
    for (const e of await readdir(abs, { withFileTypes: true })) {
      const childRel = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) {
        if (!(await walk(path.join(abs, e.name), childRel))) return false;
      } else if (e.isFile()) found.push(childRel);
      else return false;
    }
    return true;
  };
  try {
    if (!(await lstat(folder)).isDirectory() || !(await walk(folder, ""))) return "bad";
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return "absent";
    throw err;
  }
  if (found.length !== entries.length) return "bad";
  const want = new Map(entries);
  for (const rel of found) {
    const sha = want.get(rel);
    if (sha === undefined || (await hashFile(path.join(folder, ...rel.split("/")))).sha256 !== sha) return "bad";
  }
  return "good";
}

function sortedManifest(m: TreeManifest): TreeManifest {
  return Object.fromEntries(Object.entries(m).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** Runs `fn` over `items`, at most `limit` at a time; the first failure is thrown once all started calls end. */
async function eachLimited<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  let failure: { err: unknown } | undefined;
  const lane = async () => {
    while (!failure && next < items.length) {
      const item = items[next++] as T;
      try {
        await fn(item);
      } catch (err) {
        failure ??= { err };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  if (failure) throw failure.err;
}
