import { desc, eq } from "drizzle-orm";
import type { Db } from "../../db/client";
import { benchmarks, benchmarkVersions } from "../../db/schema";
import type { BenchmarkSpec } from "../benchmark/spec";
import type { BenchmarkInfo, BenchmarkLink } from "./types";

/** A benchmark version by slug and version; the default benchmark and its newest version when omitted. */
export async function findBenchmarkVersion(db: Db, slug?: string, version?: string) {
  const b = slug
    ? (await db.select().from(benchmarks).where(eq(benchmarks.slug, slug)).limit(1))[0]
    : ((await db.select().from(benchmarks).where(eq(benchmarks.isDefault, true)).orderBy(benchmarks.id).limit(1))[0] ?? (await db.select().from(benchmarks).orderBy(benchmarks.id).limit(1))[0]);
  if (!b) return undefined;
  const versions = await db.select().from(benchmarkVersions).where(eq(benchmarkVersions.benchmarkId, b.id)).orderBy(desc(benchmarkVersions.id));
  const v = version ? versions.find((x) => x.version === version) : versions[0];
  if (!v) return undefined;
  return { benchmark: b, version: v, info: toInfo(b.slug, v.spec as unknown as BenchmarkSpec, versions.map((x) => x.version)) };
}

/** Every benchmark on the board, the default first. */
export async function listBenchmarks(db: Db): Promise<BenchmarkLink[]> {
  return db
    .select({ slug: benchmarks.slug, title: benchmarks.title, isDefault: benchmarks.isDefault })
    .from(benchmarks)
    .orderBy(desc(benchmarks.isDefault), benchmarks.id);
}

export function toInfo(slug: string, spec: BenchmarkSpec, versions: string[]): BenchmarkInfo {
  return {
    slug,
    title: spec.title,
    description: spec.description,
    version: spec.version,
    versions,
    compat: spec.compat,
    retrieverTools: spec.retrieverTools,
    exactMatchWindow: spec.exactMatchWindow,
    showGroundTruth: spec.showGroundTruth,
    judgeMinKappa: spec.judge?.minKappa ?? null,
    capabilities: spec.capabilities.map((c) => ({ id: c.id, label: c.label, description: c.description, directory: c.directory, multiSourceWeight: c.weights.multiSource, policies: c.policies, scorer: c.scorer })),
  };
}
