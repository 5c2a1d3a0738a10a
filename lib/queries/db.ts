/**
 * The database handle for pages and API routes: one per server process.
 *
 * With `AGENTBOARD_DATABASE_URL=postgres://…` (hosted mode) it is a Postgres pool, opened (and
 * migrated) once. Otherwise it is the SQLite file, and pages only read, so a database the
 * server may not write (a read-only file, directory or mount; or AGENTBOARD_DB_READONLY=1)
 * still serves them: when the normal open fails for lack of write access (it switches to WAL
 * and applies migrations), the file is opened read-only instead, without migrations. A WAL
 * database in a directory we cannot write cannot even be read that way (SQLite needs its -shm
 * file), so the last resort opens it immutable; that view does not see later writes, so it is
 * reopened every IMMUTABLE_REOPEN_MS.
 */
import path from "node:path";
import Database from "better-sqlite3";
import { closeDatabase, DEFAULT_DB_FILE, isPostgresUrl, openDatabase, openPostgres, wrapSqlite, type Db } from "../../db/client";

/** How long an immutable (last-resort) view is used before the database is opened again. */
export const IMMUTABLE_REOPEN_MS = 30_000;

let db: Db | undefined;
let reopenAt = Infinity;
let postgres: Promise<Db> | undefined;

export async function pageDb(): Promise<Db> {
  const url = process.env.AGENTBOARD_DATABASE_URL || undefined;
  if (url && isPostgresUrl(url)) {
    // Requests arriving together share the one open; a failed open is tried again by the next request.
    postgres ??= openPostgres(url).catch((err: unknown) => {
      postgres = undefined;
      throw err;
    });
    return postgres;
  }
  if (db && Date.now() >= reopenAt) {
    const old = db;
    db = undefined;
    // A request may still hold the old handle across an await: close it a little later.
    setTimeout(() => void closeDatabase(old), 60_000).unref();
  }
  if (!db) {
    const opened = openPageDatabase(url ?? process.env.AGENTBOARD_DB ?? DEFAULT_DB_FILE, { readOnly: process.env.AGENTBOARD_DB_READONLY === "1" });
    db = opened.db;
    reopenAt = opened.mode === "immutable" ? Date.now() + IMMUTABLE_REOPEN_MS : Infinity;
  }
  return db;
}

export type OpenMode = "read-write" | "read-only" | "immutable";

/** SQLite and file-system errors that mean "you may not write here". */
export function isReadOnlyError(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === "string" && /^(SQLITE_READONLY|SQLITE_CANTOPEN|SQLITE_PERM|SQLITE_AUTH|EACCES|EROFS|EPERM)/.test(code);
}

/** Opens a SQLite file for pages: read-write (with migrations) when it can, read-only when it cannot. */
export function openPageDatabase(file: string, opts: { readOnly?: boolean } = {}): { db: Db; mode: OpenMode } {
  if (file === ":memory:") return { db: openDatabase(file), mode: "read-write" };
  // URI file names (for `immutable=1`) must be enabled before better-sqlite3 loads its addon,
  // which it does at the first open in the process. Only names starting "file:" change meaning.
  process.env.SQLITE_USE_URI ??= "1";
  if (!opts.readOnly) {
    try {
      return { db: openDatabase(file), mode: "read-write" };
    } catch (err) {
      if (!isReadOnlyError(err)) throw err;
      console.warn(`agentboard: cannot write ${file} (${(err as { code: string }).code}): serving it read-only`);
    }
  }
  return openReadOnly(file);
}

function probe(sqlite: Database.Database): void {
  sqlite.prepare("SELECT count(*) FROM sqlite_master").get();
}

export function openReadOnly(file: string): { db: Db; mode: OpenMode } {
  const sqlite = new Database(file, { readonly: true, fileMustExist: true, timeout: 5_000 });
  try {
    probe(sqlite);
    return { db: wrapSqlite(sqlite), mode: "read-only" };
  } catch (err) {
    sqlite.close();
    if (!isReadOnlyError(err)) throw err;
    const uri = `file:${encodeURI(path.resolve(file)).replace(/\?/g, "%3F").replace(/#/g, "%23")}?immutable=1`;
    let frozen: Database.Database;
    try {
      frozen = new Database(uri, { readonly: true, fileMustExist: true });
      probe(frozen);
    } catch {
      throw err; // the first error says what is wrong
    }
    console.warn(`agentboard: ${file} can only be read as an immutable snapshot (no -shm file can be made); reopening it every ${IMMUTABLE_REOPEN_MS / 1000} s`);
    return { db: wrapSqlite(frozen), mode: "immutable" };
  }
}
