/**
 * Opens the database: better-sqlite3 with WAL, foreign keys and a busy timeout, drizzle
 * with snake_case columns, and the committed migrations applied at start-up.
 */
import { mkdirSync } from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { drizzle, type BetterSQLite3Database } from "drizzle-orm/better-sqlite3";
import { migrate } from "drizzle-orm/better-sqlite3/migrator";
import * as schema from "./schema";

export type Db = BetterSQLite3Database<typeof schema> & { $client: Database.Database };

// Next's server bundle has no import.meta.dirname; it runs from the project root.
export const MIGRATIONS = path.join(import.meta.dirname ?? path.join(/* turbopackIgnore: true */ process.cwd(), "db"), "migrations");
export const DEFAULT_DB_FILE = ".agentboard/agentboard.db";
/** How long a write waits for another connection's write before SQLITE_BUSY (change it here). */
export const BUSY_TIMEOUT_MS = 10_000;

export function openDatabase(file: string = process.env.AGENTBOARD_DB ?? DEFAULT_DB_FILE): Db {
  if (file !== ":memory:") mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  // Several workers (and the web server) share the file: a writer waits up to BUSY_TIMEOUT_MS
  // for another, from the very first statement (switching to WAL takes a lock too).
  const sqlite = new Database(file, { timeout: BUSY_TIMEOUT_MS });
  sqlite.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  sqlite.pragma("journal_mode = WAL");
  sqlite.pragma("foreign_keys = ON");
  sqlite.pragma("synchronous = NORMAL");
  const db = drizzle({ client: sqlite, schema, casing: "snake_case" }) as Db;
  migrate(db, { migrationsFolder: MIGRATIONS });
  return db;
}
