/**
 * pageDb, the handle pages and API routes share: the database the environment names, opened
 * once per process on either engine (AGENTBOARD_DATABASE_URL=postgres://… or a SQLite file).
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { auditLog } from "@/db/schema";
import { ENGINES, freshDatabase, type TestDatabase } from "../../helpers/engines";

describe.each(ENGINES)("pageDb (%s)", (engine) => {
  let t: TestDatabase;
  beforeEach(async () => {
    t = await freshDatabase(engine);
    for (const [k, v] of Object.entries(t.env)) vi.stubEnv(k, v);
    // A fresh module: its handle is per process, and each test names another database.
    vi.resetModules();
  });
  afterEach(async () => {
    vi.unstubAllEnvs();
    await t.close();
  });

  it("opens the database the environment names, once for requests arriving together", async () => {
    // Imported after the reset, together: a handle's engine is known to the client module that opened it.
    const { pageDb } = await import("@/lib/queries/db");
    const { closeDatabase, dialectOf } = await import("@/db/client");
    const { dataVersion } = await import("@/lib/queries/memo");
    const [a, b] = await Promise.all([pageDb(), pageDb()]);
    expect(a).toBe(b);
    expect(await pageDb()).toBe(a);
    expect(dialectOf(a)).toBe(engine);
    // The same data the test's own handle wrote.
    await t.db.insert(auditLog).values({ at: new Date(), actor: "test", action: "site:note", reason: "" });
    const [written] = await a.select().from(auditLog);
    expect(written?.action).toBe("site:note");
    expect(await dataVersion(a)).toMatch(/^[1-9]\d*:0$/);
    await closeDatabase(a);
  });
});
