/**
 * Two web replicas on one database (two separate handles, as two processes would hold): a
 * session made on one is valid on the other, a sign-out on one ends it on both, and failed
 * sign-ins split across them lock a client out at the same total as on one.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createSession, revokeSession, sessionValid } from "@/app/admin/auth";
import { createFailureLimiter } from "@/app/admin/failure-limiter";
import { createSessionStore } from "@/app/admin/session-store";
import { closeDatabase, connectDatabase, type Db } from "@/db/client";
import { ENGINES, useFreshDatabase } from "../helpers/engines";

const TOKEN = "maintainer-token";
const NOW = Date.UTC(2026, 10, 22);
const limits = { maxFailures: 5, maxGlobalFailures: 100, windowMs: 15 * 60_000 };

describe.each(ENGINES)("two web replicas on one database (%s)", (engine) => {
  // A SQLite file (not memory): the two replicas open it by its path. Its afterEach, registered
  // first, runs after the one below that closes the replicas (vitest runs them in reverse).
  const fresh = useFreshDatabase(engine);
  let one: Db;
  let two: Db;
  beforeEach(async () => {
    one = await connectDatabase(fresh.t.url);
    two = await connectDatabase(fresh.t.url);
  });
  afterEach(async () => {
    await closeDatabase(one);
    await closeDatabase(two);
  });

  it("a session made on one replica is valid on the other, and a sign-out on either ends it on both", async () => {
    const a = createSessionStore(one);
    const b = createSessionStore(two);
    const cookie = await createSession(TOKEN, NOW, a);
    expect(await sessionValid(cookie, TOKEN, NOW + 1000, b)).toBe(true);
    await revokeSession(cookie, TOKEN, NOW + 2000, b);
    expect(await sessionValid(cookie, TOKEN, NOW + 3000, a)).toBe(false);
    expect(await sessionValid(cookie, TOKEN, NOW + 3000, b)).toBe(false);
  });

  it("failed sign-ins split across the replicas lock the client out at the same total", async () => {
    const a = createFailureLimiter(one, limits);
    const b = createFailureLimiter(two, limits);
    for (let i = 0; i < limits.maxFailures - 1; i++) await (i % 2 ? b : a).recordFailure("client", NOW + i);
    expect(await a.lockedOut("client", NOW + 10)).toBe(false);
    expect(await b.lockedOut("client", NOW + 10)).toBe(false);
    await b.recordFailure("client", NOW + 10);
    expect(await a.lockedOut("client", NOW + 11)).toBe(true);
    expect(await b.lockedOut("client", NOW + 11)).toBe(true);
    // A success on one replica clears the count for both.
    await a.clear("client");
    expect(await b.lockedOut("client", NOW + 12)).toBe(false);
  });
});
