/** Reading a long text column by its head and length, so a page never loads a huge value whole. */
import { sql, type SQL } from "drizzle-orm";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";

/** `{ head, length }` of a text column: its first `max + 1` characters and its length in characters. */
export function prefixOf(column: SQLiteColumn | SQL, max: number) {
  return {
    head: sql<string>`substr(${column}, 1, ${max + 1})`,
    length: sql<number>`length(${column})`,
  };
}
