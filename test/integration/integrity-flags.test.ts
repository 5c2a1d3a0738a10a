/**
 * Integrity flags end to end: both demos scored into a database by the worker (MCP replay, rules
 * judge), then weak-agent's outputs resubmitted under a new name and a bundle with the demo's
 * canary planted in one answer. What the board, the entry page's data, the admin list and the
 * bot comment say about each.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { and, eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rows, type Db } from "@/db/client";
import { auditLog, scoringRuns, submissions } from "@/db/schema";
import { getReviewQueue } from "@/lib/queries/activity";
import { isFlagged } from "@/lib/queries/integrity";
import { getLeaderboard } from "@/lib/queries/leaderboard";
import { getSubmission } from "@/lib/queries/submission";
import { loadDemoEntries } from "@/lib/submissions/demo-entries";
import { loadIssueStatus, renderStatusComment } from "@/lib/submissions/github-status";
import { ingestBundle } from "@/lib/submissions/ingest";
import { approve, rescore } from "@/lib/submissions/review";
import { createScoringDeps } from "@/lib/submissions/scoring-deps";
import { runWorker } from "@/lib/submissions/worker";
import { DEMO_CANARY, DEMO_DIR, NVIDIA_DEMO_DIR } from "@/scripts/demo/build-demo";
import { resubmitted, withCanary } from "../helpers/demo-copies";
import { tickingClock } from "../helpers/mini-fixtures";
import { ENGINES, freshDatabase, type TestDatabase } from "../helpers/engines";

const now = tickingClock();
const tmp = mkdtempSync(path.join(tmpdir(), "agentboard-integrity-"));
describe.each(ENGINES)("integrity flags (%s)", (engine) => {
  let t: TestDatabase;
  let db: Db;
  let deps: ReturnType<typeof createScoringDeps>;
  let versionId: number;
  const ids: Record<string, number> = {};
  let copyId: number;
  let canary: { id: number; uuid: string };

  const idOf = async (agent: string) => (await db.select({ id: submissions.id }).from(submissions).where(eq(submissions.agentName, agent)))[0]!.id;
  const runFlags = async (id: number) => {
    const [sub] = await db.select().from(submissions).where(eq(submissions.id, id));
    return (await db.select({ flags: scoringRuns.flags }).from(scoringRuns).where(eq(scoringRuns.id, sub!.currentRunId!)))[0]!.flags!;
  };

  async function submit(bundle: string): Promise<number> {
    const out = await ingestBundle(db, { versionId, bundlePath: bundle, source: "local", sourceRef: bundle, actor: "cli" }, now);
    expect(out.state).toBe("queued");
    await runWorker(db, deps, { untilIdle: true });
    return out.submissionId;
  }

  beforeAll(async () => {
    t = await freshDatabase(engine);
    db = t.db;
    deps = createScoringDeps(db, { now });
    versionId = (await loadDemoEntries(db, DEMO_DIR, deps)).versionId;
    await loadDemoEntries(db, NVIDIA_DEMO_DIR, deps, undefined, { isDefault: false });
    for (const agent of ["oracle", "strong-agent", "weak-agent", "policy-breaker", "fabricator", "partial-entry"]) ids[agent] = await idOf(agent);
    copyId = await submit(resubmitted(path.join(tmp, "copy"), "weak-agent", { agent_name: "weak-agent-v2", models: ["my-model"], maintainer: "someone else" }));
    const planted = withCanary(path.join(tmp, "canary"), "strong-agent");
    canary = { id: await submit(planted.bundle), uuid: planted.uuid };
  }, 240_000);

  afterAll(async () => {
    await deps.close();
    await t.close();
    rmSync(tmp, { recursive: true, force: true });
  });

  describe("unsupported answers", () => {
    it("flag the fabricator in every capability, and no other entry of either demo", async () => {
      const board = (await getLeaderboard(db))!;
      const flags = Object.fromEntries(board.entries.map((e) => [e.agent, e.flags]));
      expect(flags).toEqual({ oracle: [], "strong-agent": [], "steady-agent": [], "policy-breaker": [], "partial-entry": [], "weak-agent": [], fabricator: ["unsupported_answers"] });
      expect(board.entries.find((e) => e.agent === "fabricator")!.badges.flagged).toBe(true);
      const nvidia = (await getLeaderboard(db, { benchmark: "demo-nvidia" }))!;
      expect(nvidia.entries.length).toBe(4);
      for (const e of nvidia.entries) expect({ agent: e.agent, flags: e.flags }).toEqual({ agent: e.agent, flags: [] });
    });

    it("show the fabricator's share per capability (all 75 scored items) against the threshold of 50%", async () => {
      const integrity = (await getSubmission(db, ids.fabricator!))!.integrity!;
      expect(integrity.unsupportedAnswers.threshold).toBe(0.5);
      expect(integrity.unsupportedAnswers.capabilities.map((c) => [c.id, c.unsupported, c.scored, c.share, c.flagged])).toEqual([
        ["api_chaining", 75, 75, 1, true],
        ["tool_selection", 75, 75, 1, true],
        ["multihop", 75, 75, 1, true],
        ["multiturn", 75, 75, 1, true],
      ]);
      expect(integrity.flags.map((f) => f.message)).toContain(
        "API chaining: 100% of scored items (75 of 75) have a correct answer that the replayed tool calls do not support, above the benchmark's threshold of 50%.",
      );
      expect(integrity.flags[0]!.items).toHaveLength(50);
      expect(integrity.flags[0]!.count).toBe(75);
    });

    it("stay well under the threshold for the others (weak-agent's list answers copy values without the calls: at most 20%)", async () => {
      for (const agent of ["oracle", "strong-agent", "policy-breaker", "partial-entry", "weak-agent"]) {
        const caps = (await getSubmission(db, ids[agent]!))!.integrity!.unsupportedAnswers.capabilities.filter((c) => c.applies && c.scored > 0);
        expect(caps.length, agent).toBeGreaterThan(0);
        for (const c of caps) expect(c.share!, `${agent} ${c.id}`).toBeLessThanOrEqual(agent === "weak-agent" ? 0.2 : 0);
      }
      const vss = (await getSubmission(db, await idOf("reference-agent")))!.integrity!;
      expect(vss.unsupportedAnswers.capabilities.every((c) => !c.applies)).toBe(true);
      expect(vss.flags).toEqual([]);
    });
  });

  describe("duplicates", () => {
    it("flag weak-agent's outputs resubmitted under a new name, naming weak-agent and the share, before approval", async () => {
      const copy = (await getSubmission(db, copyId))!;
      expect(copy.state).toBe("scored");
      // Scored the same as the original: without the flag it would rank beside it.
      expect(copy.run!.overall!.score).toBeCloseTo((await getSubmission(db, ids["weak-agent"]!))!.run!.overall!.score, 10);
      expect(copy.integrity!.flags).toHaveLength(1);
      expect(copy.integrity!.flags[0]).toMatchObject({ kind: "duplicate", share: 1, count: 259, of: 259, other: { id: ids["weak-agent"], agent: "weak-agent", published: true } });
      expect(copy.integrity!.flags[0]!.message).toBe(`100% of this entry's answered items (259 of 259) carry the same answers and tool calls as entry #${ids["weak-agent"]} (weak-agent), submitted before it.`);
      expect((await isFlagged(db, copyId))).toBe(true);
      const row = (await getReviewQueue(db)).find((r) => r.id === copyId)!;
      expect(row.flags).toEqual([{ kind: "duplicate", message: copy.integrity!.flags[0]!.message }]);
    });

    it("leave the distinct demo entries well below the threshold: the largest share is strong-agent's against the oracle, 105 of 294", async () => {
      const agents = ["oracle", "strong-agent", "weak-agent", "policy-breaker", "fabricator", "partial-entry"];
      const runOf = async (agent: string) => (await db.select({ run: submissions.currentRunId }).from(submissions).where(eq(submissions.id, ids[agent]!)))[0]!.run!;
      const answered = async (run: number) => (await rows<{ n: number }>(db, sql`SELECT count(*) AS n FROM item_results WHERE run_id = ${run} AND fingerprint IS NOT NULL`))[0]!;
      const shared = async (mine: number, theirs: number) =>
        (await rows<{ n: number }>(db, sql`SELECT count(*) AS n FROM item_results a WHERE a.run_id = ${mine} AND a.fingerprint IN (SELECT fingerprint FROM item_results WHERE run_id = ${theirs} AND fingerprint IS NOT NULL)`))[0]!;
      const shares: { pair: string; count: number; of: number }[] = [];
      for (const a of agents) for (const b of agents.filter((x) => x !== a)) shares.push({ pair: `${a} vs ${b}`, count: (await shared(await runOf(a), await runOf(b))).n, of: (await answered(await runOf(a))).n });
      const largest = shares.reduce((best, s) => (s.count / s.of > best.count / best.of ? s : best));
      expect(largest).toEqual({ pair: "strong-agent vs oracle", count: 105, of: 294 });
      expect(largest.count / largest.of).toBeLessThan(0.9 / 2);
    });

    it("leave the original unflagged, and a rescore of the original flags only the copy, once", async () => {
      expect((await runFlags(ids["weak-agent"]!)).flags).toEqual([]);
      const copyFlagsBefore = (await runFlags(copyId)).flags;
      await rescore(db, ids["weak-agent"]!, { actor: "maintainer", at: now() });
      await runWorker(db, deps, { untilIdle: true });
      expect((await getSubmission(db, ids["weak-agent"]!))!.state).toBe("scored");
      expect((await runFlags(ids["weak-agent"]!)).flags).toEqual([]);
      const copyFlags = (await runFlags(copyId)).flags;
      expect(copyFlags.map((f) => [f.kind, f.other?.id, f.share])).toEqual([["duplicate", ids["weak-agent"], 1]]);
      // The copy's flag is the one it had: nothing changed on its page, so nothing new in its log.
      expect(copyFlags.map((f) => f.message)).toEqual(copyFlagsBefore.map((f) => f.message));
      const log = await db.select().from(auditLog).where(and(eq(auditLog.submissionId, copyId), eq(auditLog.action, "flag:duplicate")));
      expect(log).toEqual([]);
      await approve(db, ids["weak-agent"]!, { actor: "maintainer", at: now() });
    }, 60_000);

    it("publish a flagged entry with its badge, if a maintainer approves it anyway", async () => {
      await approve(db, copyId, { actor: "maintainer", at: now() });
      const entry = (await getLeaderboard(db))!.entries.find((e) => e.id === copyId)!;
      expect(entry).toMatchObject({ agent: "weak-agent-v2", flags: ["duplicate"], badges: { flagged: true } });
    });
  });

  describe("canaries", () => {
    it("flag an entry whose answer holds the benchmark's canary, naming the item, never the canary", async () => {
      const detail = (await getSubmission(db, canary.id))!;
      const flag = detail.integrity!.flags.find((f) => f.kind === "canary")!;
      expect(flag).toMatchObject({ count: 1, items: [{ capability: "tool_selection", uuid: canary.uuid }], inMetadata: false });
      expect(flag.message).toBe("A canary string of this benchmark appears in the submitted text of 1 item: the agent's model may have been trained on the benchmark's data.");
      expect(JSON.stringify(detail).toLowerCase()).not.toContain("7c0f3d52");
      expect(DEMO_CANARY).toContain("7c0f3d52");
      // The bundle it was copied from carries no canary.
      expect((await runFlags(ids["strong-agent"]!)).flags).toEqual([]);
    });
  });

  describe("the bot comment", () => {
    it("lists each flag with what triggered it, neutralised", async () => {
      const body = renderStatusComment((await loadIssueStatus(db, { author: "someone", problem: null, submissionId: copyId }, "https://board.example")));
      expect(body).toContain("#### ⚑ Integrity flags (1)");
      // Markdown punctuation escaped, the issue reference broken (a zero-width space after #).
      expect(body).toContain(`- **duplicate**: 100% of this entry's answered items \\(259 of 259\\) carry the same answers and tool calls as entry \\#\u200b${ids["weak-agent"]} \\(weak-agent\\), submitted before it.`);
      // The score table reads as the board does (stored scores are 0–100).
      expect(body).toContain("| **Overall** | **29.7** |");
      const fabricator = renderStatusComment((await loadIssueStatus(db, { author: "someone", problem: null, submissionId: ids.fabricator! }, "https://board.example")));
      expect(fabricator).toContain("#### ⚑ Integrity flags (4)");
      expect(fabricator).toContain("- **unsupported answers**: Multi-source + policy: 100% of scored items \\(75 of 75\\)");
      const oracle = renderStatusComment((await loadIssueStatus(db, { author: "someone", problem: null, submissionId: ids.oracle! }, "https://board.example")));
      expect(oracle).not.toContain("Integrity flags");
    });
  });
});
