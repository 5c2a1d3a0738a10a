/** The database handle for pages and API routes: one per server process. */
import { openDatabase, type Db } from "../../db/client";

let db: Db | undefined;

export function pageDb(): Db {
  db ??= openDatabase(process.env.AGENTBOARD_DB);
  return db;
}
