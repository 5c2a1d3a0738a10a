/**
 * Benchmarks in the database: registered from their folders, loaded back for scoring. With a
 * store, a registered folder's files are also stored by content (the manifest in
 * `benchmark_versions.files`), so a worker on a host without the folder lays it out from there.
 */
import { stat } from "node:fs/promises";
import path from "node:path";
import { and, desc, eq } from "drizzle-orm";
import type { Db } from "../../db/client";
import { writeTx } from "./db-busy";
import { benchmarks, benchmarkVersions } from "../../db/schema";
import { loadBenchmark, type Benchmark } from "../benchmark/load-benchmark";
import type { BlobStore } from "../storage/blob-store";
import { materializeTree, putTree, type TreeManifest } from "../storage/tree";
import { hashFile } from "../storage/verified-file";
import type { HostedStorage } from "./storage-settings";

/**
 * What a benchmark folder holds that is not the benchmark: derived caches this host rebuilds
 * (`.agentboard-cache/`: the ground-truth index; `.replay/`: ground-truth replays, which depend
 * on the tool servers of the host that made them), version control and Python's bytecode.
 */
export function excludedFromBenchmark(rel: string): boolean {
  if (rel === ".agentboard-cache" || rel === ".replay" || rel === ".git") return true;
  return path.posix.basename(rel) === "__pycache__";
}

export interface RegisterOptions {
  isDefault?: boolean;
  now: Date;
  /** Stores the folder's files by content for workers elsewhere; without it only `root` is recorded. */
  storage?: HostedStorage;
}

/** Registers a benchmark folder's version (idempotent); returns the version id. */
export async function registerBenchmark(db: Db, root: string, opts: RegisterOptions): Promise<{ versionId: number; benchmark: Benchmark }> {
  const benchmark = await loadBenchmark(root);
  const { slug, title, description, version } = benchmark.spec;
  // Stored before the transaction (uploads are slow); an unchanged folder is a run of no-op puts.
  const files = opts.storage ? (await putTree(opts.storage.store, root, { exclude: excludedFromBenchmark })).manifest : undefined;
  const versionId = await writeTx(db, async (tx) => {
    // Another process may register the same slug and version at once (Postgres): a conflict
    // leaves its row, which is then updated like an existing one.
    await tx.insert(benchmarks).values({ slug, title, description, createdAt: opts.now }).onConflictDoNothing();
    const [b] = await tx.select({ id: benchmarks.id }).from(benchmarks).where(eq(benchmarks.slug, slug)).limit(1);
    await tx.update(benchmarks).set({ title, description }).where(eq(benchmarks.id, b!.id));
    // One default benchmark: the one `/` shows and new GitHub submissions go to. A board's first
    // benchmark is it until another is made the default (a VAKRA import registered by `submit`).
    const [current] = await tx.select({ id: benchmarks.id }).from(benchmarks).where(eq(benchmarks.isDefault, true)).limit(1);
    if (opts.isDefault || !current) {
      await tx.update(benchmarks).set({ isDefault: false });
      await tx.update(benchmarks).set({ isDefault: true }).where(eq(benchmarks.id, b!.id));
    }
    const spec = benchmark.spec as unknown as Record<string, unknown>;
    await tx.insert(benchmarkVersions).values({ benchmarkId: b!.id, version, root, spec, ...(files ? { files } : {}), createdAt: opts.now }).onConflictDoNothing();
    const [v] = await tx.select({ id: benchmarkVersions.id }).from(benchmarkVersions).where(and(eq(benchmarkVersions.benchmarkId, b!.id), eq(benchmarkVersions.version, version))).limit(1);
    await tx.update(benchmarkVersions).set({ root, spec, ...(files ? { files } : {}) }).where(eq(benchmarkVersions.id, v!.id));
    return v!.id;
  });
  cache.set(versionId, Promise.resolve(benchmark));
  return { versionId, benchmark };
}

const cache = new Map<number, Promise<Benchmark>>();

/**
 * The benchmark of a version, loaded once per process. A version registered with a store is
 * loaded from its recorded folder only when that folder, here, holds exactly the stored files
 * (then its local caches serve as before); otherwise (absent on this host, or edited since) from
 * the files laid out from the store, so every host scores what was registered.
 */
export function benchmarkOfVersion(db: Db, versionId: number, storage?: HostedStorage): Promise<Benchmark> {
  let p = cache.get(versionId);
  if (!p) {
    // Cached at once (before the read), so concurrent jobs of one worker load it once.
    p = (async () => {
      const [row] = await db.select({ root: benchmarkVersions.root, files: benchmarkVersions.files }).from(benchmarkVersions).where(eq(benchmarkVersions.id, versionId)).limit(1);
      if (!row) throw new Error(`benchmark version ${versionId} does not exist`);
      if (!storage || !row.files || (await holdsTree(row.root, row.files))) return loadBenchmark(row.root);
      return loadBenchmark(await materializeTree(storage.store, row.files, storage.cacheDir));
    })();
    cache.set(versionId, p);
    // A failure (a missing version, an unreadable folder) is not kept: the next call tries again.
    p.catch(() => cache.get(versionId) === p && cache.delete(versionId));
  }
  return p;
}

/** A store that only hashes: putTree over it lists a folder as a manifest without storing anything. */
const hashingStore: BlobStore = {
  location: "(hash only)",
  maxBytes: Number.MAX_SAFE_INTEGER,
  put: async (source) => {
    if (!("file" in source)) throw new Error("hash-only store: files only");
    return { ...(await hashFile(source.file)), created: false };
  },
  has: async () => false,
  size: async () => undefined,
  readTo: async () => {
    throw new Error("hash-only store: nothing to read");
  },
};

/** True when `root` is a folder holding exactly `manifest`'s files, by content (excluded caches aside). */
async function holdsTree(root: string, manifest: TreeManifest): Promise<boolean> {
  if (!(await stat(root).catch(() => undefined))?.isDirectory()) return false;
  try {
    const here = (await putTree(hashingStore, root, { exclude: excludedFromBenchmark })).manifest;
    const a = Object.entries(here);
    return a.length === Object.keys(manifest).length && a.every(([rel, sha]) => manifest[rel] === sha);
  } catch {
    // A link or special file appeared, or the folder is unreadable: not the registered content.
    return false;
  }
}

/** The newest version of the default benchmark (the one `/` shows), where new submissions go. */
export async function defaultVersionId(db: Db): Promise<number | undefined> {
  const [row] = await db
    .select({ id: benchmarkVersions.id })
    .from(benchmarkVersions)
    .innerJoin(benchmarks, eq(benchmarks.id, benchmarkVersions.benchmarkId))
    .where(eq(benchmarks.isDefault, true))
    .orderBy(desc(benchmarkVersions.id))
    .limit(1);
  return row?.id;
}
