/** Maintainer sessions: signed cookies that sign-out revokes on the server, in a bounded store. */
import { describe, expect, it } from "vitest";
import { createSession, revokeSession, sessionValid } from "@/app/admin/auth";
import { createSessionStore } from "@/app/admin/session-store";

const TOKEN = "maintainer-token";
const NOW = Date.UTC(2026, 10, 22);

describe("maintainer sessions", () => {
  it("accepts a session it issued, and no longer after it is revoked, wherever the cookie was copied", () => {
    const store = createSessionStore(10);
    const cookie = createSession(TOKEN, NOW, store);
    const copy = String(cookie);
    expect(sessionValid(cookie, TOKEN, NOW + 1000, store)).toBe(true);
    revokeSession(cookie, TOKEN, NOW + 2000, store);
    expect(sessionValid(cookie, TOKEN, NOW + 3000, store)).toBe(false);
    expect(sessionValid(copy, TOKEN, NOW + 3000, store)).toBe(false);
  });

  it("revokes only the session signed out", () => {
    const store = createSessionStore(10);
    const a = createSession(TOKEN, NOW, store);
    const b = createSession(TOKEN, NOW, store);
    revokeSession(a, TOKEN, NOW, store);
    expect(sessionValid(b, TOKEN, NOW, store)).toBe(true);
  });

  it("refuses a well-signed cookie this server never issued (or forgot on restart)", () => {
    const issued = createSession(TOKEN, NOW, createSessionStore(10));
    expect(sessionValid(issued, TOKEN, NOW, createSessionStore(10))).toBe(false);
  });

  it("refuses tampered, expired and other-token cookies", () => {
    const store = createSessionStore(10);
    const cookie = createSession(TOKEN, NOW, store);
    const [exp, nonce, mac] = cookie.split(".") as [string, string, string];
    expect(sessionValid(`${Number(exp) + 1000}.${nonce}.${mac}`, TOKEN, NOW, store)).toBe(false);
    expect(sessionValid(cookie, TOKEN, NOW + 9 * 3600_000, store)).toBe(false);
    expect(sessionValid(cookie, "another-token", NOW, store)).toBe(false);
    expect(sessionValid(undefined, TOKEN, NOW, store)).toBe(false);
    expect(sessionValid(cookie, null, NOW, store)).toBe(false);
  });

  it("a revoke with a forged cookie ends nothing", () => {
    const store = createSessionStore(10);
    const cookie = createSession(TOKEN, NOW, store);
    const [exp, nonce] = cookie.split(".") as [string, string, string];
    revokeSession(`${exp}.${nonce}.AAAA`, TOKEN, NOW, store);
    expect(sessionValid(cookie, TOKEN, NOW, store)).toBe(true);
  });

  it("keeps at most maxSessions, ending the oldest first, and drops expired ones", () => {
    const store = createSessionStore(3);
    const cookies = Array.from({ length: 5 }, (_, i) => createSession(TOKEN, NOW + i, store));
    expect(store.size()).toBe(3);
    expect(cookies.map((c) => sessionValid(c, TOKEN, NOW + 10, store))).toEqual([false, false, true, true, true]);
    createSession(TOKEN, NOW + 9 * 3600_000, store);
    expect(store.size()).toBe(1);
  });
});
