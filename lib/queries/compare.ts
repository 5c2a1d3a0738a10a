/** Two to four entries side by side, with a paired bootstrap against the first for each capability. */
import { and, eq, inArray } from "drizzle-orm";
import type { Db } from "../../db/client";
import { benchmarks, benchmarkVersions, capabilityScores, domainScores, itemResults, scoringRuns, submissions } from "../../db/schema";
import { pairedBootstrap, type PairedItem } from "../aggregate/paired-bootstrap";
import type { BenchmarkSpec } from "../benchmark/spec";
import { toInfo } from "./benchmark-info";
import type { Comparison, ComparedEntry, PairedComparison } from "./types";

export function compareEntries(db: Db, ids: number[]): Comparison | { problem: string } {
  const unique = [...new Set(ids)].slice(0, 4);
  if (unique.length < 2) return { problem: "choose two to four entries to compare" };
  const rows = db
    .select({ sub: submissions, run: scoringRuns, version: benchmarkVersions, bench: benchmarks })
    .from(submissions)
    .innerJoin(scoringRuns, eq(scoringRuns.id, submissions.currentRunId))
    .innerJoin(benchmarkVersions, eq(benchmarkVersions.id, submissions.benchmarkVersionId))
    .innerJoin(benchmarks, eq(benchmarks.id, benchmarkVersions.benchmarkId))
    .where(inArray(submissions.id, unique))
    .all();
  if (rows.length !== unique.length) return { problem: `no scored entry with id ${unique.filter((id) => !rows.some((r) => r.sub.id === id)).join(", ")}` };
  if (new Set(rows.map((r) => r.version.id)).size > 1) return { problem: "entries of different benchmark versions cannot be compared item by item" };
  const ordered = unique.map((id) => rows.find((r) => r.sub.id === id)!);
  const spec = ordered[0]!.version.spec as unknown as BenchmarkSpec;

  const entries: ComparedEntry[] = ordered.map(({ sub, run }) => {
    const caps = db.select().from(capabilityScores).where(eq(capabilityScores.runId, run.id)).all();
    const doms = db.select().from(domainScores).where(eq(domainScores.runId, run.id)).all();
    const domains: ComparedEntry["domains"] = {};
    for (const d of doms) (domains[d.capability] ??= {})[d.domain] = d.score;
    return {
      id: sub.id,
      agent: sub.agentName,
      overall: { score: run.overallScore ?? 0, ciLow: run.overallCiLow ?? 0, ciHigh: run.overallCiHigh ?? 0, submitted: true },
      capabilities: Object.fromEntries(caps.map((c) => [c.capability, { score: c.score, ciLow: c.ciLow, ciHigh: c.ciHigh, submitted: c.submitted }])),
      domains,
    };
  });

  const itemsOf = (runId: number) =>
    new Map(db.select({ capability: itemResults.capability, uuid: itemResults.uuid, weight: itemResults.weight, score: itemResults.score }).from(itemResults).where(and(eq(itemResults.runId, runId))).all().map((i) => [`${i.capability}\0${i.uuid}`, i]));
  const base = itemsOf(ordered[0]!.run.id);
  const differences: PairedComparison[] = [];
  for (const other of ordered.slice(1)) {
    const items = itemsOf(other.run.id);
    const pairs = (capability?: string): PairedItem[] =>
      [...base.values()].filter((i) => !capability || i.capability === capability).map((i) => ({ weight: i.weight, a: i.score, b: items.get(`${i.capability}\0${i.uuid}`)?.score ?? 0 }));
    for (const c of spec.capabilities) differences.push({ a: ordered[0]!.sub.id, b: other.sub.id, scope: c.id, ...pairedBootstrap(pairs(c.id)) });
  }
  const domainNames = [...new Set(entries.flatMap((e) => Object.values(e.domains).flatMap((d) => Object.keys(d))))].sort();
  return { benchmark: toInfo(ordered[0]!.bench.slug, spec, [ordered[0]!.version.version]), entries, differences, domains: domainNames };
}
