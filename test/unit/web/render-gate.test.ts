/** The render gate: at most `running` heavy renders at once, `perClient` of one client; the rest wait in order or are refused. */
import { afterEach, describe, expect, it, vi } from "vitest";
import { createRenderGate, DEFAULT_RENDER_GATE_LIMITS, renderGateLimitsFromEnv, RenderRefused } from "@/scripts/server/render-gate";

/** Work that finishes when the test says so. */
function held() {
  let finish!: () => void;
  const done = new Promise<void>((r) => (finish = r));
  return { work: () => done, finish };
}

const settle = () => new Promise((r) => setImmediate(r));

afterEach(() => {
  vi.useRealTimers();
});

describe("the render gate", () => {
  it("runs a client's share at once, queues as many more, and refuses the rest with 429", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout"] });
    const gate = createRenderGate({ perClient: 2, running: 10, queued: 100, waitMs: 60_000 });
    const jobs = Array.from({ length: 6 }, () => held());
    let refusals = 0;
    const outcomes = jobs.map((j) => gate.run("a", j.work).then(() => "done", (e: unknown) => (refusals++, e instanceof RenderRefused ? e.status : "error")));
    await settle();
    expect(gate.stats()).toMatchObject({ running: 2, waiting: 2 });
    // A refusal is answered once its Retry-After (1 s) has passed, not at once.
    await vi.advanceTimersByTimeAsync(999);
    expect(refusals).toBe(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(refusals).toBe(2);
    expect(await outcomes[4]).toBe(429);
    expect(await outcomes[5]).toBe(429);
    vi.useRealTimers();
    // Another client is not held up by the first one's queue.
    const other = held();
    const b = gate.run("b", other.work);
    await settle();
    expect(gate.stats().running).toBe(3);
    for (const j of jobs) j.finish();
    other.finish();
    expect(await Promise.all(outcomes.slice(0, 4))).toEqual(["done", "done", "done", "done"]);
    await b;
    expect(gate.stats()).toEqual({ running: 0, waiting: 0, peak: 3 });
  });

  it("never runs more than `running` at once, serves waiters in order, and answers 503 when the queue is full", async () => {
    const gate = createRenderGate({ perClient: 1, running: 2, queued: 3, waitMs: 60_000 });
    const order: string[] = [];
    const jobs = ["a", "b", "c", "d", "e"].map((client) => ({ client, ...held() }));
    const runs = jobs.map((j) => gate.run(j.client, async () => (order.push(j.client), j.work())));
    const refused = gate.run("f", async () => "ran").catch((e: RenderRefused) => e.status);
    await settle();
    expect(order).toEqual(["a", "b"]);
    jobs[1]!.finish();
    await settle();
    expect(order).toEqual(["a", "b", "c"]);
    for (const j of jobs) j.finish();
    await Promise.all(runs);
    expect(order).toEqual(["a", "b", "c", "d", "e"]);
    expect(gate.stats().peak).toBe(2);
    expect(await refused).toBe(503);
  });

  it("refuses a request that waited too long, and frees the turn of work that failed", async () => {
    const gate = createRenderGate({ perClient: 1, running: 1, queued: 10, waitMs: 20 });
    const first = held();
    const running = gate.run("a", first.work);
    expect(await gate.run("b", async () => "ran").catch((e: RenderRefused) => [e.status, e.retryAfterS])).toEqual([503, 2]);
    first.finish();
    await running;
    await expect(gate.run("a", async () => Promise.reject(new Error("boom")))).rejects.toThrow("boom");
    expect(await gate.run("a", async () => "ran")).toBe("ran");
  });

  it("reads its limits from the environment and names a bad one", () => {
    expect(renderGateLimitsFromEnv({})).toEqual(DEFAULT_RENDER_GATE_LIMITS);
    expect(renderGateLimitsFromEnv({ AGENTBOARD_HEAVY_PER_CLIENT: "4", AGENTBOARD_HEAVY_CONCURRENCY: "8", AGENTBOARD_HEAVY_QUEUE: "0", AGENTBOARD_HEAVY_WAIT_MS: "500" })).toEqual({ perClient: 4, running: 8, queued: 0, waitMs: 500 });
    expect(() => renderGateLimitsFromEnv({ AGENTBOARD_HEAVY_CONCURRENCY: "0" })).toThrow("AGENTBOARD_HEAVY_CONCURRENCY must be a whole number from 1 to 1,000, not \"0\"");
    expect(() => renderGateLimitsFromEnv({ AGENTBOARD_HEAVY_WAIT_MS: "1e3" })).toThrow("AGENTBOARD_HEAVY_WAIT_MS");
  });
});
