/**
 * Opens the database: SQLite (the embedded default: one file, better-sqlite3 with WAL) or
 * Postgres (hosted mode: `AGENTBOARD_DATABASE_URL=postgres://…`, node-postgres), with the
 * committed migrations of that dialect applied at start-up.
 *
 * Queries are written once, typed against db/schema.ts, and awaited: `await db.select()…`,
 * never `.get()`, `.all()` or `.run()` (those exist on SQLite only). On Postgres the same
 * handle type is a drizzle node-postgres database rendering the same tables (see
 * db/schema-pg.ts for why that holds). Transactions go through `transaction()` below.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { mkdirSync } from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { drizzle, type BetterSQLite3Database } from "drizzle-orm/better-sqlite3";
import { migrate } from "drizzle-orm/better-sqlite3/migrator";
import type { SQL } from "drizzle-orm";
import type { NodePgDatabase } from "drizzle-orm/node-postgres";
import type { Pool } from "pg";
import * as schema from "./schema";

export type Db = BetterSQLite3Database<typeof schema> & { $client: Database.Database };
/** A handle inside a transaction: the same query surface as Db. */
export type Tx = Db;
export type Dialect = "sqlite" | "postgres";

// Next's server bundle has no import.meta.dirname; it runs from the project root.
const DB_DIR = import.meta.dirname ?? path.join(/* turbopackIgnore: true */ process.cwd(), "db");
export const MIGRATIONS = path.join(DB_DIR, "migrations");
export const PG_MIGRATIONS = path.join(DB_DIR, "migrations-pg");
export const DEFAULT_DB_FILE = ".agentboard/agentboard.db";
/** How long a write waits for another connection's write before SQLITE_BUSY (change it here). */
export const BUSY_TIMEOUT_MS = 10_000;
/** Connections per process on Postgres (AGENTBOARD_DATABASE_POOL overrides). */
export const DEFAULT_PG_POOL = 10;
/**
 * A Postgres session left idle inside a transaction this long is ended by the server, which
 * releases its row locks. Our transactions never wait on anything but the database, so an idle
 * one is a process frozen or cut off mid-way (a paused VM, a stopped container); its locks
 * would otherwise keep the rows it touched (a job under lease) from every other worker until
 * the connection dies. A worker passes its lease's stale time, so a frozen worker's locks are
 * gone by the time its jobs may be taken over.
 */
export const DEFAULT_PG_IDLE_TRANSACTION_MS = 60_000;

export interface PostgresOptions {
  poolSize?: number;
  /** The session's idle_in_transaction_session_timeout (default DEFAULT_PG_IDLE_TRANSACTION_MS). */
  idleTransactionMs?: number;
}

const dialects = new WeakMap<object, Dialect>();

/** Which engine a handle talks to. */
export function dialectOf(db: Db): Dialect {
  return dialects.get(db) ?? "sqlite";
}

export function isPostgresUrl(url: string): boolean {
  return /^postgres(ql)?:\/\//i.test(url);
}

/** Opens a SQLite file (or `:memory:`) and migrates it. Synchronous: the CLI and tests use it directly. */
export function openDatabase(file: string = process.env.AGENTBOARD_DB ?? DEFAULT_DB_FILE): Db {
  if (file !== ":memory:") mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  // Several workers (and the web server) share the file: a writer waits up to BUSY_TIMEOUT_MS
  // for another, from the very first statement (switching to WAL takes a lock too).
  const sqlite = new Database(file, { timeout: BUSY_TIMEOUT_MS });
  sqlite.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  sqlite.pragma("journal_mode = WAL");
  sqlite.pragma("foreign_keys = ON");
  sqlite.pragma("synchronous = NORMAL");
  const db = wrapSqlite(sqlite);
  migrate(db, { migrationsFolder: MIGRATIONS });
  return db;
}

export function wrapSqlite(sqlite: Database.Database): Db {
  const db = drizzle({ client: sqlite, schema, casing: "snake_case" }) as Db;
  dialects.set(db, "sqlite");
  return db;
}

/**
 * The database the environment names: `AGENTBOARD_DATABASE_URL` (postgres://…, or a SQLite
 * file), else `AGENTBOARD_DB`, else the default file. `url` overrides both.
 */
export async function connectDatabase(url: string | undefined = process.env.AGENTBOARD_DATABASE_URL || undefined, pg: PostgresOptions = {}): Promise<Db> {
  if (url && isPostgresUrl(url)) return openPostgres(url, pg);
  return openDatabase(url ?? process.env.AGENTBOARD_DB ?? DEFAULT_DB_FILE);
}

/** A Postgres pool behind the Db surface, migrated (one process at a time, under an advisory lock). */
export async function openPostgres(url: string, opts: PostgresOptions = {}): Promise<Db> {
  const pg = (await import("pg")).default;
  // Times (epoch ms), counts and sums come back as bigint/numeric: as numbers, like SQLite's.
  pg.types.setTypeParser(pg.types.builtins.INT8, (v: string) => Number(v));
  pg.types.setTypeParser(pg.types.builtins.NUMERIC, (v: string) => Number(v));
  const poolSize = opts.poolSize ?? (Number(process.env.AGENTBOARD_DATABASE_POOL) || DEFAULT_PG_POOL);
  const pool: Pool = new pg.Pool({
    connectionString: url,
    max: poolSize,
    connectionTimeoutMillis: 10_000,
    idle_in_transaction_session_timeout: opts.idleTransactionMs ?? DEFAULT_PG_IDLE_TRANSACTION_MS,
  });
  // An idle client whose server went away (a restart) must not crash the process; the next
  // query takes a new connection.
  pool.on("error", () => {});
  // A checked-out client (a transaction between statements) whose server goes away emits
  // "error" too, and with no listener that kills the process: the next query on it fails
  // instead, and the transaction is tried again (lib/submissions/db-busy.ts).
  pool.on("connect", (client) => client.on("error", () => {}));
  const { drizzle: drizzlePg } = await import("drizzle-orm/node-postgres");
  const { migrate: migratePg } = await import("drizzle-orm/node-postgres/migrator");
  const db = drizzlePg({ client: pool, casing: "snake_case" });
  // The lock is held on a connection of its own, so a pool of one can still migrate.
  const lock = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000 });
  lock.on("error", () => {});
  await lock.connect();
  try {
    await lock.query("SELECT pg_advisory_lock(7262010)");
    await migratePg(db, { migrationsFolder: PG_MIGRATIONS });
  } finally {
    await lock.end().catch(() => {});
  }
  const handle = db as unknown as Db;
  dialects.set(handle, "postgres");
  return handle;
}

/**
 * Runs a raw `sql` query and returns its rows, on either engine. Prefer the query builder;
 * raw SQL must be valid on both (or branch on `dialectOf`), and Postgres folds unquoted
 * aliases to lower case: write `AS "camelCase"` when the alias has capitals.
 */
export async function rows<T>(db: Db, query: SQL): Promise<T[]> {
  if (dialectOf(db) === "postgres") return (await (db as unknown as NodePgDatabase).execute(query)).rows as T[];
  return db.all<T>(query);
}

/** Runs a raw `sql` statement that returns no rows (DDL, INSERT … SELECT), on either engine. */
export async function exec(db: Db, statement: SQL): Promise<void> {
  if (dialectOf(db) === "postgres") await (db as unknown as NodePgDatabase).execute(statement);
  else db.run(statement);
}

/** A unique or primary-key violation, on either engine. */
export function isUniqueViolation(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  if (code === "23505" || code === "SQLITE_CONSTRAINT_UNIQUE" || code === "SQLITE_CONSTRAINT_PRIMARYKEY") return true;
  const cause = (err as { cause?: unknown } | null)?.cause;
  return cause !== undefined && cause !== err && isUniqueViolation(cause);
}

export async function closeDatabase(db: Db): Promise<void> {
  if (dialectOf(db) === "postgres") await (db.$client as unknown as Pool).end();
  else db.$client.close();
}

/**
 * BEGIN IMMEDIATE, waiting for another connection's write lock without blocking the event
 * loop: better-sqlite3 waits synchronously for its busy timeout, which would freeze a process
 * whose other handle (a test's second "worker") holds the lock. So the wait is short, and
 * tried again after a timer, up to BUSY_TIMEOUT_MS in all.
 */
async function beginImmediate(client: Database.Database): Promise<void> {
  const deadline = Date.now() + BUSY_TIMEOUT_MS;
  for (let pause = 5; ; pause = Math.min(pause * 2, 100)) {
    client.pragma("busy_timeout = 20");
    try {
      client.exec("BEGIN IMMEDIATE");
      return;
    } catch (err) {
      const code = (err as { code?: unknown }).code;
      if (typeof code !== "string" || !code.startsWith("SQLITE_BUSY") || Date.now() >= deadline) throw err;
    } finally {
      client.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    }
    await new Promise((resolve) => setTimeout(resolve, pause));
  }
}

// The SQLite connection of a handle is one: transactions on it are taken one at a time, and a
// transaction begun inside another (on the same handle) runs as part of it.
const sqliteQueues = new WeakMap<object, Promise<void>>();
const inSqliteTx = new AsyncLocalStorage<object>();

/**
 * Runs `fn` in one transaction. On SQLite it takes the write lock up front (BEGIN IMMEDIATE),
 * so a reader never has to upgrade and fail; on Postgres it is READ COMMITTED, and writes that
 * must not race are conditional (a lease token in the WHERE clause). Keep network waits out
 * of `fn`: nothing slow should run while a transaction is open.
 */
export async function transaction<T>(db: Db, fn: (tx: Tx) => Promise<T>): Promise<T> {
  if (dialectOf(db) === "postgres") {
    return (db as unknown as NodePgDatabase).transaction((tx) => {
      dialects.set(tx, "postgres");
      return fn(tx as unknown as Tx);
    });
  }
  if (inSqliteTx.getStore() === db) return fn(db);
  const previous = sqliteQueues.get(db) ?? Promise.resolve();
  let release!: () => void;
  const mine = new Promise<void>((resolve) => (release = resolve));
  sqliteQueues.set(db, previous.then(() => mine));
  await previous;
  try {
    const client = db.$client;
    await beginImmediate(client);
    try {
      const out = await inSqliteTx.run(db, () => fn(db));
      client.exec("COMMIT");
      return out;
    } catch (err) {
      if (client.inTransaction) client.exec("ROLLBACK");
      throw err;
    }
  } finally {
    release();
  }
}
