/**
 * Private ground truth stays private: on a benchmark without `showGroundTruth` (the VAKRA
 * demo, and a copy of the VSS-style demo with the flag off), no read the pages or the API
 * make of a failed item may quote a reference value. The same items read with
 * `showGroundTruth` do show them in the private detail, which proves the scan would see a
 * leak.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase, type Db } from "@/db/client";
import { loadBenchmark, type Benchmark } from "@/lib/benchmark/load-benchmark";
import { columnIds } from "@/components/leaderboard/view-state";
import { getLeaderboard } from "@/lib/queries/leaderboard";
import { leaderboardCsv } from "@/lib/queries/leaderboard-csv";
import { getItem, getSubmission, listItems } from "@/lib/queries/submission";
import { loadDemoEntries } from "@/lib/submissions/demo-entries";
import { createScoringDeps } from "@/lib/submissions/scoring-deps";
import { DEMO_DIR, NVIDIA_DEMO_DIR } from "@/scripts/demo/build-demo";
import { quotes, secretsOf } from "../helpers/private-values";

let clock = 0;
const now = () => new Date(Date.UTC(2026, 10, 23) + clock++ * 1000);

/** A copy of a demo benchmark with its ground truth private. */
function privateCopy(dir: string): string {
  const copy = path.join(mkdtempSync(path.join(tmpdir(), "agentboard-private-")), path.basename(dir));
  cpSync(dir, copy, { recursive: true, filter: (src) => !src.includes(`${path.sep}.replay`) });
  const yaml = path.join(copy, "benchmark.yaml");
  writeFileSync(yaml, readFileSync(yaml, "utf8").replace(/^showGroundTruth: true$/m, "showGroundTruth: false"));
  return copy;
}

describe.each([
  ["demo", () => DEMO_DIR],
  ["demo-nvidia", () => privateCopy(NVIDIA_DEMO_DIR)],
])("a private benchmark (%s) quotes no reference on failed items", (slug, dirOf) => {
  let db: Db;
  let benchmark: Benchmark;
  let dir: string;
  beforeAll(async () => {
    dir = dirOf();
    db = openDatabase(":memory:");
    benchmark = await loadBenchmark(dir);
    expect(benchmark.spec.showGroundTruth).toBe(false);
    const deps = createScoringDeps(db, { now, env: {} });
    try {
      await loadDemoEntries(db, dir, deps);
    } finally {
      await deps.close();
    }
  }, 120_000);
  afterAll(() => {
    db?.$client.close();
    if (dir !== DEMO_DIR) rmSync(path.dirname(dir), { recursive: true, force: true });
  });

  it("scans every failed item's page data, the entry's API body, the item list and the CSV", () => {
    const board = getLeaderboard(db, { benchmark: slug })!;
    const csv = leaderboardCsv(board.benchmark.capabilities, board.entries, { columns: columnIds(board.benchmark.capabilities.map((c) => c.id)) });
    let scanned = 0;
    let leaksWhenPublic = 0;
    for (const entry of board.entries) {
      const detail = getSubmission(db, entry.id)!;
      const runId = detail.run!.id;
      const entryBody = JSON.stringify(detail);
      const page = listItems(db, runId, { pageSize: 200 });
      const listBody = JSON.stringify(page);
      for (const row of page.rows) {
        if (row.score >= 1 && row.status === "scored") continue;
        const item = getItem(db, runId, row.capability, row.uuid, { showGroundTruth: false })!;
        const body = JSON.stringify(item);
        // What the submitter wrote about the agent is public too.
        const secrets = secretsOf(benchmark, item, JSON.stringify([detail.agent, detail.description, detail.models, detail.maintainer]));
        for (const s of secrets) {
          const where = `${entry.agent} ${row.capability} ${row.uuid}: ${s}`;
          expect(quotes(body, s), where).toBe(false);
          expect(quotes(entryBody, s), where).toBe(false);
          expect(quotes(listBody, s), where).toBe(false);
          expect(quotes(csv, s), where).toBe(false);
        }
        scanned++;
        const open = JSON.stringify(getItem(db, runId, row.capability, row.uuid, { showGroundTruth: true }));
        if (secrets.some((s) => quotes(open, s))) leaksWhenPublic++;
      }
    }
    expect(scanned).toBeGreaterThan(10);
    // The private detail does carry the references: the scan above is not vacuous.
    expect(leaksWhenPublic).toBeGreaterThan(0);
  });
});
