/**
 * The database engines a test runs against. SQLite always; Postgres when the test command
 * started a throwaway cluster (scripts/run-tests.ts sets AGENTBOARD_TEST_PG_URL). Each fresh
 * Postgres database is a copy of a migrated template, so it costs one CREATE DATABASE.
 *
 *   describe.each(ENGINES)("queue on %s", (engine) => { … const t = await freshDatabase(engine) … })
 *   describe.each(ENGINES)("leases on %s", (engine) => { const t = useFreshDatabase(engine); … t.db … })
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { afterEach, beforeEach } from "vitest";
import { closeDatabase, openDatabase, openPostgres, type Db } from "../../db/client";

export type Engine = "sqlite" | "postgres";

export const PG_SERVER_URL = process.env.AGENTBOARD_TEST_PG_URL || undefined;
export const ENGINES: Engine[] = PG_SERVER_URL ? ["sqlite", "postgres"] : ["sqlite"];

export interface TestDatabase {
  engine: Engine;
  db: Db;
  /** What AGENTBOARD_DATABASE_URL (Postgres) or AGENTBOARD_DB (a SQLite file) should hold for another process. */
  url: string;
  /** Environment for a child process (CLI, worker, web server) to use this database. */
  env: Record<string, string>;
  close(): Promise<void>;
}

const TEMPLATE = "agentboard_template";

function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

async function admin<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: PG_SERVER_URL });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

let template: Promise<void> | undefined;

/** Makes the migrated template once per cluster (test files run in parallel: an advisory lock orders them). */
function ensureTemplate(): Promise<void> {
  template ??= admin(async (client) => {
    await client.query("SELECT pg_advisory_lock(7262011)");
    try {
      const { rowCount } = await client.query("SELECT 1 FROM pg_database WHERE datname = $1", [TEMPLATE]);
      if (!rowCount) {
        await client.query(`CREATE DATABASE ${TEMPLATE}`);
        const db = await openPostgres(withDatabase(PG_SERVER_URL!, TEMPLATE), { poolSize: 1 });
        await closeDatabase(db);
      }
    } finally {
      await client.query("SELECT pg_advisory_unlock(7262011)");
    }
  });
  return template;
}

/**
 * A new, empty, migrated database. SQLite: a file in a temp folder (so other processes can
 * open it too); Postgres: a new database on the test cluster.
 */
export async function freshDatabase(engine: Engine): Promise<TestDatabase> {
  if (engine === "sqlite") {
    const dir = mkdtempSync(path.join(tmpdir(), "agentboard-db-"));
    const file = path.join(dir, "test.db");
    const db = openDatabase(file);
    return {
      engine,
      db,
      url: file,
      env: { AGENTBOARD_DB: file, AGENTBOARD_DATABASE_URL: "" },
      close: async () => {
        await closeDatabase(db);
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  if (!PG_SERVER_URL) throw new Error("no Postgres cluster: run the tests with `npm test` (it starts one)");
  await ensureTemplate();
  const name = `t_${process.pid}_${randomBytes(4).toString("hex")}`;
  // CREATE DATABASE … TEMPLATE fails while another session is connected to the template; retry briefly.
  for (let attempt = 0; ; attempt++) {
    try {
      await admin((client) => client.query(`CREATE DATABASE ${name} TEMPLATE ${TEMPLATE}`));
      break;
    } catch (err) {
      if (attempt >= 20) throw err;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  const url = withDatabase(PG_SERVER_URL, name);
  const db = await openPostgres(url, { poolSize: 5 });
  return {
    engine,
    db,
    url,
    env: { AGENTBOARD_DATABASE_URL: url },
    close: async () => {
      await closeDatabase(db);
      await admin((client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).catch(() => {});
    },
  };
}

export interface FreshDatabase {
  /** The current test's database (its url and env too, for another handle or process). */
  t: TestDatabase;
  db: Db;
}

/**
 * A fresh database (freshDatabase: a SQLite file, or a Postgres database) for each test of the
 * calling describe block, closed after the test. The returned object's fields are set in
 * beforeEach, so read them inside tests and hooks, not at collection time.
 */
export function useFreshDatabase(engine: Engine): FreshDatabase {
  const state = {} as FreshDatabase;
  beforeEach(async () => {
    state.t = await freshDatabase(engine);
    state.db = state.t.db;
  });
  afterEach(() => state.t.close());
  return state;
}
