/** The ground truth of one item, for the item view: only when the benchmark lets the public see it. */
import { eq } from "drizzle-orm";
import type { Db } from "../../db/client";
import { benchmarkVersions, submissions } from "../../db/schema";
import { loadBenchmark, type Benchmark } from "../benchmark/load-benchmark";
import type { BenchmarkSpec } from "../benchmark/spec";
import type { ItemGroundTruth } from "./types";

const loaded = new Map<string, Promise<Benchmark>>();

export async function loadItemGroundTruth(db: Db, submissionId: number, capability: string, uuid: string): Promise<ItemGroundTruth> {
  const row = db
    .select({ root: benchmarkVersions.root, spec: benchmarkVersions.spec })
    .from(submissions)
    .innerJoin(benchmarkVersions, eq(benchmarkVersions.id, submissions.benchmarkVersionId))
    .where(eq(submissions.id, submissionId))
    .get();
  if (!row || !(row.spec as unknown as BenchmarkSpec).showGroundTruth) return null;
  let p = loaded.get(row.root);
  if (!p) loaded.set(row.root, (p = loadBenchmark(row.root)));
  const cap = (await p).capabilities.find((c) => c.spec.id === capability);
  if (cap?.kind === "dataset") {
    const item = cap.byUuid.get(uuid);
    if (!item) return null;
    // A report item's ground truth is its reference report; the others', the reference answer.
    const answer = item.referenceReport?.ok ? item.referenceReport.value : item.groundTruth;
    return { answer, calls: (item.trajectoryGroundTruth ?? []).map((c) => ({ name: c.name, arguments: c.params })) };
  }
  const last = cap?.byUuid.get(uuid)?.turns.at(-1);
  return last ? { answer: last.answer, calls: last.calls.map((c) => ({ name: c.name, arguments: c.arguments })) } : null;
}
