/**
 * Which entries offer their bundle for download (lib/queries/entry-bundle.ts), on each engine:
 * a published one whose benchmark offers downloads, the bundle its run scored; never an
 * unpublished one, nor where benchmark.yaml says `bundleDownload: false`, nor when the
 * submission's record and its run's manifest disagree on the bundle.
 */
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { benchmarkVersions, scoringRuns, submissions } from "@/db/schema";
import { entryBundle } from "@/lib/queries/entry-bundle";
import { approve } from "@/lib/submissions/review";
import { ENGINES } from "../helpers/engines";
import { scoreThroughWorker, useMiniDb } from "../helpers/mini-db";
import { GOOD_BUNDLE, tickingClock } from "../helpers/mini-fixtures";

const now = tickingClock();

describe.each(ENGINES)("entryBundle (%s)", (engine) => {
  const mini = useMiniDb(now, engine);
  const publish = () => scoreThroughWorker(mini, GOOD_BUNDLE, now);

  it("offers a published entry's bundle, with the sha256 its run's manifest records", async () => {
    const id = await publish();
    expect(await entryBundle(mini.db, id)).toBeNull();
    await approve(mini.db, id, { actor: "test", at: now() });
    const [sub] = await mini.db.select().from(submissions).where(eq(submissions.id, id));
    const b = await entryBundle(mini.db, id);
    expect(b).toEqual({ id, kind: "folder", sha256: sub!.bundleSha256, path: GOOD_BUNDLE, files: null, benchmark: "mini" });
    const [run] = await mini.db.select({ manifest: scoringRuns.manifest }).from(scoringRuns).where(eq(scoringRuns.id, sub!.currentRunId!));
    expect(run!.manifest!.bundle.sha256).toBe(b!.sha256);
    expect(await entryBundle(mini.db, 999_999)).toBeNull();
  });

  it("offers nothing where the benchmark turns downloads off, and again when it turns them on", async () => {
    const id = await publish();
    await approve(mini.db, id, { actor: "test", at: now() });
    const [v] = await mini.db.select({ spec: benchmarkVersions.spec }).from(benchmarkVersions).where(eq(benchmarkVersions.id, mini.versionId));
    const original = v!.spec;
    type Spec = typeof original;
    const setKey = (value: boolean | null) =>
      mini.db
        .update(benchmarkVersions)
        .set({ spec: (value === null ? original : { ...original, bundleDownload: value }) as Spec })
        .where(eq(benchmarkVersions.id, mini.versionId));
    await setKey(false);
    expect(await entryBundle(mini.db, id)).toBeNull();
    await setKey(true);
    expect(await entryBundle(mini.db, id)).not.toBeNull();
    await setKey(null);
    expect(await entryBundle(mini.db, id)).not.toBeNull();
  });

  it("offers nothing when the submission's bundle is not the one its run scored", async () => {
    const id = await publish();
    await approve(mini.db, id, { actor: "test", at: now() });
    await mini.db.update(submissions).set({ bundleSha256: "0".repeat(64) }).where(eq(submissions.id, id));
    expect(await entryBundle(mini.db, id)).toBeNull();
  });
});
