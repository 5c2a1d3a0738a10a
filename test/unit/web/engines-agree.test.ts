/**
 * The read models give the same answers on SQLite and on Postgres: the same bundles scored by
 * the same worker into a database of each engine, then every page's read compared whole
 * (sorts with ties and text, NULLs, JSON read inside the database, grouped means). Runs only
 * when the test command started a Postgres cluster.
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getAuditLogPage, getReviewQueuePage } from "@/lib/queries/activity";
import { getChangelogPage } from "@/lib/queries/changelog";
import { compareEntries, pickableEntries } from "@/lib/queries/compare";
import { itemPosition, listItems } from "@/lib/queries/item-list";
import { getLeaderboard } from "@/lib/queries/leaderboard";
import { getFinishedPage, getInFlight } from "@/lib/queries/queue";
import { getRunVerdicts } from "@/lib/queries/run-verdicts";
import { getItem, getSubmission } from "@/lib/queries/submission";
import type { ItemSortKey } from "@/lib/queries/types";
import { registerBenchmark } from "@/lib/submissions/benchmarks";
import { ingestBundle } from "@/lib/submissions/ingest";
import { approve } from "@/lib/submissions/review";
import { createScoringDeps } from "@/lib/submissions/scoring-deps";
import { runWorker } from "@/lib/submissions/worker";
import { ENGINES, freshDatabase, type TestDatabase } from "../../helpers/engines";
import { INVALID_BUNDLE, MINI_BENCHMARK, renamedGoodBundle, tickingClock } from "../../helpers/mini-fixtures";

const tmp = mkdtempSync(path.join(tmpdir(), "agentboard-engines-agree-"));
const AGENTS = ["Zed", "alpha", "Émile", "beta"];

/** Each engine's database, filled the same way with the same clock. */
async function fill(engine: "sqlite" | "postgres"): Promise<{ t: TestDatabase; ids: number[]; runIds: number[] }> {
  const t = await freshDatabase(engine);
  const now = tickingClock();
  const { versionId } = await registerBenchmark(t.db, MINI_BENCHMARK, { isDefault: true, now: now() });
  const ids: number[] = [];
  for (const agent of AGENTS) {
    // One folder per agent for both engines: the entries' paths match too.
    const dir = path.join(tmp, agent);
    if (!existsSync(dir)) renamedGoodBundle(dir, agent);
    ids.push((await ingestBundle(t.db, { versionId, bundlePath: dir, source: "local", sourceRef: dir, actor: "cli" }, now)).submissionId);
  }
  ids.push((await ingestBundle(t.db, { versionId, bundlePath: INVALID_BUNDLE, source: "local", sourceRef: INVALID_BUNDLE, actor: "cli" }, now)).submissionId);
  const deps = createScoringDeps(t.db, { now });
  try {
    await runWorker(t.db, deps, { untilIdle: true });
  } finally {
    await deps.close();
  }
  for (const id of ids.slice(0, 3)) await approve(t.db, id, { actor: "maintainer:ada", at: now() });
  const runIds: number[] = [];
  for (const id of ids.slice(0, 4)) runIds.push((await getSubmission(t.db, id))!.run!.id);
  return { t, ids, runIds };
}

describe.runIf(ENGINES.includes("postgres"))("SQLite and Postgres agree", () => {
  let sqlite: Awaited<ReturnType<typeof fill>>;
  let postgres: Awaited<ReturnType<typeof fill>>;
  beforeAll(async () => {
    sqlite = await fill("sqlite");
    postgres = await fill("postgres");
  }, 120_000);
  afterAll(async () => {
    await sqlite?.t.close();
    await postgres?.t.close();
    rmSync(tmp, { recursive: true, force: true });
  });

  /**
   * The same read on both; the databases were filled alike with one clock, so ids and times
   * match too. Only the judge's measured latency (wall time while scoring) may differ.
   */
  async function same<T>(read: (x: typeof sqlite) => Promise<T>): Promise<T> {
    const unmeasured = (v: unknown) => JSON.parse(JSON.stringify(v ?? null, (k, x: unknown) => (k === "latencyMs" ? 0 : x))) as unknown;
    const a = await read(sqlite);
    expect(unmeasured(await read(postgres))).toEqual(unmeasured(a));
    return a;
  }

  it("fills both alike", () => {
    expect(postgres.ids).toEqual(sqlite.ids);
    expect(postgres.runIds).toEqual(sqlite.runIds);
  });

  it("on the board, the queue, the changelog and the maintainers' lists", async () => {
    expect((await same((x) => getLeaderboard(x.t.db)))!.entries).toHaveLength(3);
    await same((x) => getInFlight(x.t.db, new Date(Date.UTC(2026, 11, 1))));
    await same((x) => getFinishedPage(x.t.db));
    await same((x) => getChangelogPage(x.t.db, { maintainer: true }));
    await same((x) => getAuditLogPage(x.t.db));
    await same((x) => getReviewQueuePage(x.t.db));
    await same((x) => pickableEntries(x.t.db, undefined, { maintainer: true }));
  });

  it("on an entry's page, its validation report, its items and its verdicts", async () => {
    for (const i of [0, 3, 4]) await same((x) => getSubmission(x.t.db, x.ids[i]!));
    expect((await same((x) => getSubmission(x.t.db, x.ids[4]!)))!.validation).not.toBeNull();
    const sorts: (ItemSortKey | undefined)[] = [undefined, "item", "question", "answer", "reason", "outcome", "score", "domain"];
    for (const sort of sorts) {
      for (const dir of ["asc", "desc"] as const) {
        await same((x) => listItems(x.t.db, x.runIds[0]!, { sort, dir }, { showGroundTruth: true }));
        await same((x) => itemPosition(x.t.db, x.runIds[0]!, { sort, dir }, { capability: "tool_selection", uuid: "ts-2" }));
      }
    }
    await same((x) => listItems(x.t.db, x.runIds[1]!, { lost: true }));
    for (const [capability, uuid] of [["tool_selection", "ts-1"], ["tool_selection", "ts-2"], ["multiturn", "mt-2"]] as const) {
      await same((x) => getItem(x.t.db, x.runIds[0]!, capability, uuid, { showGroundTruth: true }));
    }
    expect(await same((x) => getRunVerdicts(x.t.db, x.ids[0]!, { includePrivate: true }))).not.toBeNull();
  });

  it("on a comparison", async () => {
    const cmp = await same((x) => compareEntries(x.t.db, x.ids.slice(0, 3)));
    expect("problem" in cmp).toBe(false);
  });
});
