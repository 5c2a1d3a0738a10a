/**
 * Migration 0002 on rows scored before it: each item gets the scorer, funnel bucket and
 * exact-match flag the engine now computes, and verdict explanations that could quote the
 * ground truth (exact, correctness) move to the private detail.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";

const dir = path.resolve(import.meta.dirname, "../../db/migrations");
const apply = (db: Database.Database, file: string) => {
  for (const statement of readFileSync(path.join(dir, file), "utf8").split("--> statement-breakpoint")) if (statement.trim()) db.exec(statement);
};

/** An in-memory database with every migration before `file` applied, for lone item rows (foreign keys off: no runs). */
function migratedUpTo(file: string): Database.Database {
  const files = readdirSync(dir).filter((f) => f.endsWith(".sql")).sort();
  const cut = files.indexOf(file);
  expect(cut).toBeGreaterThan(0);
  const db = new Database(":memory:");
  for (const f of files.slice(0, cut)) apply(db, f);
  db.pragma("foreign_keys = OFF");
  return db;
}

const legacy = [
  {
    uuid: "w1",
    stage: "correctness",
    status: "scored",
    score: 0,
    policy: "skipped",
    result: { uuid: "w1", verdicts: [
      { stage: "policy", turnId: 1, outcome: "skipped", score: null, explanation: "no policy", judge: "program" },
      { stage: "exact", turnId: 1, outcome: "fail", score: 0, explanation: "first missing #1: {\"secret\": 4417}", judge: "program" },
      { stage: "correctness", turnId: 1, outcome: "fail", score: 0, explanation: "the answer lacks 4417 (reference: 4417)", judge: "rules" },
    ] },
  },
  { uuid: "w2", stage: "groundedness", status: "scored", score: 1, policy: "pass", result: { uuid: "w2", verdicts: [{ stage: "exact", turnId: 1, outcome: "pass", score: 1, explanation: "all found", judge: "program" }] } },
  { uuid: "q1", stage: "qa", status: "scored", score: 0.5, policy: "skipped", result: { uuid: "q1", verdicts: [], evaluation: { kind: "qa", status: "scored", score: 0.5 } } },
  { uuid: "m1", stage: "none", status: "missing", score: 0, policy: "skipped", result: { uuid: "m1", verdicts: [], detail: "no prediction for this item" } },
];

describe("migration 0002 (scoring core)", () => {
  it("derives scorer, bucket and exact flag, and moves quoting explanations to the private detail", () => {
    const db = migratedUpTo("0002_scoring_core.sql");
    const insert = db.prepare("INSERT INTO item_results (run_id, capability, domain, uuid, weight, score, status, stage, policy, result) VALUES (1, 'c', 'd', ?, 1, ?, ?, ?, ?, ?)");
    for (const r of legacy) insert.run(r.uuid, r.score, r.status, r.stage, r.policy, JSON.stringify(r.result));
    apply(db, "0002_scoring_core.sql");

    const rows = db.prepare("SELECT uuid, scorer, bucket, exact_passed, policy, result FROM item_results ORDER BY uuid").all() as { uuid: string; scorer: string; bucket: string; exact_passed: number; policy: string | null; result: string }[];
    const by = Object.fromEntries(rows.map((r) => [r.uuid, { ...r, result: JSON.parse(r.result) }]));
    expect(by.w1).toMatchObject({ scorer: "waterfall", bucket: "correctness_failed", exact_passed: 0, policy: "skipped" });
    expect(by.w2).toMatchObject({ scorer: "waterfall", bucket: "passed", exact_passed: 1, policy: "pass" });
    expect(by.q1).toMatchObject({ scorer: "qa", bucket: "evaluated", policy: null });
    expect(by.m1).toMatchObject({ scorer: "waterfall", bucket: "not_scored" });
    expect(by.m1!.result).toMatchObject({ scorer: "waterfall", reason: "no prediction for this item" });

    const verdicts = by.w1!.result.verdicts as { stage: string; reason: string; detail: string | null; explanation?: string }[];
    for (const v of verdicts) expect(v.explanation).toBeUndefined();
    expect(verdicts.find((v) => v.stage === "policy")).toMatchObject({ reason: "no policy", detail: null });
    for (const stage of ["exact", "correctness"]) {
      const v = verdicts.find((x) => x.stage === stage)!;
      expect(v.reason).not.toContain("4417");
      expect(v.detail).toContain("4417");
    }
    db.close();
  });
});

describe("migration 0005 (missing-turn bucket)", () => {
  it("moves items whose last turn had no prediction from 'groundedness failed' to 'not scored', and nothing else", () => {
    const db = migratedUpTo("0005_missing_turn_bucket.sql");
    const insert = db.prepare("INSERT INTO item_results (run_id, capability, domain, uuid, weight, score, status, stage, policy, scorer, bucket, result) VALUES (1, 'c', 'd', ?, 1, 0, 'scored', ?, 'skipped', ?, ?, ?)");
    insert.run("turnless", "none", "waterfall", "groundedness_failed", JSON.stringify({ bucket: "groundedness_failed", stage: "none" }));
    insert.run("ungrounded", "groundedness", "waterfall", "groundedness_failed", JSON.stringify({ bucket: "groundedness_failed", stage: "groundedness" }));
    insert.run("report", "none", "report", "not_scored", JSON.stringify({ bucket: "not_scored" }));
    apply(db, "0005_missing_turn_bucket.sql");
    const rows = db.prepare("SELECT uuid, bucket, json_extract(result, '$.bucket') AS stored FROM item_results ORDER BY uuid").all();
    expect(rows).toEqual([
      { uuid: "report", bucket: "not_scored", stored: "not_scored" },
      { uuid: "turnless", bucket: "not_scored", stored: "not_scored" },
      { uuid: "ungrounded", bucket: "groundedness_failed", stored: "groundedness_failed" },
    ]);
    db.close();
  });
});
