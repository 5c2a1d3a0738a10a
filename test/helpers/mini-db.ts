/**
 * A fresh database (committed migrations) with the mini benchmark registered before each test
 * of the calling file, and a scratch folder for bundle copies removed after it. SQLite by
 * default (in memory); pass an engine to run on that engine (test/helpers/engines.ts).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeEach } from "vitest";
import { closeDatabase, openDatabase, type Db } from "@/db/client";
import { registerBenchmark } from "@/lib/submissions/benchmarks";
import { ingestBundle } from "@/lib/submissions/ingest";
import { createScoringDeps } from "@/lib/submissions/scoring-deps";
import { runWorker } from "@/lib/submissions/worker";
import { freshDatabase, type Engine } from "./engines";
import { MINI_BENCHMARK } from "./mini-fixtures";

export interface MiniDb {
  db: Db;
  /** Postgres: the database's URL, for more handles on it. SQLite: undefined (in memory, no other handle can open it). */
  url?: string;
  versionId: number;
  /** A new folder under the file's scratch folder. */
  scratch(name: string): string;
}

export function useMiniDb(now: () => Date, engine: Engine = "sqlite"): MiniDb {
  const tmp = mkdtempSync(path.join(tmpdir(), "agentboard-mini-"));
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));
  let n = 0;
  let close: () => Promise<void> = async () => {};
  const state: MiniDb = { db: undefined as unknown as Db, versionId: 0, scratch: (name) => path.join(tmp, `${name}-${n++}`) };
  beforeEach(async () => {
    if (engine === "sqlite") {
      const db = openDatabase(":memory:");
      state.db = db;
      close = () => closeDatabase(db);
    } else {
      const t = await freshDatabase(engine);
      state.db = t.db;
      state.url = t.url;
      close = t.close;
    }
    state.versionId = (await registerBenchmark(state.db, MINI_BENCHMARK, { isDefault: true, now: now() })).versionId;
  });
  afterEach(() => close());
  return state;
}

/** Ingests a bundle into the mini database and scores it through the worker; returns its submission id. */
export async function scoreThroughWorker(mini: MiniDb, bundlePath: string, now: () => Date): Promise<number> {
  const { submissionId } = await ingestBundle(mini.db, { versionId: mini.versionId, bundlePath, source: "local", sourceRef: bundlePath, actor: "cli" }, now);
  const deps = createScoringDeps(mini.db, { now });
  try {
    await runWorker(mini.db, deps, { untilIdle: true });
  } finally {
    await deps.close();
  }
  return submissionId;
}
