/**
 * Failed sign-ins, counted per client key in a window, in a map with a hard size: expired keys
 * are dropped as they are met, and when the map is full the least recently failed key goes.
 * A global count backs it up, so a guesser with many addresses is slowed down too.
 */
export interface FailureLimits {
  /** Failures per key in the window before that key is locked out. */
  maxFailures: number;
  /** Failures from all keys together in the window before everyone is locked out. */
  maxGlobalFailures: number;
  windowMs: number;
  /** Keys kept at most; the oldest is forgotten first. */
  maxKeys: number;
}

/** Five per key and 100 in all per quarter hour; 10,000 keys. Change them here. */
export const FAILURE_LIMITS: FailureLimits = { maxFailures: 5, maxGlobalFailures: 100, windowMs: 15 * 60 * 1000, maxKeys: 10_000 };

export interface FailureLimiter {
  lockedOut(key: string, now?: number): boolean;
  recordFailure(key: string, now?: number): void;
  clear(key: string): void;
  /** Keys held now (for tests and monitoring). */
  size(): number;
}

export function createFailureLimiter(limits: FailureLimits = FAILURE_LIMITS): FailureLimiter {
  // Per key: failure times, oldest first, at most maxFailures of them.
  const byKey = new Map<string, number[]>();
  let global: number[] = [];

  const recent = (times: number[], now: number) => times.filter((t) => now - t < limits.windowMs);

  function current(key: string, now: number): number[] {
    const times = byKey.get(key);
    if (!times) return [];
    const kept = recent(times, now);
    if (kept.length === 0) byKey.delete(key);
    else if (kept.length !== times.length) byKey.set(key, kept);
    return kept;
  }

  function prune(now: number) {
    global = recent(global, now);
    // Map order is insertion order: the front holds the keys that failed longest ago.
    for (const [key, times] of byKey) {
      if (byKey.size < limits.maxKeys && now - times.at(-1)! < limits.windowMs) break;
      byKey.delete(key);
    }
  }

  return {
    lockedOut(key, now = Date.now()) {
      global = recent(global, now);
      return current(key, now).length >= limits.maxFailures || global.length >= limits.maxGlobalFailures;
    },
    recordFailure(key, now = Date.now()) {
      const times = [...current(key, now), now].slice(-limits.maxFailures);
      byKey.delete(key);
      prune(now);
      byKey.set(key, times);
      global.push(now);
      if (global.length > limits.maxGlobalFailures) global = global.slice(-limits.maxGlobalFailures);
    },
    clear(key) {
      byKey.delete(key);
    },
    size: () => byKey.size,
  };
}
