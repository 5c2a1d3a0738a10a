/** Benchmarks in the database: registered from their folders, loaded back for scoring. */
import { and, desc, eq } from "drizzle-orm";
import type { Db } from "../../db/client";
import { benchmarks, benchmarkVersions } from "../../db/schema";
import { loadBenchmark, type Benchmark } from "../benchmark/load-benchmark";

/** Registers a benchmark folder's version (idempotent); returns the version id. */
export async function registerBenchmark(db: Db, root: string, opts: { isDefault?: boolean; now: Date }): Promise<{ versionId: number; benchmark: Benchmark }> {
  const benchmark = await loadBenchmark(root);
  const { slug, title, description, version } = benchmark.spec;
  const versionId = db.transaction((tx) => {
    let b = tx.select().from(benchmarks).where(eq(benchmarks.slug, slug)).get();
    if (!b) b = tx.insert(benchmarks).values({ slug, title, description, createdAt: opts.now }).returning().get();
    else tx.update(benchmarks).set({ title, description }).where(eq(benchmarks.id, b.id)).run();
    if (opts.isDefault) {
      // One default benchmark: the one `/` shows.
      tx.update(benchmarks).set({ isDefault: false }).run();
      tx.update(benchmarks).set({ isDefault: true }).where(eq(benchmarks.id, b.id)).run();
    }
    const existing = tx.select().from(benchmarkVersions).where(and(eq(benchmarkVersions.benchmarkId, b.id), eq(benchmarkVersions.version, version))).get();
    const spec = benchmark.spec as unknown as Record<string, unknown>;
    if (existing) {
      tx.update(benchmarkVersions).set({ root, spec }).where(eq(benchmarkVersions.id, existing.id)).run();
      return existing.id;
    }
    return tx.insert(benchmarkVersions).values({ benchmarkId: b.id, version, root, spec, createdAt: opts.now }).returning().get().id;
  });
  cache.set(versionId, Promise.resolve(benchmark));
  return { versionId, benchmark };
}

const cache = new Map<number, Promise<Benchmark>>();

/** The benchmark of a version, loaded once per process. */
export function benchmarkOfVersion(db: Db, versionId: number): Promise<Benchmark> {
  let p = cache.get(versionId);
  if (!p) {
    const row = db.select().from(benchmarkVersions).where(eq(benchmarkVersions.id, versionId)).get();
    if (!row) return Promise.reject(new Error(`benchmark version ${versionId} does not exist`));
    p = loadBenchmark(row.root);
    cache.set(versionId, p);
  }
  return p;
}

/** The newest version of the default benchmark (the one `/` shows), where new submissions go. */
export function defaultVersionId(db: Db): number | undefined {
  return db
    .select({ id: benchmarkVersions.id })
    .from(benchmarkVersions)
    .innerJoin(benchmarks, eq(benchmarks.id, benchmarkVersions.benchmarkId))
    .where(eq(benchmarks.isDefault, true))
    .orderBy(desc(benchmarkVersions.id))
    .get()?.id;
}
