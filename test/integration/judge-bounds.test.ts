/**
 * The judge's waits are bounded, against the real HTTP fake: a Retry-After is obeyed only up
 * to its cap, the whole grade ends at its deadline (unjudged), and an aborted signal ends a
 * pending request or wait at once (unjudged as stopped, never cached). Sleep and the clock
 * are injected where time passes; the abort tests use a reply that never comes, so a judge
 * that ignored the signal would hang the test instead of passing it.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createMemoryGradeCache } from "@/lib/judges/grade-cache";
import type { GradeRequest } from "@/lib/judges/grader";
import { resolveJudgeSettings, chatOptions, JudgeSettingsError } from "@/lib/judges/judge-settings";
import { createOpenAiGrader, type OpenAiGraderOptions } from "@/lib/judges/openai-grader";
import { CHAT_DEFAULTS } from "@/lib/judges/chat-client";
import { startFakeOpenAiServer, type FakeOpenAiServer } from "../helpers/fake-openai-server";

const req: GradeRequest = { kind: "correctness", question: "How many?", answer: "17", answerValue: "17", reference: "42", referenceValue: 42 };

let server: FakeOpenAiServer;
let clock: number;
let sleeps: number[];
beforeEach(async () => {
  server = await startFakeOpenAiServer();
  clock = 1_000_000;
  sleeps = [];
});
afterEach(async () => {
  await server.close();
});

/** A judge whose sleeps advance a fake clock instead of waiting. */
function judge(over: Partial<OpenAiGraderOptions> = {}) {
  return createOpenAiGrader({
    baseUrl: server.baseUrl,
    model: "m",
    random: () => 1,
    baseDelayMs: 100,
    now: () => clock,
    sleep: async (ms) => {
      sleeps.push(ms);
      clock += ms;
    },
    ...over,
  });
}

describe("bounded retries", () => {
  it("cuts a Retry-After of an hour to maxRetryAfterMs (60 s by default)", async () => {
    server.enqueue({ status: 429, retryAfter: 3600 }, { content: '{"verdict": "incorrect"}' });
    const g = await judge().grade(req);
    expect(g.outcome).toBe("fail");
    expect(sleeps).toEqual([CHAT_DEFAULTS.maxRetryAfterMs]);
    expect(CHAT_DEFAULTS.maxRetryAfterMs).toBe(60_000);
  });

  it("takes its cap from the options, and reads an HTTP-date Retry-After too", async () => {
    server.enqueue({ status: 503, retryAfter: new Date(clock + 3_600_000).toUTCString() }, { status: 429, retryAfter: 2 }, { content: '{"verdict": "correct"}' });
    await judge({ maxRetryAfterMs: 5_000 }).grade(req);
    expect(sleeps).toEqual([5_000, 2_000]);
  });

  it("gives up at the deadline: unjudged, without sleeping past it", async () => {
    server.setResponder(() => ({ status: 429, retryAfter: 3600 }));
    const g = await judge({ maxAttempts: 50, deadlineMs: 150_000 }).grade(req);
    expect(g).toMatchObject({ outcome: "unjudged", score: null });
    expect(g.detail).toContain("150000 ms deadline ran out after 3 attempt(s); last error: HTTP 429");
    // 60 s, 60 s, and a third wait would end past the 150 s deadline.
    expect(sleeps).toEqual([60_000, 60_000]);
    expect(server.requestCount).toBe(3);
  });

  it("reads the caps from the environment, and refuses a bad value", () => {
    const env = { AGENTBOARD_JUDGE_BASE_URL: "http://127.0.0.1:1", AGENTBOARD_JUDGE_MODEL: "m", AGENTBOARD_JUDGE_MAX_RETRY_AFTER_MS: "30000", AGENTBOARD_JUDGE_MAX_DELAY_MS: "4000", AGENTBOARD_JUDGE_DEADLINE_MS: "90000", AGENTBOARD_JUDGE_TIMEOUT_MS: "20000" };
    const s = resolveJudgeSettings({ flags: { judge: "openai" }, env });
    expect(chatOptions(s)).toMatchObject({ maxRetryAfterMs: 30_000, maxDelayMs: 4_000, deadlineMs: 90_000, timeoutMs: 20_000 });
    expect(() => resolveJudgeSettings({ flags: { judge: "openai" }, env: { ...env, AGENTBOARD_JUDGE_DEADLINE_MS: "soon" } })).toThrow(JudgeSettingsError);
  });
});

describe("a stop signal", () => {
  it("ends a request that is still waiting for its reply", async () => {
    server.setResponder(() => ({ delayMs: 3_600_000, content: '{"verdict": "correct"}' }));
    const stop = new AbortController();
    const cache = createMemoryGradeCache();
    const pending = judge({ signal: stop.signal, timeoutMs: 3_600_000, cache }).grade(req);
    while (server.inFlight === 0) await new Promise((r) => setTimeout(r, 5));
    stop.abort();
    const g = await pending;
    expect(g).toMatchObject({ outcome: "unjudged", score: null, reason: "the openai:m judge was stopped before it answered" });
    expect(server.requestCount).toBe(1);
    expect(cache.size()).toBe(0);
  });

  it("ends a wait for a Retry-After with the real sleep", async () => {
    server.setResponder(() => ({ status: 429, retryAfter: 3600 }));
    const stop = new AbortController();
    // The default sleep, and caps high enough that the hour would really be waited.
    const g = createOpenAiGrader({ baseUrl: server.baseUrl, model: "m", maxRetryAfterMs: 3_600_000, deadlineMs: 86_400_000, signal: stop.signal }).grade(req);
    while (server.requestCount === 0 || server.inFlight > 0) await new Promise((r) => setTimeout(r, 5));
    stop.abort();
    expect(await g).toMatchObject({ outcome: "unjudged", reason: "the openai:m judge was stopped before it answered" });
    expect(server.requestCount).toBe(1);
  });

  it("asks nothing once the signal has fired", async () => {
    const stop = new AbortController();
    stop.abort();
    expect(await judge({ signal: stop.signal }).grade(req)).toMatchObject({ outcome: "unjudged" });
    expect(server.requestCount).toBe(0);
  });
});
