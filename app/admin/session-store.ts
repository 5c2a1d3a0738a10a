/**
 * The maintainer sessions the board has issued and not ended. A signed cookie alone cannot
 * be revoked, so the session's nonce must also be registered: sign-out deletes it. The register
 * is the database (lib/submissions/admin-sessions.ts), so every web replica shares it.
 * Bounded: past `maxSessions` the oldest ends.
 */
import type { Db } from "@/db/client";
import { addSession, hasSession, MAX_SESSIONS, revokeSession, sessionCount } from "@/lib/submissions/admin-sessions";

export { MAX_SESSIONS };

export interface SessionStore {
  add(nonce: string, expiresAt: number, now?: number): Promise<void>;
  has(nonce: string, now?: number): Promise<boolean>;
  revoke(nonce: string): Promise<void>;
  size(): Promise<number>;
}

/** `db` is a handle, or how to get one (the page database is opened on first use). */
export function createSessionStore(db: Db | (() => Promise<Db>), maxSessions = MAX_SESSIONS): SessionStore {
  const handle = async () => (typeof db === "function" ? db() : db);
  return {
    add: async (nonce, expiresAt, now = Date.now()) => addSession(await handle(), nonce, expiresAt, now, maxSessions),
    has: async (nonce, now = Date.now()) => hasSession(await handle(), nonce, now),
    revoke: async (nonce) => revokeSession(await handle(), nonce),
    size: async () => sessionCount(await handle()),
  };
}
