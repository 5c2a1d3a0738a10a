/**
 * Fingerprints stored by an older fingerprint version, on each engine: such an entry is not
 * matched by a newcomer (versions never match), until `refreshFingerprints` recomputes them
 * from the bundle: then they equal what scoring stores now, and the newcomer copying it is
 * flagged. A bundle that can no longer be read has its old fingerprints dropped and is reported.
 */
import { rmSync } from "node:fs";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { itemResults, submissions } from "@/db/schema";
import { storedFlags } from "@/lib/scoring/integrity-flags";
import { refreshFingerprints } from "@/lib/submissions/refresh-fingerprints";
import { approve } from "@/lib/submissions/review";
import { scoringRuns } from "@/db/schema";
import { ENGINES } from "../helpers/engines";
import { scoreThroughWorker, useMiniDb } from "../helpers/mini-db";
import { renamedGoodBundle, tickingClock } from "../helpers/mini-fixtures";

describe.each(ENGINES)("refreshing fingerprints of an older version (%s)", (engine) => {
  const now = tickingClock();
  const mini = useMiniDb(now, engine);

  const runOf = async (id: number) => (await mini.db.select({ runId: submissions.currentRunId }).from(submissions).where(eq(submissions.id, id)))[0]!.runId!;
  const fingerprints = async (id: number) => (await mini.db.select({ uuid: itemResults.uuid, fp: itemResults.fingerprint }).from(itemResults).where(eq(itemResults.runId, await runOf(id))).orderBy(itemResults.uuid)).map((r) => `${r.uuid}=${r.fp}`);
  const copyKinds = async (id: number) => storedFlags((await mini.db.select({ flags: scoringRuns.flags }).from(scoringRuns).where(eq(scoringRuns.id, await runOf(id))))[0]!.flags).map((f) => [f.kind, f.other?.id]);
  /** What a run scored before the upgrade holds: unprefixed 32-hex fingerprints (a stand-in hash per item). */
  async function makeLegacy(id: number): Promise<void> {
    for (const r of await mini.db.select({ id: itemResults.id, fp: itemResults.fingerprint }).from(itemResults).where(eq(itemResults.runId, await runOf(id)))) {
      if (r.fp) await mini.db.update(itemResults).set({ fingerprint: r.fp.slice(3, 35).split("").reverse().join("") }).where(eq(itemResults.id, r.id));
    }
  }

  it("recompute an older entry's fingerprints from its bundle, after which a newcomer copying it is flagged", async () => {
    const original = await scoreThroughWorker(mini, renamedGoodBundle(mini.scratch("original"), "original"), now);
    await approve(mini.db, original, { actor: "maintainer", at: now() });
    const current = await fingerprints(original);
    expect(current.every((f) => /=v2:[0-9a-f]{32}$/.test(f))).toBe(true);
    await makeLegacy(original);
    // Scored after the upgrade, a copy of the older entry: nothing to match it against yet.
    const copy = await scoreThroughWorker(mini, renamedGoodBundle(mini.scratch("copy"), "copy"), now);
    expect(await copyKinds(copy)).toEqual([]);

    expect(await refreshFingerprints(mini.db, { now })).toEqual({ refreshed: 1, unreadable: [], remaining: false });
    expect(await fingerprints(original)).toEqual(current);
    expect(await copyKinds(copy)).toEqual([["duplicate", original]]);
    expect(await copyKinds(original)).toEqual([]);
    // Nothing left to refresh.
    expect(await refreshFingerprints(mini.db, { now })).toEqual({ refreshed: 0, unreadable: [], remaining: false });
  });

  it("take a flag framed by the old order off the original: its copy flags are worked out again by received time", async () => {
    const original = await scoreThroughWorker(mini, renamedGoodBundle(mini.scratch("victim"), "victim"), now);
    const copy = await scoreThroughWorker(mini, renamedGoodBundle(mini.scratch("framer"), "framer"), now);
    // What the old order (by submission id) left behind when the copy had the lower id: the original flagged as the copy's copy.
    const runId = await runOf(original);
    const [row] = await mini.db.select({ flags: scoringRuns.flags }).from(scoringRuns).where(eq(scoringRuns.id, runId));
    const framed = { kind: "duplicate" as const, message: `100% of this entry's answered items (4 of 4) carry the same answers and tool calls as entry #${copy} (framer), submitted before it.`, other: { id: copy, agent: "framer" } };
    await mini.db.update(scoringRuns).set({ flags: { ...row!.flags!, flags: [framed] } }).where(eq(scoringRuns.id, runId));
    await makeLegacy(original);
    await makeLegacy(copy);
    expect(await refreshFingerprints(mini.db, { now })).toMatchObject({ refreshed: 2, remaining: false });
    expect(await copyKinds(original)).toEqual([]);
    expect(await copyKinds(copy)).toEqual([["duplicate", original]]);
  });

  it("refresh a bounded number of runs per call, and drop the old fingerprints of a bundle that is gone", async () => {
    const gone = mini.scratch("gone");
    const a = await scoreThroughWorker(mini, renamedGoodBundle(gone, "gone"), now);
    const b = await scoreThroughWorker(mini, renamedGoodBundle(mini.scratch("b"), "b"), now);
    await makeLegacy(a);
    await makeLegacy(b);
    rmSync(gone, { recursive: true, force: true });
    const first = await refreshFingerprints(mini.db, { now, limit: 1 });
    expect(first).toMatchObject({ refreshed: 0, remaining: true });
    expect(first.unreadable).toEqual([{ submissionId: a, reason: expect.any(String) }]);
    expect((await fingerprints(a)).every((f) => f.endsWith("=null"))).toBe(true);
    expect(await refreshFingerprints(mini.db, { now, limit: 1 })).toEqual({ refreshed: 1, unreadable: [], remaining: false });
    expect((await fingerprints(b)).every((f) => /=v2:/.test(f))).toBe(true);
  });
});
