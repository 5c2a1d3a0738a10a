/** Maintainer sessions: signed cookies that sign-out revokes in the database, in a bounded table (both engines). */
import { describe, expect, it } from "vitest";
import { createSession, revokeSession, sessionValid } from "@/app/admin/auth";
import { createSessionStore } from "@/app/admin/session-store";
import { ENGINES, freshDatabase, useFreshDatabase } from "../../helpers/engines";

const TOKEN = "maintainer-token";
const NOW = Date.UTC(2026, 10, 22);

describe.each(ENGINES)("maintainer sessions (%s)", (engine) => {
  const t = useFreshDatabase(engine);

  it("accepts a session it issued, and no longer after it is revoked, wherever the cookie was copied", async () => {
    const store = createSessionStore(t.db, 10);
    const cookie = await createSession(TOKEN, NOW, store);
    const copy = String(cookie);
    expect(await sessionValid(cookie, TOKEN, NOW + 1000, store)).toBe(true);
    await revokeSession(cookie, TOKEN, NOW + 2000, store);
    expect(await sessionValid(cookie, TOKEN, NOW + 3000, store)).toBe(false);
    expect(await sessionValid(copy, TOKEN, NOW + 3000, store)).toBe(false);
  });

  it("revokes only the session signed out", async () => {
    const store = createSessionStore(t.db, 10);
    const a = await createSession(TOKEN, NOW, store);
    const b = await createSession(TOKEN, NOW, store);
    await revokeSession(a, TOKEN, NOW, store);
    expect(await sessionValid(b, TOKEN, NOW, store)).toBe(true);
  });

  it("refuses a well-signed cookie this board never issued (another database's session)", async () => {
    const other = await freshDatabase(engine);
    try {
      const issued = await createSession(TOKEN, NOW, createSessionStore(other.db, 10));
      expect(await sessionValid(issued, TOKEN, NOW, createSessionStore(t.db, 10))).toBe(false);
    } finally {
      await other.close();
    }
  });

  it("refuses tampered, expired and other-token cookies", async () => {
    const store = createSessionStore(t.db, 10);
    const cookie = await createSession(TOKEN, NOW, store);
    const [exp, nonce, mac] = cookie.split(".") as [string, string, string];
    expect(await sessionValid(`${Number(exp) + 1000}.${nonce}.${mac}`, TOKEN, NOW, store)).toBe(false);
    expect(await sessionValid(cookie, TOKEN, NOW + 9 * 3600_000, store)).toBe(false);
    expect(await sessionValid(cookie, "another-token", NOW, store)).toBe(false);
    expect(await sessionValid(undefined, TOKEN, NOW, store)).toBe(false);
    expect(await sessionValid(cookie, null, NOW, store)).toBe(false);
  });

  it("a revoke with a forged cookie ends nothing", async () => {
    const store = createSessionStore(t.db, 10);
    const cookie = await createSession(TOKEN, NOW, store);
    const [exp, nonce] = cookie.split(".") as [string, string, string];
    await revokeSession(`${exp}.${nonce}.AAAA`, TOKEN, NOW, store);
    expect(await sessionValid(cookie, TOKEN, NOW, store)).toBe(true);
  });

  it("keeps at most maxSessions, ending the oldest first, and drops expired ones", async () => {
    const store = createSessionStore(t.db, 3);
    const cookies: string[] = [];
    for (let i = 0; i < 5; i++) cookies.push(await createSession(TOKEN, NOW + i, store));
    expect(await store.size()).toBe(3);
    const valid = [];
    for (const c of cookies) valid.push(await sessionValid(c, TOKEN, NOW + 10, store));
    expect(valid).toEqual([false, false, true, true, true]);
    await createSession(TOKEN, NOW + 9 * 3600_000, store);
    expect(await store.size()).toBe(1);
  });
});
