/** Pages read a database the server cannot write: read-only files, directories and connections. */
import { spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { openDatabase } from "@/db/client";
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
function makeDb(dir: string): string {
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, "board.db");
  const db = openDatabase(file);
  db.$client.prepare("INSERT INTO audit_log (at, actor, action, reason) VALUES (?, 'test', 'site:note', '')").run(Date.now());
  db.$client.close();
  return file;
}

describe("openPageDatabase", () => {
  it("opens read-only on request: reads work, writes are refused", () => {
    const file = makeDb(path.join(tmp, "flag"));
    const { db, mode } = openPageDatabase(file, { readOnly: true });
    expect(mode).toBe("read-only");
    expect(dataVersion(db)).toMatch(/^[1-9]\d*:0$/);
    let err: unknown;
    try {
      db.$client.prepare("DELETE FROM audit_log").run();
    } catch (e) {
      err = e;
    }
    expect(isReadOnlyError(err)).toBe(true);
    db.$client.close();
  });

  it("knows which errors mean no write access", () => {
    for (const code of ["SQLITE_READONLY", "SQLITE_READONLY_DIRECTORY", "SQLITE_CANTOPEN", "EACCES", "EROFS"]) expect(isReadOnlyError({ code }), code).toBe(true);
    for (const e of [{ code: "SQLITE_CORRUPT" }, new Error("x"), null, undefined]) expect(isReadOnlyError(e)).toBe(false);
  });

  // The server process may not write the file or its directory (SQLite then cannot even make
  // the -shm file a WAL read needs). Root writes anywhere, so the child runs as nobody then.
  it("serves a database in a directory the process cannot write", () => {
    const dir = path.join(tmp, "ro");
    const file = makeDb(dir);
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
