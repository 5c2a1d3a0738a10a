/** Failed sign-ins: a limit per key, expiry, no lockout of everyone, limits from the environment, and a table that cannot grow without bound (both engines). */
import { describe, expect, it } from "vitest";
import { createFailureLimiter, FAILURE_LIMITS, signInLimitsFromEnv } from "@/app/admin/failure-limiter";
import { signInFailures } from "@/db/schema";
import { ENGINES, useFreshDatabase } from "../../helpers/engines";

const limits = { maxFailures: 3, maxStoredFailures: 1000, windowMs: 60_000 };

describe.each(ENGINES)("createFailureLimiter (%s)", (engine) => {
  const t = useFreshDatabase(engine);

  it("locks a key out after maxFailures, and only that key", async () => {
    const f = createFailureLimiter(t.db, limits);
    for (let i = 0; i < 2; i++) await f.recordFailure("a", 1000 + i);
    expect(await f.lockedOut("a", 2000)).toBe(false);
    await f.recordFailure("a", 2000);
    expect(await f.lockedOut("a", 2001)).toBe(true);
    expect(await f.lockedOut("b", 2001)).toBe(false);
  });

  it("forgets failures older than the window, and drops their rows at the next failure", async () => {
    const f = createFailureLimiter(t.db, limits);
    for (let i = 0; i < 3; i++) await f.recordFailure("a", 1000);
    expect(await f.lockedOut("a", 1000 + 59_999)).toBe(true);
    expect(await f.lockedOut("a", 1000 + 60_000)).toBe(false);
    await f.recordFailure("b", 1000 + 60_000);
    expect(await f.size()).toBe(1);
  });

  it("clears a key on success", async () => {
    const f = createFailureLimiter(t.db, limits);
    for (let i = 0; i < 3; i++) await f.recordFailure("a", 1000);
    await f.clear("a");
    expect(await f.lockedOut("a", 1001)).toBe(false);
  });

  it("holds at most maxStoredFailures rows, dropping the failures that happened longest ago", async () => {
    const f = createFailureLimiter(t.db, { ...limits, maxStoredFailures: 10 });
    for (let i = 0; i < 30; i++) await f.recordFailure(`k${i}`, 1000 + i);
    expect(await f.size()).toBe(10);
    const kept = (await t.db.select({ key: signInFailures.clientKey }).from(signInFailures)).map((r) => r.key).sort();
    expect(kept).toEqual(Array.from({ length: 10 }, (_, i) => `k${20 + i}`).sort());
  });

  it("keeps a failing key's own count however many times it fails", async () => {
    const f = createFailureLimiter(t.db, { ...limits, maxStoredFailures: 20 });
    for (let i = 0; i < 50; i++) await f.recordFailure("a", 1000 + i);
    expect(await f.size()).toBe(20);
    expect(await f.lockedOut("a", 2000)).toBe(true);
  });

  it("never locks out a key for what other keys did, however many fail", async () => {
    const f = createFailureLimiter(t.db, { ...limits, maxStoredFailures: 100 });
    for (let i = 0; i < 500; i++) await f.recordFailure(`addr-${i}`, 1000 + i);
    expect(await f.lockedOut("fresh", 2000)).toBe(false);
    expect(await f.lockedOut("addr-499", 2000)).toBe(false);
    expect(await f.size()).toBe(100);
  });
});

describe("signInLimitsFromEnv", () => {
  it("takes each limit from its variable, the default where unset", () => {
    expect(signInLimitsFromEnv({})).toEqual(FAILURE_LIMITS);
    expect(FAILURE_LIMITS).toEqual({ maxFailures: 5, windowMs: 15 * 60_000, maxStoredFailures: 10_000 });
    expect(signInLimitsFromEnv({ AGENTBOARD_SIGNIN_MAX_FAILURES: "10", AGENTBOARD_SIGNIN_WINDOW_MINUTES: "60", AGENTBOARD_SIGNIN_MAX_STORED_FAILURES: "50000" })).toEqual({
      maxFailures: 10,
      windowMs: 60 * 60_000,
      maxStoredFailures: 50_000,
    });
  });

  it.each([
    ["AGENTBOARD_SIGNIN_MAX_FAILURES", "0", "from 1 to 1000"],
    ["AGENTBOARD_SIGNIN_WINDOW_MINUTES", "1.5", "from 1 to 1440"],
    ["AGENTBOARD_SIGNIN_MAX_STORED_FAILURES", "10", "from 100 to 10000000"],
  ])("refuses a bad %s (%s), naming it", (name, value, range) => {
    expect(() => signInLimitsFromEnv({ [name]: value })).toThrow(`${name} must be a whole number ${range}, not "${value}"`);
  });
});
