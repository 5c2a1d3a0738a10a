/**
 * The read models pages use, on a real database (each engine): who may see an entry, what the
 * public changelog shows of a CLI bundle's path, and how much of hostile strings is read back.
 */
import { cpSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { eq } from "drizzle-orm";
import { afterAll, describe, expect, it } from "vitest";
import { auditLog, submissions } from "@/db/schema";
import { getAuditLogPage, publishedIds } from "@/lib/queries/activity";
import { getChangelogPage } from "@/lib/queries/changelog";
import { getQueue } from "@/lib/queries/queue";
import { getLeaderboard } from "@/lib/queries/leaderboard";
import { PUBLIC_RENDER_LIMITS } from "@/lib/queries/render-limits";
import { getSubmission } from "@/lib/queries/submission";
import { entryAccess } from "@/lib/queries/visibility";
import { ingestBundle } from "@/lib/submissions/ingest";
import { approve } from "@/lib/submissions/review";
import { ENGINES } from "../../helpers/engines";
import { scoreThroughWorker, useMiniDb } from "../../helpers/mini-db";
import { GOOD_BUNDLE, INVALID_BUNDLE, tickingClock } from "../../helpers/mini-fixtures";

const tmp = mkdtempSync(path.join(tmpdir(), "agentboard-page-queries-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const now = tickingClock();

describe.each(ENGINES)("page queries (%s)", (engine) => {
  const mini = useMiniDb(now, engine);

  /** A copy of a bundle under a private-looking absolute path, optionally with new metadata. */
  function copyBundle(from: string, name: string, metadata?: Record<string, unknown>): string {
    const dir = path.join(tmp, "home", "alice", "private-lab", name);
    cpSync(from, dir, { recursive: true });
    if (metadata) writeFileSync(path.join(dir, "output/metadata.json"), JSON.stringify(metadata));
    return dir;
  }

  async function publishGood(metadata?: Record<string, unknown>): Promise<number> {
    const bundle = copyBundle(GOOD_BUNDLE, `good-${Math.random().toString(36).slice(2)}`, metadata);
    const submissionId = await scoreThroughWorker(mini, bundle, now);
    await approve(mini.db, submissionId, { actor: "maintainer:ada", at: now() });
    return submissionId;
  }

  describe("who may see an entry", () => {
    it("shows published entries to everyone and the rest to maintainers only", async () => {
      const bundle = copyBundle(INVALID_BUNDLE, "invalid");
      const { submissionId: invalid } = await ingestBundle(mini.db, { versionId: mini.versionId, bundlePath: bundle, source: "local", sourceRef: bundle, actor: "cli" }, now);
      const published = await publishGood();
      expect(await entryAccess(mini.db, invalid, { maintainer: false })).toBeNull();
      expect((await entryAccess(mini.db, invalid, { maintainer: true }))?.state).toBe("invalid");
      expect((await entryAccess(mini.db, published, { maintainer: false }))?.state).toBe("published");
      expect(await entryAccess(mini.db, 9999, { maintainer: true })).toBeNull();
      expect(await entryAccess(mini.db, null, { maintainer: true })).toBeNull();
      expect([...(await publishedIds(mini.db, [invalid, published, 9999]))]).toEqual([published]);
    });

    it("gives the larger limits only to a maintainer who asks for them", async () => {
      const published = await publishGood();
      expect((await entryAccess(mini.db, published, { maintainer: false, wantsFull: true }))?.full).toBe(false);
      expect((await entryAccess(mini.db, published, { maintainer: true, wantsFull: true }))?.full).toBe(true);
      expect((await entryAccess(mini.db, published, { maintainer: true }))?.full).toBe(false);
    });
  });

  describe("server paths", () => {
    it("never shows a CLI bundle's absolute path in the changelog or the entry", async () => {
      const bundle = copyBundle(INVALID_BUNDLE, "secret-name");
      const { submissionId } = await ingestBundle(mini.db, { versionId: mini.versionId, bundlePath: bundle, source: "local", sourceRef: bundle, actor: "cli" }, now);
      await publishGood();
      // The maintainers' full log keeps the "received" reason, shortened; the public changelog does not list it at all.
      const log = JSON.stringify((await getAuditLogPage(mini.db, { pageSize: 100 })).rows);
      expect(log).toContain("private-lab/secret-name"); // the short form is kept
      const changelog = JSON.stringify((await getChangelogPage(mini.db, { pageSize: 100 })).rows);
      for (const text of [log, changelog]) {
        expect(text).not.toContain(tmp);
        expect(text).not.toContain("/home/alice");
      }
      const detail = JSON.stringify(await getSubmission(mini.db, submissionId));
      expect(detail).not.toContain(tmp);
      expect(detail).not.toContain("/home/alice");
    });
  });

  describe("hostile strings", () => {
    it("reads back long names and descriptions cut to the public limits", async () => {
      const bundle = copyBundle(GOOD_BUNDLE, "huge");
      const { submissionId } = await ingestBundle(mini.db, { versionId: mini.versionId, bundlePath: bundle, source: "local", sourceRef: bundle, actor: "cli" }, now);
      // Stored as a row from before the validator's limits would hold them.
      const models = Array.from({ length: 500 }, (_, i) => `model-${i}-${"m".repeat(1000)}`);
      const links = Object.fromEntries(Array.from({ length: 500 }, (_, i) => [`l${i}`, `https://x.example/${"p".repeat(5000)}`]));
      await mini.db.update(submissions).set({ agentName: "A".repeat(70_000), maintainer: "M".repeat(50_000), description: "D".repeat(300_000), models, links }).where(eq(submissions.id, submissionId));
      const detail = (await getSubmission(mini.db, submissionId))!;
      expect(JSON.stringify(detail).length).toBeLessThan(60_000);
      expect(detail.agent.length).toBeLessThanOrEqual(PUBLIC_RENDER_LIMITS.name + 40);
      expect(detail.description.length).toBeLessThanOrEqual(PUBLIC_RENDER_LIMITS.text + 40);
      expect(detail.models.length).toBeLessThanOrEqual(PUBLIC_RENDER_LIMITS.list);
      expect(detail.truncated).toBeGreaterThan(0);
      expect((await getQueue(mini.db)).find((r) => r.id === submissionId)!.agent.length).toBeLessThanOrEqual(PUBLIC_RENDER_LIMITS.name + 40);
    });

    it("cuts a published entry's names on the board as on its page", async () => {
      const id = await publishGood();
      const models = Array.from({ length: 500 }, (_, i) => `model-${i}-${"m".repeat(1000)}`);
      await mini.db.update(submissions).set({ agentName: "A".repeat(70_000), maintainer: "M".repeat(50_000), models }).where(eq(submissions.id, id));
      await mini.db.insert(auditLog).values({ at: new Date(), actor: "test", action: "edit", submissionId: id, reason: "" }); // a new data version
      const entry = (await getLeaderboard(mini.db))!.entries.find((e) => e.id === id)!;
      expect(entry.agent.length).toBeLessThanOrEqual(PUBLIC_RENDER_LIMITS.name + 40);
      expect(entry.maintainer.length).toBeLessThanOrEqual(PUBLIC_RENDER_LIMITS.name + 40);
      expect(entry.models.length).toBeLessThanOrEqual(PUBLIC_RENDER_LIMITS.list);
      for (const m of entry.models) expect(m.length).toBeLessThanOrEqual(PUBLIC_RENDER_LIMITS.name + 40);
    });

    it("shows at most 20 validation errors, each cut", async () => {
      const bundle = copyBundle(INVALID_BUNDLE, "invalid-many");
      const { submissionId } = await ingestBundle(mini.db, { versionId: mini.versionId, bundlePath: bundle, source: "local", sourceRef: bundle, actor: "cli" }, now);
      // Make the stored report hostile: thousands of errors with huge messages (as a 94 MB bundle would).
      const errors = Array.from({ length: 2000 }, (_, i) => ({ code: "bad", file: `f${i}.json`, path: "$", message: "x".repeat(5_000) }));
      const report = { summary: { errors: 2000, warnings: 0 }, errors, warningCounts: Object.fromEntries(Array.from({ length: 1000 }, (_, i) => [`w${i}`, i + 1])) };
      await mini.db.update(submissions).set({ validationReport: report as never }).where(eq(submissions.id, submissionId));
      const v = (await getSubmission(mini.db, submissionId))!.validation!;
      expect(v.errors).toBe(2000);
      expect(v.firstErrors).toHaveLength(20);
      // The first ones, in the report's order; the warnings with their counts, in theirs.
      expect(v.firstErrors.map((e) => e.file)).toEqual(Array.from({ length: 20 }, (_, i) => `f${i}.json`));
      expect(Object.entries(v.warningCounts).slice(0, 3)).toEqual([["w0", 1], ["w1", 2], ["w2", 3]]);
      for (const e of v.firstErrors) expect(e.message.length).toBeLessThanOrEqual(PUBLIC_RENDER_LIMITS.text + 40);
      expect(Object.keys(v.warningCounts).length).toBeLessThanOrEqual(PUBLIC_RENDER_LIMITS.list);
    });
  });

  describe("cost and latency", () => {
    it("reach the board and the entry page from the scored run: latency from duration_s, tokens and dollars from the metadata's usage", async () => {
      const id = await publishGood({ agent_name: "thrifty", usage: { prompt_tokens: 9000, completion_tokens: 1000, cost_usd: 0.125 } });
      const entry = (await getLeaderboard(mini.db))!.entries.find((e) => e.id === id)!;
      expect(entry.cost).toMatchObject({ totalTokens: 10_000, costUsd: 0.125 });
      expect(entry.cost.latencyMedianS).toBeGreaterThan(0);
      expect(entry.cost.latencyP95S).toBeGreaterThanOrEqual(entry.cost.latencyMedianS!);
      const run = (await getSubmission(mini.db, id))!.run!.cost!;
      expect(run.usage).toEqual({ source: "metadata", records: 0, inputTokens: 9000, outputTokens: 1000, totalTokens: 10_000, costUsd: 0.125 });
      expect(run.latency?.n).toBe(run.items);
    });
  });
});
