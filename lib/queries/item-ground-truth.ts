/** The ground truth of one item, for the item view: only when the benchmark lets the public see it. */
import { eq } from "drizzle-orm";
import type { Db } from "../../db/client";
import { benchmarkVersions, submissions } from "../../db/schema";
import { loadBenchmark, type Benchmark } from "../benchmark/load-benchmark";
import type { BenchmarkSpec } from "../benchmark/spec";
import { loaderOf } from "../benchmark/capability-loaders/registry";
import type { ItemGroundTruth } from "./types";

const loaded = new Map<string, Promise<Benchmark>>();

export async function loadItemGroundTruth(db: Db, submissionId: number, capability: string, uuid: string): Promise<ItemGroundTruth> {
  const [row] = await db
    .select({ root: benchmarkVersions.root, spec: benchmarkVersions.spec })
    .from(submissions)
    .innerJoin(benchmarkVersions, eq(benchmarkVersions.id, submissions.benchmarkVersionId))
    .where(eq(submissions.id, submissionId))
    .limit(1);
  if (!row || !(row.spec as unknown as BenchmarkSpec).showGroundTruth) return null;
  let p = loaded.get(row.root);
  if (!p) loaded.set(row.root, (p = loadBenchmark(row.root)));
  const cap = (await p).capabilities.find((c) => c.spec.id === capability);
  return cap ? loaderOf(cap.spec.scorer).groundTruthView(cap, uuid) : null;
}
