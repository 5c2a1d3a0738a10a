/**
 * How many heavy renders (an entry's item list, a comparison, a CSV, a board view not in the
 * cache: page-routes.ts) one server process runs at once. A render holds a core; thirty-two of
 * them at once left every other request, `/` from the cache included, waiting behind their
 * work for seconds. So a process runs at most `running` of them, one client at most
 * `perClient`; further requests wait their turn in order, a bounded time in a bounded queue,
 * and are then refused: 429 when the client already has its share running or waiting, 503
 * when the process is full. Either way with Retry-After, and only once that time has passed: a
 * client asking again at once on each of its connections (a flood of refusals is work too)
 * still asks once per Retry-After each. What is not heavy never waits here.
 */

export interface RenderGateLimits {
  /** Heavy requests one client runs at once in a process; as many more may wait (AGENTBOARD_HEAVY_PER_CLIENT, default 2). */
  perClient: number;
  /** Heavy requests a process runs at once, all clients together (AGENTBOARD_HEAVY_CONCURRENCY, default 2). */
  running: number;
  /** Heavy requests waiting for a turn in a process, at most (AGENTBOARD_HEAVY_QUEUE, default 64). */
  queued: number;
  /** How long a request waits for its turn before it is refused, in ms (AGENTBOARD_HEAVY_WAIT_MS, default 10,000). */
  waitMs: number;
}

export const DEFAULT_RENDER_GATE_LIMITS: RenderGateLimits = { perClient: 2, running: 2, queued: 64, waitMs: 10_000 };

/**
 * Bundle downloads (page-routes.ts) pass a gate of their own: each is hashed before it is sent,
 * and a turn lasts the whole transfer, so a slow downloader must not hold a render's turn. One
 * download per client at a time (one more waits), four per process.
 */
export const DOWNLOAD_GATE_LIMITS: RenderGateLimits = { perClient: 1, running: 4, queued: 32, waitMs: 10_000 };

const ENV: Record<keyof RenderGateLimits, { name: string; min: number; max: number }> = {
  perClient: { name: "AGENTBOARD_HEAVY_PER_CLIENT", min: 1, max: 1000 },
  running: { name: "AGENTBOARD_HEAVY_CONCURRENCY", min: 1, max: 1000 },
  queued: { name: "AGENTBOARD_HEAVY_QUEUE", min: 0, max: 100_000 },
  waitMs: { name: "AGENTBOARD_HEAVY_WAIT_MS", min: 0, max: 600_000 },
};

/** The gate's limits from the environment, defaults for unset ones; throws a message naming the setting for a bad value. */
export function renderGateLimitsFromEnv(env: Record<string, string | undefined>): RenderGateLimits {
  const limits = { ...DEFAULT_RENDER_GATE_LIMITS };
  for (const key of Object.keys(ENV) as (keyof RenderGateLimits)[]) {
    const { name, min, max } = ENV[key];
    const raw = env[name]?.trim();
    if (!raw) continue;
    const n = /^\d+$/.test(raw) ? Number(raw) : NaN;
    if (!(n >= min && n <= max)) throw new Error(`${name} must be a whole number from ${min.toLocaleString("en-US")} to ${max.toLocaleString("en-US")}, not ${JSON.stringify(raw.slice(0, 40))}`);
    limits[key] = n;
  }
  return limits;
}

/** A heavy request turned away: the status to answer and when to try again. */
export class RenderRefused extends Error {
  constructor(
    readonly status: 429 | 503,
    readonly retryAfterS: number,
  ) {
    super(status === 429 ? "too many heavy requests at once from this client" : "too many heavy requests at once");
  }
}

export interface RenderGate {
  /** Runs `work` when its turn comes; throws RenderRefused when it does not come. */
  run<T>(client: string, work: () => Promise<T>): Promise<T>;
  /** Running and waiting now, and the most that ever ran at once (for tests and monitoring). */
  stats(): { running: number; waiting: number; peak: number };
}

interface Waiter {
  client: string;
  start: () => void;
  timer: NodeJS.Timeout;
}

export function createRenderGate(limits: RenderGateLimits = DEFAULT_RENDER_GATE_LIMITS): RenderGate {
  let running = 0;
  let peak = 0;
  const perClient = new Map<string, { running: number; waiting: number }>();
  const queue: Waiter[] = [];

  const countOf = (client: string) => {
    let c = perClient.get(client);
    if (!c) perClient.set(client, (c = { running: 0, waiting: 0 }));
    return c;
  };
  const forget = (client: string) => {
    const c = perClient.get(client);
    if (c && c.running === 0 && c.waiting === 0) perClient.delete(client);
  };
  const mayStart = (client: string) => running < limits.running && countOf(client).running < limits.perClient;
  const begin = (client: string) => {
    running++;
    peak = Math.max(peak, running);
    countOf(client).running++;
  };

  function release(client: string) {
    running--;
    countOf(client).running--;
    forget(client);
    // The first in line whose client is under its share goes next.
    for (let i = 0; i < queue.length && running < limits.running; ) {
      const w = queue[i]!;
      if (!mayStart(w.client)) {
        i++;
        continue;
      }
      queue.splice(i, 1);
      clearTimeout(w.timer);
      countOf(w.client).waiting--;
      begin(w.client);
      w.start();
    }
  }

  /** A refusal answered when its Retry-After has passed. */
  const refuseLater = (refusal: RenderRefused) => new Promise<never>((_, reject) => setTimeout(() => reject(refusal), refusal.retryAfterS * 1000));

  function acquire(client: string): Promise<void> {
    // A waiter that could start was started when the slot it waited for came free, so the queue keeps its order.
    if (mayStart(client)) {
      begin(client);
      return Promise.resolve();
    }
    const c = countOf(client);
    if (c.running + c.waiting >= limits.perClient * 2) return refuseLater(new RenderRefused(429, 1));
    if (queue.length >= limits.queued) return refuseLater(new RenderRefused(503, 2));
    return new Promise<void>((resolve, reject) => {
      const w: Waiter = {
        client,
        start: resolve,
        timer: setTimeout(() => {
          queue.splice(queue.indexOf(w), 1);
          c.waiting--;
          const mine = c.running >= limits.perClient;
          forget(client);
          reject(new RenderRefused(mine ? 429 : 503, mine ? 1 : 2));
        }, limits.waitMs),
      };
      c.waiting++;
      queue.push(w);
    });
  }

  return {
    async run(client, work) {
      await acquire(client);
      try {
        return await work();
      } finally {
        release(client);
      }
    },
    stats: () => ({ running, waiting: queue.length, peak }),
  };
}
