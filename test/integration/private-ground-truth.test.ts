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
import { getItem, getSubmission } from "@/lib/queries/submission";
import { listItems } from "@/lib/queries/item-list";
import { loadDemoEntries } from "@/lib/submissions/demo-entries";
import { createScoringDeps } from "@/lib/submissions/scoring-deps";
import { DEMO_DIR, NVIDIA_DEMO_DIR } from "@/scripts/demo/build-demo";
import { expectedCallValues, quotes, secretsOf } from "../helpers/private-values";

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

  it("scans every failed item's page data, the entry's API body, the item list (question, answer, reason) and the CSV", async () => {
    const board = (await getLeaderboard(db, { benchmark: slug }))!;
    const csv = leaderboardCsv(board.benchmark.capabilities, board.entries, { columns: columnIds(board.benchmark.capabilities.map((c) => c.id)) });
    let scanned = 0;
    let leaksWhenPublic = 0;
    let callsScanned = 0;
    let callLeaksWhenPublic = 0;
    let detailsWhenPublic = 0;
    for (const entry of board.entries) {
      const detail = (await getSubmission(db, entry.id))!;
      const runId = detail.run!.id;
      const entryBody = JSON.stringify(detail);
      // The item table as the entry page reads it: every row, lost points or not, with its question, answer and reason.
      const page = (await listItems(db, runId, { pageSize: 300 }, { showGroundTruth: false }));
      expect(page.rows.every((r) => r.detail === null)).toBe(true);
      const listBody = JSON.stringify(page);
      // Questions and the agent's answers are public for every row: a value one item's answer holds is no leak in another's row.
      const listPublic = JSON.stringify(page.rows.map((r) => [r.question, r.answer]));
      for (const row of page.rows) {
        if (row.score >= 1 && row.status === "scored") continue;
        const item = (await getItem(db, runId, row.capability, row.uuid, { showGroundTruth: false }))!;
        const body = JSON.stringify(item);
        // What the submitter wrote about the agent is public too.
        const about = JSON.stringify([detail.agent, detail.description, detail.models, detail.maintainer]);
        const secrets = secretsOf(benchmark, item, about);
        for (const s of secrets) {
          const where = `${entry.agent} ${row.capability} ${row.uuid}: ${s}`;
          expect(quotes(body, s), where).toBe(false);
          expect(quotes(entryBody, s), where).toBe(false);
          expect(quotes(csv, s), where).toBe(false);
        }
        for (const s of secretsOf(benchmark, item, about + listPublic)) expect(quotes(listBody, s), `${entry.agent} list ${row.uuid}: ${s}`).toBe(false);
        // The trajectory diagnostic's call pairs: the expected calls' names and values stay private.
        if (item.trajectory?.calls) {
          expect(item.trajectory.calls.every((c) => c.expected === null && c.verdict !== "not_made")).toBe(true);
          const callSecrets = secretsOf(benchmark, item, about, expectedCallValues(benchmark, row.capability, row.uuid));
          for (const s of callSecrets) expect(quotes(body, s), `${entry.agent} ${row.uuid} expected call: ${s}`).toBe(false);
          callsScanned += callSecrets.length;
          const openItem = JSON.stringify((await getItem(db, runId, row.capability, row.uuid, { showGroundTruth: true }))!.trajectory);
          if (callSecrets.some((s) => quotes(openItem, s))) callLeaksWhenPublic++;
        }
        scanned++;
        const open = JSON.stringify((await getItem(db, runId, row.capability, row.uuid, { showGroundTruth: true })));
        if (secrets.some((s) => quotes(open, s))) leaksWhenPublic++;
      }
      // With the ground truth public, the table carries the private detail too: the scan above would see it.
      detailsWhenPublic += (await listItems(db, runId, { pageSize: 300 }, { showGroundTruth: true })).rows.filter((r) => r.detail !== null).length;
    }
    expect(scanned).toBeGreaterThan(10);
    // The private detail does carry the references: the scan above is not vacuous.
    expect(leaksWhenPublic).toBeGreaterThan(0);
    expect(detailsWhenPublic).toBeGreaterThan(0);
    if (slug === "demo") {
      // Failed waterfall items have expected calls the agent did not reproduce, shown only when public.
      expect(callsScanned).toBeGreaterThan(0);
      expect(callLeaksWhenPublic).toBeGreaterThan(0);
    }
  });
});
