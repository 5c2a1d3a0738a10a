/**
 * A published entry's bundle, offered for download so anyone can check the entry with `verify`.
 * What a download holds and which sha256 it answers to:
 * - a ZIP bundle: the stored ZIP itself, whose sha256 is the run manifest's `bundle.sha256`;
 * - a folder bundle: its files, zipped; the manifest's sha256 is then that of the folder's sorted
 *   (path, content sha256) list (lib/validate/bundle-source.ts), which `validate` and `verify`
 *   compute again from the unzipped folder. A ZIP's own bytes cannot hash to that value.
 * Only published entries, and only where the benchmark offers downloads (benchmark.yaml
 * `bundleDownload`, on unless false); anything else reads as null (the route's 404).
 */
import { eq, sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { benchmarkVersions, scoringRuns, submissions } from "../../db/schema";
import { jsonText } from "./sql-dialect";
import { isPublicState } from "./submission";

/** benchmark.yaml `bundleDownload`: on unless it is exactly false (specs stored before the key read as on). */
export function offersBundleDownload(spec: { bundleDownload?: unknown }): boolean {
  return spec.bundleDownload !== false;
}

export interface EntryBundle {
  id: number;
  kind: "zip" | "folder";
  /** The sha256 the submission and its run's manifest record. */
  sha256: string;
  /** Where ingest read it: a ZIP or folder on the host that received it (maybe gone since). */
  path: string;
  /** A folder stored file by file (path → content sha256); null for a ZIP, or a folder received without a store. */
  files: Record<string, string> | null;
  /** The benchmark's slug, for the file's name. */
  benchmark: string;
}

/** The entry's bundle if anyone may download it: published, offered by its benchmark, and the one its current run scored. */
export async function entryBundle(db: Db, id: number): Promise<EntryBundle | null> {
  const [row] = await db
    .select({
      state: submissions.state,
      path: submissions.bundlePath,
      sha256: submissions.bundleSha256,
      files: submissions.bundleFiles,
      kind: sql<string | null>`${jsonText(db, submissions.validationReport, ["bundle", "kind"])}`,
      offered: sql<unknown>`${jsonText(db, benchmarkVersions.spec, ["bundleDownload"])}`,
      manifestSha256: sql<string | null>`${jsonText(db, scoringRuns.manifest, ["bundle", "sha256"])}`,
      slug: sql<string>`(SELECT slug FROM benchmarks WHERE benchmarks.id = ${benchmarkVersions.benchmarkId})`,
    })
    .from(submissions)
    .innerJoin(benchmarkVersions, eq(benchmarkVersions.id, submissions.benchmarkVersionId))
    .leftJoin(scoringRuns, eq(scoringRuns.id, submissions.currentRunId))
    .where(eq(submissions.id, id))
    .limit(1);
  if (!row || !isPublicState(row.state) || !offeredValue(row.offered)) return null;
  // The run's manifest names the bundle it scored; a submission whose record disagrees offers nothing rather than other bytes.
  if (row.manifestSha256 !== null && row.manifestSha256 !== row.sha256) return null;
  const kind = row.files ? "folder" : row.kind === "zip" || row.kind === "folder" ? row.kind : null;
  if (!kind || !/^[0-9a-f]{64}$/.test(row.sha256)) return null;
  return { id, kind, sha256: row.sha256, path: row.path, files: row.files ?? null, benchmark: row.slug };
}

/** The stored key as read through JSON in SQL: SQLite gives false as 0, Postgres as the text "false". */
function offeredValue(raw: unknown): boolean {
  return !(raw === false || raw === 0 || raw === "0" || raw === "false");
}
