/** Failed sign-ins: a lockout per key, expiry, a global backstop, and a table that cannot grow without bound (both engines). */
import { describe, expect, it } from "vitest";
import { createFailureLimiter } from "@/app/admin/failure-limiter";
import { signInFailures } from "@/db/schema";
import { ENGINES, useFreshDatabase } from "../../helpers/engines";

const limits = { maxFailures: 3, maxGlobalFailures: 1000, windowMs: 60_000 };

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

  it("holds at most maxGlobalFailures rows, dropping the failures that happened longest ago", async () => {
    const f = createFailureLimiter(t.db, { ...limits, maxGlobalFailures: 10 });
    for (let i = 0; i < 30; i++) await f.recordFailure(`k${i}`, 1000 + i);
    expect(await f.size()).toBe(10);
    const kept = (await t.db.select({ key: signInFailures.clientKey }).from(signInFailures)).map((r) => r.key).sort();
    expect(kept).toEqual(Array.from({ length: 10 }, (_, i) => `k${20 + i}`).sort());
  });

  it("keeps a failing key's own count however many times it fails", async () => {
    const f = createFailureLimiter(t.db, { ...limits, maxGlobalFailures: 20 });
    for (let i = 0; i < 50; i++) await f.recordFailure("a", 1000 + i);
    expect(await f.size()).toBe(20);
    expect(await f.lockedOut("a", 2000)).toBe(true);
  });

  it("locks everyone out when all keys together fail too often", async () => {
    const f = createFailureLimiter(t.db, { ...limits, maxGlobalFailures: 10 });
    for (let i = 0; i < 10; i++) await f.recordFailure(`addr-${i}`, 1000);
    expect(await f.lockedOut("fresh", 1001)).toBe(true);
    expect(await f.lockedOut("fresh", 1000 + 60_000)).toBe(false);
  });
});
