/**
 * A fresh in-memory database (committed migrations) with the mini benchmark registered before
 * each test of the calling file, and a scratch folder for bundle copies removed after it.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeEach } from "vitest";
import { openDatabase, type Db } from "@/db/client";
import { registerBenchmark } from "@/lib/submissions/benchmarks";
import { MINI_BENCHMARK } from "./mini-fixtures";

export interface MiniDb {
  db: Db;
  versionId: number;
  /** A new folder under the file's scratch folder. */
  scratch(name: string): string;
}

export function useMiniDb(now: () => Date): MiniDb {
  const tmp = mkdtempSync(path.join(tmpdir(), "agentboard-mini-"));
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));
  let n = 0;
  const state: MiniDb = { db: undefined as unknown as Db, versionId: 0, scratch: (name) => path.join(tmp, `${name}-${n++}`) };
  beforeEach(async () => {
    state.db = openDatabase(":memory:");
    state.versionId = (await registerBenchmark(state.db, MINI_BENCHMARK, { isDefault: true, now: now() })).versionId;
  });
  return state;
}
