/**
 * Duplicate flags on hand-made runs in a real database of each engine (committed migrations): the share is of
 * the flagged entry's answered items, the threshold is 90%, the newer submission is the one
 * flagged, and withdrawn, rejected or other benchmark versions' entries are not compared.
 */
import { eq } from "drizzle-orm";
import { beforeEach, describe, expect, it } from "vitest";
import { benchmarks, benchmarkVersions, itemResults, scoringRuns, submissions, type SubmissionState } from "@/db/schema";
import type { ItemResult } from "@/lib/scoring/item-result";
import type { RunIntegrity } from "@/lib/scoring/integrity-flags";
import { writeTx } from "@/lib/submissions/db-busy";
import { recordRunIntegrity } from "@/lib/submissions/run-integrity";
import { ENGINES, useFreshDatabase } from "../helpers/engines";

describe.each(ENGINES)("duplicate flags (%s)", (engine) => {
  const at = new Date(Date.UTC(2026, 10, 25));
  const ENGINE: RunIntegrity = { flags: [], unsupportedAnswers: { threshold: 0.5, capabilities: {} } };
  const t = useFreshDatabase(engine);
  let version: number;

  beforeEach(async () => {
    const [b] = await t.db.insert(benchmarks).values({ slug: "b", title: "B", createdAt: at }).returning();
    version = (await t.db.insert(benchmarkVersions).values({ benchmarkId: b!.id, version: "1", root: "/b", spec: {}, createdAt: at }).returning())[0]!.id;
  });

  /** A submission with a completed current run whose items carry these fingerprints (null: no prediction). */
  async function entry(agent: string, fingerprints: (string | null)[], state: SubmissionState = "published", versionId = version): Promise<{ id: number; runId: number }> {
    const [sub] = await t.db
      .insert(submissions)
      .values({ benchmarkVersionId: versionId, agentName: agent, models: [], links: {}, source: "local", sourceRef: agent, bundlePath: agent, bundleSha256: agent, state, createdAt: at, updatedAt: at })
      .returning();
    const [run] = await t.db.insert(scoringRuns).values({ submissionId: sub!.id, judgeKind: "rules", replayMode: "recorded", status: "completed", createdAt: at }).returning();
    for (const [i, fingerprint] of fingerprints.entries()) {
      const uuid = `u${i}`;
      const result = { capability: "c", uuid } as unknown as ItemResult;
      await t.db.insert(itemResults).values({ runId: run!.id, capability: "c", domain: "d", uuid, weight: 1, score: 0, status: "scored", stage: "none", result, fingerprint });
    }
    await t.db.update(submissions).set({ currentRunId: run!.id }).where(eq(submissions.id, sub!.id));
    return { id: sub!.id, runId: run!.id };
  }

  const record = (e: { id: number; runId: number }, agent: string) => writeTx(t.db, (tx) => recordRunIntegrity(tx, { id: e.runId, submissionId: e.id, versionId: version, agent }, ENGINE, at));
  const flagsOf = async (runId: number) => (await t.db.select({ flags: scoringRuns.flags }).from(scoringRuns).where(eq(scoringRuns.id, runId)))[0]!.flags?.flags ?? [];
  const fps = (n: number, prefix = "f") => Array.from({ length: n }, (_, i) => `${prefix}${i}`);

  describe("duplicate flags", () => {
    it("flag a newcomer matching 90% of its answered items, naming the older entry; not at 80%", async () => {
      const original = await entry("original", fps(10));
      const copy = await entry("copy", [...fps(9), "other", null, null]);
      const near = await entry("near", [...fps(8), "x", "y"]);
      expect((await record(copy, "copy")).flags).toEqual([
        expect.objectContaining({ kind: "duplicate", share: 0.9, count: 9, of: 10, threshold: 0.9, other: { id: original.id, agent: "original" } }),
      ]);
      // At 80% it is no duplicate; with every item scored the same as the original (all 0 here), a near copy.
      expect((await record(near, "near")).flags.map((f) => f.kind)).toEqual(["near_copy"]);
      // The older entry is never flagged by the newcomers.
      expect(await flagsOf(original.runId)).toEqual([]);
    });

    it("put the flag on the newer entry when the older one completes after it, once", async () => {
      const older = await entry("older", fps(5));
      const newer = await entry("newer", fps(5));
      expect((await record(older, "older")).flags).toEqual([]);
      expect((await record(older, "older")).flags).toEqual([]);
      expect(await flagsOf(newer.runId)).toEqual([expect.objectContaining({ kind: "duplicate", share: 1, other: { id: older.id, agent: "older" } })]);
    });

    it("compare only scored, approved and published entries of the same benchmark version, and keep the engine's flags", async () => {
      const otherVersion = (await t.db.insert(benchmarkVersions).values({ benchmarkId: 1, version: "2", root: "/b2", spec: {}, createdAt: at }).returning())[0]!.id;
      await entry("withdrawn", fps(4), "withdrawn");
      await entry("rejected", fps(4), "rejected");
      await entry("elsewhere", fps(4), "published", otherVersion);
      const scored = await entry("scored", fps(4, "s"), "scored");
      const copy = await entry("copy", [...fps(4), ...fps(4, "s")].slice(0, 4));
      const canary = { kind: "canary" as const, message: "A canary string of this benchmark appears in the submitted text of 1 item." };
      expect((await writeTx(t.db, (tx) => recordRunIntegrity(tx, { id: copy.runId, submissionId: copy.id, versionId: version, agent: "copy" }, { ...ENGINE, flags: [canary] }, at))).flags).toEqual([canary]);
      const copyOfScored = await entry("copy-of-scored", fps(4, "s"));
      expect((await record(copyOfScored, "copy-of-scored")).flags.map((f) => f.other?.id)).toEqual([scored.id]);
    });

    it("never match items without a fingerprint, nor an entry that answered nothing", async () => {
      await entry("empty", [null, null, null]);
      const also = await entry("also-empty", [null, null, null]);
      expect((await record(also, "also-empty")).flags).toEqual([]);
    });
  });
});
