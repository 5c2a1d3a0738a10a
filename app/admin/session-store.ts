/**
 * The maintainer sessions this server has issued and not ended. A signed cookie alone cannot
 * be revoked, so the session's nonce must also be here: sign-out deletes it, and so does a
 * server restart (maintainers sign in again). Bounded: past `maxSessions` the oldest ends.
 */

/** At most 1,000 live sessions; change it here. */
export const MAX_SESSIONS = 1000;

export interface SessionStore {
  add(nonce: string, expiresAt: number, now?: number): void;
  has(nonce: string, now?: number): boolean;
  revoke(nonce: string): void;
  size(): number;
}

export function createSessionStore(maxSessions = MAX_SESSIONS): SessionStore {
  const live = new Map<string, number>();
  return {
    add(nonce, expiresAt, now = Date.now()) {
      for (const [n, exp] of live) if (exp <= now) live.delete(n);
      while (live.size >= maxSessions) live.delete(live.keys().next().value!);
      live.set(nonce, expiresAt);
    },
    has(nonce, now = Date.now()) {
      const exp = live.get(nonce);
      if (exp === undefined) return false;
      if (exp > now) return true;
      live.delete(nonce);
      return false;
    },
    revoke(nonce) {
      live.delete(nonce);
    },
    size: () => live.size,
  };
}
