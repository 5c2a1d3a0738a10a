/**
 * Copy flags on hand-made runs in a real database of each engine (committed migrations): who
 * came first is when each entry's bundle content was received, never its submission id; many
 * copies of one entry give each copy one flag naming the first and counting the rest; a near
 * copy needs the same score on every item; a maintainer's clearing hides a flag, is audited,
 * and holds for later runs of the same bundle content only.
 */
import { and, eq } from "drizzle-orm";
import { beforeEach, describe, expect, it } from "vitest";
import { auditLog, benchmarks, benchmarkVersions, itemResults, scoringRuns, submissions } from "@/db/schema";
import { getFlagReview, isFlagged } from "@/lib/queries/integrity";
import { flagKey, MAX_COUNTED_ENTRIES, storedFlags, type RunIntegrity } from "@/lib/scoring/integrity-flags";
import type { ItemResult } from "@/lib/scoring/item-result";
import { writeTx } from "@/lib/submissions/db-busy";
import { clearFlag } from "@/lib/submissions/review";
import { recordRunIntegrity } from "@/lib/submissions/run-integrity";
import { TransitionError } from "@/lib/submissions/transitions";
import { ENGINES, useFreshDatabase } from "../helpers/engines";

describe.each(ENGINES)("copy flags (%s)", (engine) => {
  const t0 = Date.UTC(2026, 10, 25);
  const at = (minutes: number) => new Date(t0 + minutes * 60_000);
  const ENGINE: RunIntegrity = { flags: [], unsupportedAnswers: { threshold: 0.5, capabilities: {} } };
  const t = useFreshDatabase(engine);
  let version: number;

  beforeEach(async () => {
    const [b] = await t.db.insert(benchmarks).values({ slug: "b", title: "B", createdAt: at(0) }).returning();
    version = (await t.db.insert(benchmarkVersions).values({ benchmarkId: b!.id, version: "1", root: "/b", spec: {}, createdAt: at(0) }).returning())[0]!.id;
  });

  interface Entry {
    id: number;
    runId: number;
    agent: string;
  }

  /** A published submission whose bundle content was received at `receivedAt`, with a completed current run of these items. */
  async function entry(agent: string, receivedAt: Date, items: { fp: string | null; score?: number }[], state: "published" | "scored" = "published"): Promise<Entry> {
    const [sub] = await t.db
      .insert(submissions)
      .values({ benchmarkVersionId: version, agentName: agent, models: [], links: {}, source: "local", sourceRef: agent, bundlePath: agent, bundleSha256: agent, state, bundleReceivedAt: receivedAt, createdAt: at(0), updatedAt: receivedAt })
      .returning();
    const e = { id: sub!.id, runId: 0, agent };
    e.runId = await run(e, items);
    return e;
  }

  /** A new completed run of the entry (a rescore), made current. */
  async function run(e: { id: number }, items: { fp: string | null; score?: number }[]): Promise<number> {
    const [r] = await t.db.insert(scoringRuns).values({ submissionId: e.id, judgeKind: "rules", replayMode: "recorded", status: "completed", createdAt: at(0) }).returning();
    for (const [i, it] of items.entries()) {
      const uuid = `u${i}`;
      await t.db.insert(itemResults).values({ runId: r!.id, capability: "c", domain: "d", uuid, weight: 1, score: it.score ?? 0, status: "scored", stage: "none", result: { capability: "c", uuid } as unknown as ItemResult, fingerprint: it.fp });
    }
    await t.db.update(submissions).set({ currentRunId: r!.id }).where(eq(submissions.id, e.id));
    return r!.id;
  }

  const record = (e: Entry, runId = e.runId) => writeTx(t.db, (tx) => recordRunIntegrity(tx, { id: runId, submissionId: e.id, versionId: version, agent: e.agent }, ENGINE, at(100)));
  const flagsOf = async (runId: number) => (await t.db.select({ flags: scoringRuns.flags }).from(scoringRuns).where(eq(scoringRuns.id, runId)))[0]!.flags;
  const items = (n: number, prefix = "f", score = 0) => Array.from({ length: n }, (_, i) => ({ fp: `${prefix}${i}`, score }));

  it("flag the entry whose content arrived later, whatever the ids: an earlier submission revised into a copy is the copy", async () => {
    // A was submitted first (lower id) but its current bundle, a copy of B's, arrived after B's.
    const a = await entry("framer", at(30), items(6));
    const b = await entry("victim", at(10), items(6));
    expect(a.id).toBeLessThan(b.id);
    // The framer's run completes: it is the copy.
    expect((await record(a)).flags).toEqual([expect.objectContaining({ kind: "duplicate", share: 1, other: { id: b.id, agent: "victim" } })]);
    expect(storedFlags(await flagsOf(b.runId))).toEqual([]);
    // The victim rescored afterwards: still never flagged by content that arrived after it; the framer keeps one flag.
    expect((await record(b)).flags).toEqual([]);
    expect(storedFlags(await flagsOf(a.runId)).map((f) => [f.kind, f.other?.id])).toEqual([["duplicate", b.id]]);
  });

  it("put the flag on the later entry when it was scored first", async () => {
    const later = await entry("later", at(20), items(5));
    const earlier = await entry("earlier", at(5), items(5));
    expect((await record(earlier)).flags).toEqual([]);
    expect(storedFlags(await flagsOf(later.runId)).map((f) => [f.kind, f.other?.id])).toEqual([["duplicate", earlier.id]]);
    const flagRows = () => t.db.select().from(auditLog).where(and(eq(auditLog.submissionId, later.id), eq(auditLog.action, "flag:duplicate")));
    expect(await flagRows()).toHaveLength(1);
    // The earlier entry's content scored again: the later one's flag is as it was, and its log says nothing new.
    const before = await flagsOf(later.runId);
    await record(earlier, await run(earlier, items(5)));
    expect(await flagsOf(later.runId)).toEqual(before);
    expect(await flagRows()).toHaveLength(1);
  });

  it("count at most MAX_COUNTED_ENTRIES earlier entries in one flag, saying 'at least' past it", async () => {
    const first = await entry("first", at(1), items(3));
    for (let i = 1; i < MAX_COUNTED_ENTRIES + 5; i++) await entry(`same-${i}`, at(1 + i), items(3));
    const copy = await entry("copy", at(10_000), items(3));
    const [flag] = storedFlags(await record(copy));
    expect(flag).toMatchObject({ kind: "duplicate", other: { id: first.id }, more: MAX_COUNTED_ENTRIES - 1 });
    expect(flag!.entries).toHaveLength(MAX_COUNTED_ENTRIES);
    expect(flag!.message).toContain(`and as at least ${MAX_COUNTED_ENTRIES - 1} more entries submitted before it.`);
  });

  it("give each of many copies one duplicate flag naming the first received and counting the others", async () => {
    const original = await entry("original", at(1), items(8));
    const copies: Entry[] = [];
    for (let i = 1; i <= 5; i++) {
      copies.push(await entry(`copy-${i}`, at(1 + i), items(8)));
      await record(copies.at(-1)!);
    }
    const last = storedFlags(await flagsOf(copies[4]!.runId));
    expect(last).toHaveLength(1);
    expect(last[0]).toMatchObject({ kind: "duplicate", other: { id: original.id, agent: "original" }, more: 4, share: 1 });
    expect(last[0]!.message).toBe(`100% of this entry's answered items (8 of 8) carry the same answers and tool calls as entry #${original.id} (original), submitted before it, and as 4 more entries submitted before it.`);
    const first = storedFlags(await flagsOf(copies[0]!.runId));
    expect(first.map((f) => [f.kind, f.other?.id, f.more])).toEqual([["duplicate", original.id, undefined]]);
    // The original rescored: every copy's flag is worked out again, still one each; the original has none.
    await record(original, await run(original, items(8)));
    for (const [i, c] of copies.entries()) expect(storedFlags(await flagsOf(c.runId)).map((f) => [f.kind, f.other?.id, f.more ?? 0]), c.agent).toEqual([["duplicate", original.id, i]]);
    expect(storedFlags(await flagsOf((await t.db.select().from(submissions).where(eq(submissions.id, original.id)))[0]!.currentRunId!))).toEqual([]);
  });

  it("call an entry a near copy only when most items match and every item scores the same", async () => {
    const scores = [1, 0, 1, 0, 1, 0, 1, 0, 1, 0];
    const original = await entry("original", at(1), scores.map((score, i) => ({ fp: `f${i}`, score })));
    // 7 of 10 the same, 3 reworded: the same score vector.
    const reworded = await entry("reworded", at(2), scores.map((score, i) => ({ fp: i < 7 ? `f${i}` : `r${i}`, score })));
    // The same 7, but one reworded item scored differently.
    const different = await entry("different", at(3), scores.map((score, i) => ({ fp: i < 7 ? `f${i}` : `d${i}`, score: i === 9 ? 1 : score })));
    // Only 4 of 10 the same.
    const fewer = await entry("fewer", at(4), scores.map((score, i) => ({ fp: i < 4 ? `f${i}` : `x${i}`, score })));
    const near = (await record(reworded)).flags;
    expect(near).toEqual([expect.objectContaining({ kind: "near_copy", share: 0.7, count: 7, of: 10, threshold: 0.5, other: { id: original.id, agent: "original" } })]);
    expect(near[0]!.message).toBe(`70% of this entry's answered items (7 of 10) carry the same answers and tool calls as entry #${original.id} (original), submitted before it; all 10 items score the same as there: a near copy.`);
    expect((await record(different)).flags).toEqual([]);
    // "fewer" matches the original on 4 items but "reworded" on 4 as well: no near copy of either.
    expect((await record(fewer)).flags).toEqual([]);
  });

  it("clear a flag with a reason: audited, gone from every public reader, listed for maintainers, kept on a rescore of the same bundle only", async () => {
    const original = await entry("original", at(1), items(4));
    const copy = await entry("copy", at(2), items(4));
    await record(copy);
    expect(await isFlagged(t.db, copy.id)).toBe(true);
    const [flag] = storedFlags(await flagsOf(copy.runId));
    const who = { actor: "maintainer (admin page)", at: at(200) };
    // No reason, a stale run or an unknown key: refused, nothing changes.
    await expect(clearFlag(t.db, copy.id, { runId: copy.runId, key: flagKey(flag!), reason: "  " }, who)).rejects.toThrow(TransitionError);
    await expect(clearFlag(t.db, copy.id, { runId: copy.runId + 100, key: flagKey(flag!), reason: "ok" }, who)).rejects.toThrow(TransitionError);
    await expect(clearFlag(t.db, copy.id, { runId: copy.runId, key: "canary::", reason: "ok" }, who)).rejects.toThrow(TransitionError);
    expect(await isFlagged(t.db, copy.id)).toBe(true);

    await clearFlag(t.db, copy.id, { runId: copy.runId, key: flagKey(flag!), reason: "Same lab: the original's authors resubmitted it under a new name." }, who);
    expect(await isFlagged(t.db, copy.id)).toBe(false);
    expect(storedFlags(await flagsOf(copy.runId))).toEqual([]);
    const log = await t.db.select().from(auditLog).where(and(eq(auditLog.submissionId, copy.id), eq(auditLog.action, "flag:cleared")));
    expect(log).toEqual([
      expect.objectContaining({
        actor: "maintainer (admin page)",
        reason: "duplicate flag cleared by a maintainer",
        details: { runId: copy.runId, kind: "duplicate", key: flagKey(flag!), message: flag!.message, reason: "Same lab: the original's authors resubmitted it under a new name." },
      }),
    ]);
    const review = (await getFlagReview(t.db, copy.id))!;
    expect(review.flags).toEqual([]);
    expect(review.cleared).toEqual([{ key: flagKey(flag!), kind: "duplicate", message: flag!.message, reason: "Same lab: the original's authors resubmitted it under a new name.", by: "maintainer (admin page)", at: at(200).toISOString() }]);
    // Clearing it again: nothing raised under that key any more.
    await expect(clearFlag(t.db, copy.id, { runId: copy.runId, key: flagKey(flag!), reason: "again" }, who)).rejects.toThrow(TransitionError);

    // A rescore of the same bundle, and the original completing again (which works the copy's flags out anew): it stays cleared.
    const rescored = await run(copy, items(4));
    expect((await record(copy, rescored)).flags).toEqual([]);
    await record(original, await run(original, items(4)));
    expect(await isFlagged(t.db, copy.id)).toBe(false);
    expect((await getFlagReview(t.db, copy.id))!.cleared.map((c) => c.kind)).toEqual(["duplicate"]);

    // New bundle content (a revision received after the clearing), still a copy: looked at afresh, flagged again.
    await t.db.update(submissions).set({ bundleReceivedAt: at(300) }).where(eq(submissions.id, copy.id));
    expect((await record(copy, await run(copy, items(4)))).flags.map((f) => f.kind)).toEqual(["duplicate"]);
    expect(await isFlagged(t.db, copy.id)).toBe(true);
  });
});
