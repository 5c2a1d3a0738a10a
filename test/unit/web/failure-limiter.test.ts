/** Failed sign-ins: a lockout per key, expiry, a global backstop, and a map that cannot grow without bound. */
import { describe, expect, it } from "vitest";
import { createFailureLimiter } from "@/app/admin/failure-limiter";

const limits = { maxFailures: 3, maxGlobalFailures: 1000, windowMs: 60_000, maxKeys: 5 };

describe("createFailureLimiter", () => {
  it("locks a key out after maxFailures, and only that key", () => {
    const f = createFailureLimiter(limits);
    for (let i = 0; i < 2; i++) f.recordFailure("a", 1000 + i);
    expect(f.lockedOut("a", 2000)).toBe(false);
    f.recordFailure("a", 2000);
    expect(f.lockedOut("a", 2001)).toBe(true);
    expect(f.lockedOut("b", 2001)).toBe(false);
  });

  it("forgets failures older than the window", () => {
    const f = createFailureLimiter(limits);
    for (let i = 0; i < 3; i++) f.recordFailure("a", 1000);
    expect(f.lockedOut("a", 1000 + 59_999)).toBe(true);
    expect(f.lockedOut("a", 1000 + 60_000)).toBe(false);
    expect(f.size()).toBe(0);
  });

  it("clears a key on success", () => {
    const f = createFailureLimiter(limits);
    for (let i = 0; i < 3; i++) f.recordFailure("a", 1000);
    f.clear("a");
    expect(f.lockedOut("a", 1001)).toBe(false);
  });

  it("holds at most maxKeys keys, dropping the one that failed longest ago", () => {
    const f = createFailureLimiter(limits);
    for (let i = 0; i < 100; i++) f.recordFailure(`k${i}`, 1000 + i);
    expect(f.size()).toBe(5);
    // The latest keys are still counted.
    for (let i = 0; i < 2; i++) f.recordFailure("k99", 2000 + i);
    expect(f.lockedOut("k99", 3000)).toBe(true);
  });

  it("keeps a failing key's own count however many times it fails", () => {
    const f = createFailureLimiter(limits);
    for (let i = 0; i < 10_000; i++) f.recordFailure("a", 1000 + i);
    expect(f.size()).toBe(1);
    expect(f.lockedOut("a", 20_000)).toBe(true);
  });

  it("locks everyone out when all keys together fail too often", () => {
    const f = createFailureLimiter({ ...limits, maxGlobalFailures: 10, maxKeys: 100 });
    for (let i = 0; i < 10; i++) f.recordFailure(`addr-${i}`, 1000);
    expect(f.lockedOut("fresh", 1001)).toBe(true);
    expect(f.lockedOut("fresh", 1000 + 60_000)).toBe(false);
  });
});
