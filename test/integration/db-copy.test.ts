/**
 * `agentboard db copy`: a SQLite database with rows in every table (ids with gaps, GitHub ids
 * past 2^31, JSON, booleans, nulls, millisecond times) copied into a new Postgres database
 * reads back row for row the same through the shared tables; the identity sequences continue
 * after the copied ids; a target that holds data is refused. Needs the test cluster.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { sql } from "drizzle-orm";
import { getTableConfig } from "drizzle-orm/sqlite-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "@/db/client";
import * as s from "@/db/schema";
import { copyDatabase, tablesInCopyOrder, tableName, TargetNotEmptyError, type TableProgress } from "@/lib/submissions/db-copy";
import { ENGINES, freshDatabase, type TestDatabase } from "../helpers/engines";
import { REPO, runCli } from "../helpers/run-cli";

const at = (ms: number) => new Date(1_700_000_000_000 + ms);
const BIG_COMMENT_ID = 2 ** 31 + 12_345;
const BIGGER_COMMENT_ID = 2 ** 40 + 7;
const ITEM_ROWS = 11;

/** Rows in every table, with the values a codec could get wrong. */
async function seed(db: Db): Promise<void> {
  await db.insert(s.benchmarks).values([
    { id: 3, slug: "vakra", title: "VAKRA", description: "tool use ✓ «quoted»", isDefault: true, createdAt: at(1) },
    { id: 7, slug: "mini", title: "Mini", isDefault: false, createdAt: at(2) },
  ]);
  await db.insert(s.benchmarkVersions).values([
    { id: 4, benchmarkId: 3, version: "1.0", root: "/bench/vakra", spec: { capabilities: [{ id: "tool_selection", weight: 1.5 }], showGroundTruth: false }, files: { "benchmark.yaml": "ab".repeat(32) }, createdAt: at(3) },
    { id: 5, benchmarkId: 7, version: "2.0", root: "/bench/mini", spec: {}, files: null, createdAt: at(4) },
  ]);
  const submission = { agentName: "agent", maintainer: "", description: "", contact: "", agentType: "", notes: "", sourceRef: "/b", bundlePath: "/b.zip", createdAt: at(5), updatedAt: at(6) };
  await db.insert(s.submissions).values([
    { ...submission, id: 10, benchmarkVersionId: 4, models: ["gpt-x", "local/llama"], links: { repo: "https://example.test/r" }, source: "github", bundleSha256: "a".repeat(64), isDemo: false, state: "published", validationReport: { valid: true, errors: [] }, currentRunId: 20, revision: 2 },
    { ...submission, id: 12, benchmarkVersionId: 5, models: [], links: {}, source: "local", bundleSha256: "b".repeat(64), isDemo: true, state: "queued", validationReport: null, currentRunId: null },
  ]);
  await db.insert(s.scoringRuns).values([
    {
      id: 20,
      submissionId: 10,
      judgeKind: "openai",
      judgeModel: "judge-1",
      judgeId: "openai:judge-1",
      judge: { id: "openai:judge-1", kind: "openai", model: "judge-1" } as never,
      replayMode: "mcp",
      verified: true,
      status: "completed",
      progressDone: ITEM_ROWS,
      progressTotal: ITEM_ROWS,
      overallScore: 0.1 + 0.2,
      overallCiLow: -0,
      overallCiHigh: 1e-300,
      complete: false,
      cost: { tokens: 12 } as never,
      manifest: { schema: "agentboard.manifest/1", seed: 42 } as never,
      flags: null,
      trials: 3,
      trialStats: { overall: { perTrial: [0.5, 0.25] } } as never,
      error: null,
      createdAt: at(7),
      startedAt: at(8),
      finishedAt: at(9),
    },
    { id: 21, submissionId: 12, judgeKind: "rules", replayMode: "none", status: "queued", complete: null, createdAt: at(10), startedAt: null, finishedAt: null },
  ]);
  await db.insert(s.itemResults).values(
    Array.from({ length: ITEM_ROWS }, (_, i) => ({
      id: 100 + i * 3,
      runId: 20,
      capability: i % 2 ? "multiturn" : "tool_selection",
      domain: "harbor",
      uuid: `item-${i}`,
      trial: 1 + (i % 3),
      weight: 1 / 3,
      score: i / 7,
      status: "scored" as const,
      stage: "correctness" as const,
      exactPassed: i % 2 === 0,
      policy: i % 4 === 0 ? null : ("pass" as never),
      result: { uuid: `item-${i}`, verdicts: [{ stage: "exact", outcome: "pass", note: "naïve \"quote\" \\ back" }] } as never,
      fingerprint: i % 5 === 0 ? null : `fp-${i}`,
    })),
  );
  await db.insert(s.capabilityScores).values([
    { runId: 20, capability: "tool_selection", score: 50, ciLow: 12.5, ciHigh: 87.5, submitted: true, nItems: 6, nMissing: 0, nError: 1, nPolicyUnchecked: 2, statusCounts: { scored: 5, judge_error: 1 } as never },
    { runId: 20, capability: "multiturn", score: 66.666, ciLow: 0, ciHigh: 100, submitted: false, nItems: 5, nMissing: 5, nError: 0, nPolicyUnchecked: 0, statusCounts: {} as never },
  ]);
  await db.insert(s.domainScores).values([
    { runId: 20, capability: "tool_selection", domain: "harbor", score: 50, nItems: 6 },
    { runId: 20, capability: "multiturn", domain: "harbor", score: 66.666, nItems: 5 },
  ]);
  await db.insert(s.gradeCache).values([{ key: "k".repeat(64), grade: { outcome: "pass", score: 1 } as never, createdAt: at(11) }]);
  await db.insert(s.jobs).values([
    { id: 30, kind: "score", runId: 20, state: "done", attempts: 1, lockedBy: null, leaseToken: null, heartbeatAt: null, lastError: null, createdAt: at(12), updatedAt: at(13) },
    { id: 33, kind: "score", runId: 21, state: "running", attempts: 2, lockedBy: "host:1", leaseToken: "tok", heartbeatAt: at(14), lastError: "crashed", createdAt: at(15), updatedAt: at(16) },
  ]);
  await db.insert(s.auditLog).values([
    { id: 40, at: at(17), actor: "cli", action: "submit", submissionId: 10, fromState: null, toState: "queued", details: null },
    { id: 41, at: at(18), actor: "admin", action: "publish", submissionId: 10, fromState: "approved", toState: "published", reason: "looks good", details: { runId: 20, overall: 0.3, previousRunId: null, previousOverall: null } },
    { id: 45, at: at(19), actor: "system", action: "note", submissionId: null, details: {} },
  ]);
  await db.insert(s.githubIssues).values([
    { id: 50, repo: "org/board", number: 17, submissionId: 10, author: "octo", bodySha256: "c".repeat(64), zipUrl: "https://example.test/b.zip", commentId: BIG_COMMENT_ID, postedHash: "h", problem: null, lastCommentId: BIGGER_COMMENT_ID, createdAt: at(20), updatedAt: at(21) },
    { id: 51, repo: "org/board", number: 18, submissionId: null, author: "cat", bodySha256: null, zipUrl: null, commentId: null, postedHash: null, problem: "no ZIP link", createdAt: at(22), updatedAt: at(23) },
  ]);
  await db.insert(s.githubDeliveries).values([
    { deliveryId: "d-1", event: "issues", payload: { action: "opened", issue: { number: 17, id: BIGGER_COMMENT_ID } }, status: "done", attempts: 1, error: null, receivedAt: at(24), processedAt: at(25), leaseToken: null, leasedAt: null },
    { deliveryId: "d-2", event: "issue_comment", payload: {}, status: "pending", receivedAt: at(26), processedAt: null, leaseToken: "lt", leasedAt: at(27) },
  ]);
  await db.insert(s.leases).values([{ name: "intake:org/board", holder: "host:1", token: "t1", expiresAt: at(28) }]);
  await db.insert(s.adminSessions).values([{ nonce: "n".repeat(43), expiresAt: at(29), createdAt: at(30) }]);
  await db.insert(s.judgeCalibrations).values([
    { id: 70, benchmarkVersionId: 4, judgeId: "openai:judge-1", promptDigest: "d".repeat(64), endpoint: "remote", n: 400, accuracy: 0.93, accuracyLow: 0.9, accuracyHigh: 0.96, kappa: 0.85, kappaLow: -0, kappaHigh: 1e-300, cases: 410, unjudged: 0, report: { schema: "agentboard.calibration/1", note: "κ «quoted»" } as never, calibratedAt: at(33), storedAt: at(34) },
    { id: 71, benchmarkVersionId: 5, judgeId: "rules", promptDigest: "e".repeat(64), endpoint: "none", n: 0, accuracy: null, accuracyLow: null, accuracyHigh: null, kappa: null, kappaLow: null, kappaHigh: null, cases: 3, unjudged: 0, report: {} as never, calibratedAt: at(35), storedAt: at(36) },
  ]);
  await db.insert(s.gradeDisputes).values([
    {
      key: "a".repeat(64),
      kind: "correctness",
      benchmarkVersionId: 4,
      capability: "tool_selection",
      rule: "primary",
      request: { question: "Which ship?", answer: "Ocean «Queen»", reference: "Sea Dragon", evidence: ["a\tb"], field: null },
      members: [{ judge: "openai:a", outcome: "pass", score: 1, reason: "ok", detail: null, cacheHit: false }],
      createdAt: at(37),
      decisionOutcome: "fail",
      decisionScore: 0,
      decidedBy: "admin",
      decidedAt: at(38),
      decisionReason: "another ship",
    },
    { key: "b".repeat(64), kind: "qa", benchmarkVersionId: 5, capability: "multiturn", rule: "majority", request: { question: null, answer: "", reference: null, evidence: null, field: null }, members: [], createdAt: at(39) },
  ]);
  await db.insert(s.gradeDisputeRuns).values([
    { key: "a".repeat(64), runId: 20 },
    { key: "a".repeat(64), runId: 21 },
    { key: "b".repeat(64), runId: 20 },
  ]);
  await db.insert(s.signInFailures).values([
    { id: 60, clientKey: "203.0.113.9", at: at(31) },
    { id: 64, clientKey: "203.0.113.9", at: at(32) },
  ]);
}

/** A table's rows, in a stable order (by primary key; collations differ between engines, so sorted here). */
async function tableRows(db: Db, t: ReturnType<typeof tablesInCopyOrder>[number]): Promise<unknown[]> {
  const config = getTableConfig(t);
  const key = config.primaryKeys[0]?.columns.map((c) => c.name) ?? config.columns.filter((c) => c.primary).map((c) => c.name);
  const all = (await db.select().from(t)) as Record<string, unknown>[];
  const keyOf = (r: Record<string, unknown>) => JSON.stringify(key.map((k) => r[k]));
  return all.sort((a, b) => (keyOf(a) < keyOf(b) ? -1 : keyOf(a) > keyOf(b) ? 1 : 0));
}

describe.skipIf(!ENGINES.includes("postgres"))("db copy: SQLite into Postgres", () => {
  let source: TestDatabase;
  let target: TestDatabase;
  const progress: TableProgress[] = [];
  let copied: Record<string, number>;

  beforeAll(async () => {
    source = await freshDatabase("sqlite");
    await seed(source.db);
    target = await freshDatabase("postgres");
    // Small batches: item_results takes several, as a big table would.
    copied = await copyDatabase(source.db, target.db, { batchRows: 4, onProgress: (p) => progress.push(p) });
  });
  afterAll(async () => {
    await target?.close();
    await source?.close();
  });

  it("seeds every table of the schema, so every table's copy is checked", async () => {
    const tables = tablesInCopyOrder();
    // Read from the schema's text, not through drizzle: a table the copy misses shows up here.
    const declared = [...readFileSync(path.join(REPO, "db/schema.ts"), "utf8").matchAll(/export const (\w+) = sqliteTable\(\s*"(\w+)"/g)].map((m) => m[2]);
    expect(tables.map(tableName).sort()).toEqual(declared.sort());
    for (const t of tables) expect((await tableRows(source.db, t)).length, tableName(t)).toBeGreaterThan(0);
  });

  it("copies parents before children", () => {
    const order = tablesInCopyOrder().map(tableName);
    for (const t of tablesInCopyOrder()) {
      for (const fk of getTableConfig(t).foreignKeys) expect(order.indexOf(getTableConfig(fk.reference().foreignTable).name), tableName(t)).toBeLessThan(order.indexOf(tableName(t)));
    }
  });

  it("reads back every table row for row the same on Postgres", async () => {
    for (const t of tablesInCopyOrder()) {
      const want = await tableRows(source.db, t);
      expect(copied[tableName(t)], tableName(t)).toBe(want.length);
      expect(await tableRows(target.db, t), tableName(t)).toEqual(want);
    }
    const [issue] = await target.db.select().from(s.githubIssues).where(sql`${s.githubIssues.id} = 50`);
    expect(issue).toMatchObject({ commentId: BIG_COMMENT_ID, lastCommentId: BIGGER_COMMENT_ID, createdAt: at(20) });
  });

  it("streams a table in batches and reports each", () => {
    const items = progress.filter((p) => p.table === "item_results");
    expect(items.map((p) => [p.copied, p.done])).toEqual([
      [4, false],
      [8, false],
      [11, false],
      [11, true],
    ]);
    expect(items.every((p) => p.total === ITEM_ROWS)).toBe(true);
  });

  it("moves each identity sequence past the copied ids", async () => {
    const [b] = await target.db.insert(s.benchmarks).values({ slug: "new", title: "New", createdAt: at(40) }).returning({ id: s.benchmarks.id });
    expect(b!.id).toBe(8);
    const [item] = await target.db
      .insert(s.itemResults)
      .values({ runId: 21, capability: "c", domain: "d", uuid: "u", weight: 1, score: 1, status: "scored", stage: "exact", result: {} as never })
      .returning({ id: s.itemResults.id });
    expect(item!.id).toBe(100 + (ITEM_ROWS - 1) * 3 + 1);
    const [failure] = await target.db.insert(s.signInFailures).values({ clientKey: "x", at: at(41) }).returning({ id: s.signInFailures.id });
    expect(failure!.id).toBe(65);
  });

  it("refuses a target that already holds data, and writes nothing to it", async () => {
    const before = await tableRows(target.db, s.auditLog);
    await expect(copyDatabase(source.db, target.db)).rejects.toBeInstanceOf(TargetNotEmptyError);
    expect(await tableRows(target.db, s.auditLog)).toEqual(before);
  });

  describe("through the command line", () => {
    let fresh: TestDatabase;
    beforeAll(async () => {
      fresh = await freshDatabase("postgres");
    });
    afterAll(async () => fresh?.close());

    it("copies, reports each table on stderr and the counts on stdout (exit 0)", async () => {
      const r = await runCli(["db", "copy", "--from", source.url, "--to", fresh.url]);
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout)).toEqual({ copied });
      for (const t of tablesInCopyOrder()) expect(r.stderr).toContain(`${tableName(t)}: ${copied[tableName(t)]} row(s)`);
      for (const t of tablesInCopyOrder()) expect(await tableRows(fresh.db, t), tableName(t)).toEqual(await tableRows(source.db, t));
    });

    it("exits 2 with one clean line for a target that holds data, a target that is not Postgres, or a missing source", async () => {
      const again = await runCli(["db", "copy", "--from", source.url, "--to", fresh.url]);
      expect(again.code).toBe(2);
      expect(again.stderr).toMatch(/^error: the target database already holds data \(.*benchmarks: 2 row\(s\), .*\); copy into a new, empty database$/m);
      const notPg = await runCli(["db", "copy", "--from", source.url, "--to", "/tmp/other.db"]);
      expect(notPg.code).toBe(2);
      expect(notPg.stderr).toContain("--to must be a postgres:// URL");
      const missing = await runCli(["db", "copy", "--from", "/nowhere/agentboard.db", "--to", fresh.url]);
      expect(missing.code).toBe(2);
      expect(missing.stderr).toContain("--from: no SQLite database at /nowhere/agentboard.db");
      for (const r of [again, notPg, missing]) expect(r.stderr).not.toMatch(/^\s+at .+:\d+:\d+\)?$/m);
    });
  });
});
