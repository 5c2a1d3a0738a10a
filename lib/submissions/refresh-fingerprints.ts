/**
 * Item fingerprints stored by an older fingerprint version (lib/scoring/item-fingerprint.ts
 * `FINGERPRINT_VERSION`) never match current ones, so an entry scored before an upgrade would
 * not be compared with newcomers. This recomputes them from each run's bundle (read and
 * validated again, not rescored: no replay, no judge, no state change), then works the run's
 * copy flags out again (run-integrity.ts), which also flags the later entries that copy it.
 *
 * Only the current runs of entries newcomers are compared with (scored, approved, published)
 * are refreshed, a bounded number per call. A run whose bundle is lost, no longer validates or
 * has changed has its old fingerprints dropped (they could never match again) and is reported;
 * a storage or database unreachable for now throws (call again later).
 *
 * Meant to run where a worker starts, called again until `remaining` is false.
 */
import { and, eq, inArray, sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { itemResults, submissions } from "../../db/schema";
import { FINGERPRINT_PREFIX, itemFingerprint } from "../scoring/item-fingerprint";
import { trialsOf, validateBundle } from "../validate/validate-bundle";
import { benchmarkOfVersion } from "./benchmarks";
import { localBundle } from "./bundle-storage";
import { isBusy, retryBusy, writeTx } from "./db-busy";
import { recordRunIntegrityAgain } from "./run-integrity";
import { isPassingStorageError } from "./score-job";
import type { HostedStorage } from "./storage-settings";

/** Runs refreshed per call by default (each reads and validates one bundle). */
export const DEFAULT_REFRESH_RUNS = 100;

export interface RefreshOptions {
  now: () => Date;
  storage?: HostedStorage;
  /** Runs refreshed at most in this call (default DEFAULT_REFRESH_RUNS); call again while `remaining`. */
  limit?: number;
}

export interface RefreshOutcome {
  /** Runs whose fingerprints are current now. */
  refreshed: number;
  /** Runs whose bundle could not be read: their old fingerprints were dropped. */
  unreadable: { submissionId: number; reason: string }[];
  /** Whether more runs wait (the limit was reached). */
  remaining: boolean;
}

const COMPARED_STATES = ["scored", "approved", "published"] as const;

/** A stored fingerprint of an older version: set, and without the current prefix. */
const stale = sql`${itemResults.fingerprint} IS NOT NULL AND ${itemResults.fingerprint} NOT LIKE ${`${FINGERPRINT_PREFIX}%`}`;

export async function refreshFingerprints(db: Db, opts: RefreshOptions): Promise<RefreshOutcome> {
  const limit = opts.limit ?? DEFAULT_REFRESH_RUNS;
  // The compared entries' current runs holding a stale fingerprint: each run's items by its index.
  const runs = await retryBusy(() =>
    db
      .select({ id: submissions.id, runId: submissions.currentRunId, versionId: submissions.benchmarkVersionId, agent: submissions.agentName, bundlePath: submissions.bundlePath, bundleSha256: submissions.bundleSha256, bundleFiles: submissions.bundleFiles, validationReport: submissions.validationReport })
      .from(submissions)
      .where(and(inArray(submissions.state, [...COMPARED_STATES]), sql`EXISTS (SELECT 1 FROM ${itemResults} WHERE ${itemResults.runId} = ${submissions.currentRunId} AND ${stale})`))
      .orderBy(submissions.id)
      .limit(limit + 1),
  );
  const outcome: RefreshOutcome = { refreshed: 0, unreadable: [], remaining: runs.length > limit };
  for (const sub of runs.slice(0, limit)) {
    const runId = sub.runId!;
    // A storage or database away for now is tried again on the next call; a bundle lost or changed is not.
    const fingerprints = await recompute(db, sub, opts.storage).catch((err: unknown) => {
      if (isPassingStorageError(err) || isBusy(err)) throw err;
      return err instanceof Error ? err.message : String(err);
    });
    await retryBusy(() =>
      writeTx(db, async (tx) => {
        // Another run may have become current meanwhile: it was fingerprinted the current way.
        const [now] = await tx.select({ runId: submissions.currentRunId }).from(submissions).where(eq(submissions.id, sub.id)).limit(1);
        if (now?.runId !== runId) return;
        if (typeof fingerprints === "string") {
          await tx.update(itemResults).set({ fingerprint: null }).where(and(eq(itemResults.runId, runId), stale));
          return;
        }
        for (const [id, fingerprint] of fingerprints) await tx.update(itemResults).set({ fingerprint }).where(eq(itemResults.id, id));
        await recordRunIntegrityAgain(tx, { id: runId, submissionId: sub.id, versionId: sub.versionId, agent: sub.agent }, opts.now());
      }),
    );
    if (typeof fingerprints === "string") outcome.unreadable.push({ submissionId: sub.id, reason: fingerprints });
    else outcome.refreshed++;
  }
  return outcome;
}

/** The run's items (row id → fingerprint), recomputed from its bundle; throws when the bundle cannot be read as it was received. */
async function recompute(db: Db, sub: { id: number; runId: number | null; versionId: number; bundlePath: string; bundleSha256: string; bundleFiles: Record<string, string> | null; validationReport: Record<string, unknown> | null }, storage: HostedStorage | undefined): Promise<Map<number, string | null>> {
  const benchmark = await benchmarkOfVersion(db, sub.versionId, storage);
  const path = storage ? await localBundle(storage, sub) : sub.bundlePath;
  const { report, submission } = await validateBundle(path, benchmark);
  if (!report.valid || !submission) throw new Error(`the bundle of submission ${sub.id} no longer validates (${report.summary.errors} errors)`);
  if (submission.sha256 !== sub.bundleSha256) throw new Error(`the bundle of submission ${sub.id} changed since it was received`);
  const trials = trialsOf(submission);
  const items = await retryBusy(() => db.select({ id: itemResults.id, capability: itemResults.capability, uuid: itemResults.uuid, trial: itemResults.trial, scorer: itemResults.scorer }).from(itemResults).where(eq(itemResults.runId, sub.runId!)));
  return new Map(items.map((i) => [i.id, trials[i.trial - 1] ? itemFingerprint(trials[i.trial - 1]!, i) : null]));
}
