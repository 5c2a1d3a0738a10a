/**
 * Pages read a database the server cannot write: read-only files, directories and connections.
 * SQLite only: a Postgres server decides its clients' rights itself, and pageDb opens it as given.
 */
import { spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { closeDatabase, openDatabase } from "@/db/client";
import { auditLog } from "@/db/schema";
import { isReadOnlyError, openPageDatabase } from "@/lib/queries/db";
import { dataVersion } from "@/lib/queries/memo";

const repo = path.resolve(import.meta.dirname, "../../..");
const tmp = mkdtempSync(path.join(tmpdir(), "agentboard-readonly-"));
afterAll(() => {
  chmodSync(tmp, 0o755);
  for (const d of ["ro"]) {
    try {
      chmodSync(path.join(tmp, d), 0o755);
    } catch {
      // not made
    }
  }
  rmSync(tmp, { recursive: true, force: true });
});

/** A migrated database with one audit row, closed (so no -wal or -shm file is left). */
async function makeDb(dir: string): Promise<string> {
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, "board.db");
  const db = openDatabase(file);
  await db.insert(auditLog).values({ at: new Date(), actor: "test", action: "site:note", reason: "" });
  await closeDatabase(db);
  return file;
}

describe("openPageDatabase", () => {
  it("opens read-only on request: reads work, writes are refused", async () => {
    const file = await makeDb(path.join(tmp, "flag"));
    const { db, mode } = openPageDatabase(file, { readOnly: true });
    expect(mode).toBe("read-only");
    expect(await dataVersion(db)).toMatch(/^[1-9]\d*:0$/);
    let err: unknown;
    try {
      await db.delete(auditLog);
    } catch (e) {
      err = e;
    }
    expect(isReadOnlyError(err)).toBe(true);
    await closeDatabase(db);
  });

  it("knows which errors mean no write access", () => {
    for (const code of ["SQLITE_READONLY", "SQLITE_READONLY_DIRECTORY", "SQLITE_CANTOPEN", "EACCES", "EROFS"]) expect(isReadOnlyError({ code }), code).toBe(true);
    for (const e of [{ code: "SQLITE_CORRUPT" }, new Error("x"), null, undefined]) expect(isReadOnlyError(e)).toBe(false);
  });

  // The server process may not write the file or its directory (SQLite then cannot even make
  // the -shm file a WAL read needs). Root writes anywhere, so the child runs as nobody then.
  it("serves a database in a directory the process cannot write", async () => {
    const dir = path.join(tmp, "ro");
    const file = await makeDb(dir);
    chmodSync(file, 0o444);
    chmodSync(dir, 0o555);
    chmodSync(tmp, 0o755);
    const asRoot = process.getuid?.() === 0;
    const child = spawnSync(process.execPath, ["--import", "tsx", path.join(repo, "test/helpers/open-page-db.ts"), file], {
      cwd: repo,
      encoding: "utf8",
      env: { ...process.env, HOME: tmp },
      ...(asRoot ? { uid: 65534, gid: 65534 } : {}),
    });
    expect(child.status, child.stderr).toBe(0);
    const out = JSON.parse(child.stdout.trim().split("\n").at(-1)!) as { mode: string; version: string; submissions: number };
    expect(out.mode).not.toBe("read-write");
    expect(out.version).toMatch(/^[1-9]\d*:0$/);
    expect(out.submissions).toBe(0);
  });
});
