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

export function openDatabase(file: string = process.env.AGENTBOARD_DB ?? DEFAULT_DB_FILE): Db {
  if (file !== ":memory:") mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  const sqlite = new Database(file);
  sqlite.pragma("journal_mode = WAL");
  sqlite.pragma("foreign_keys = ON");
  sqlite.pragma("busy_timeout = 5000");
  sqlite.pragma("synchronous = NORMAL");
  const db = drizzle({ client: sqlite, schema, casing: "snake_case" }) as Db;
  migrate(db, { migrationsFolder: MIGRATIONS });
  return db;
}
