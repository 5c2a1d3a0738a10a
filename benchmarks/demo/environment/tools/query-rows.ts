/** Typed wrappers over better-sqlite3 reads; column names always come from our metadata, values are bound. */
import type { Database } from "better-sqlite3";
import type { Row } from "../generate-rows";

export const queryAll = (db: Database, sql: string, ...params: unknown[]) => db.prepare(sql).all(...params) as Row[];
export const queryOne = (db: Database, sql: string, ...params: unknown[]) => db.prepare(sql).get(...params) as Row | undefined;
