/**
 * The OpenAI-compatible grader's pass/fail verdicts against a real HTTP server on 127.0.0.1
 * (test/helpers): happy path, retries with backoff and Retry-After, give-up as "unjudged",
 * timeouts, garbage replies, the grade cache, in-flight de-duplication and bounded
 * concurrency. Sleep and randomness are injected, so the backoff is recorded instead of
 * waited out. A correctness judge's own words quote the reference: they are private detail.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createMemoryGradeCache } from "@/lib/judges/grade-cache";
import { sha256 } from "@/lib/formats/sha256";
import type { Grade, GradeRequest } from "@/lib/judges/grader";
import { createOpenAiGrader, type OpenAiGraderOptions } from "@/lib/judges/openai-grader";
import { buildPrompt } from "@/lib/judges/prompts";
import { fastRetries, chatCompletion, startFakeOpenAiServer, type FakeOpenAiServer } from "../helpers/fake-openai-server";
import { blockNames, unfenced } from "../helpers/data-blocks";

const MODEL = "judge-mini";

type VerdictRequest = Extract<GradeRequest, { kind: "correctness" | "groundedness" }>;

const correctnessReq = (question = "What is the mean abv of the cellar's ciders?"): VerdictRequest => ({
  kind: "correctness",
  question,
  answer: "The mean is 41.26.",
  answerValue: "The mean is 41.26.",
  reference: "41.2587",
  referenceValue: "41.2587",
});

const groundednessReq: VerdictRequest = {
  kind: "groundedness",
  question: "Which cider is the strongest?",
  answer: "Pommeau Noir, at 18.5%.",
  answerValue: "Pommeau Noir, at 18.5%.",
  evidence: ['[{"name": "Pommeau Noir", "abv": 18.5}]'],
};

const verdictJson = (verdict: string, reason: string) => JSON.stringify({ verdict, reason });

let server: FakeOpenAiServer;
let sleeps: number[];

beforeEach(async () => {
  server = await startFakeOpenAiServer();
  sleeps = [];
});

afterEach(async () => {
  await server.close();
});

function judge(over: Partial<OpenAiGraderOptions> = {}) {
  return createOpenAiGrader({ ...fastRetries(server.baseUrl, sleeps), model: MODEL, ...over });
}

/** A grade that must be "could not judge": its message is private detail. */
async function unjudged(p: Promise<Grade>): Promise<Grade & { detail: string }> {
  const g = await p;
  expect(g).toMatchObject({ outcome: "unjudged", score: null, reason: `the openai:${MODEL} judge gave no usable reply` });
  expect(typeof g.detail).toBe("string");
  return g as Grade & { detail: string };
}

const passed = (g: Grade) => g.outcome === "pass";

describe("openai judge: happy path", () => {
  it("posts the prompt at temperature 0 and reads a JSON verdict", async () => {
    server.enqueue({ content: verdictJson("correct", "41.26 is 41.2587 at two decimals") });
    const j = judge();
    const req = correctnessReq();
    const d = await j.grade(req);

    expect(j.id).toBe(`openai:${MODEL}`);
    expect(d).toEqual({
      outcome: "pass",
      score: 1,
      reason: `judged correct by openai:${MODEL}`,
      detail: "41.26 is 41.2587 at two decimals",
      promptHash: sha256(JSON.stringify(buildPrompt(req))),
      cacheHit: false,
    });
    expect(server.requestCount).toBe(1);
    const sent = server.requests[0]!;
    expect(sent.method).toBe("POST");
    expect(sent.path).toBe("/chat/completions");
    expect(sent.headers["content-type"]).toBe("application/json");
    expect(sent.headers.authorization).toBeUndefined();
    // Issue 26: the reply's JSON schema goes along (structured output; see judge-structured-output.test.ts).
    expect(sent.json).toEqual({ model: MODEL, temperature: 0, messages: buildPrompt(req), response_format: { type: "json_schema", json_schema: expect.objectContaining({ name: "correctness_verdict", strict: true }) } });
    const user = (sent.json as { messages: { role: string; content: string }[] }).messages[1]!;
    expect(user.role).toBe("user");
    expect(blockNames(user.content)).toEqual(["question", "reference", "answer"]);
    expect(unfenced(user.content)).toContain("What is the mean abv");
    expect(unfenced(user.content)).toContain("Reference answer:\n41.2587");
    expect(unfenced(user.content)).toContain("Agent answer:\nThe mean is 41.26.");
    expect(sleeps).toEqual([]);
  });

  it("sends the API key as a bearer token", async () => {
    await judge({ apiKey: "sk-test-123" }).grade(correctnessReq());
    expect(server.requests[0]!.headers.authorization).toBe("Bearer sk-test-123");
  });

  it("appends /chat/completions to a base URL with a path and trailing slashes", async () => {
    const d = await judge({ baseUrl: `${server.baseUrl}/v1//` }).grade(correctnessReq());
    expect(passed(d)).toBe(true);
    expect(server.requests[0]!.path).toBe("/v1/chat/completions");
  });

  it("fails a groundedness reply of partially_grounded, fenced in prose", async () => {
    server.enqueue({ content: 'Sure.\n```json\n{"verdict": "partially_grounded", "reason": "18.5% is there, the ranking is not"}\n```' });
    const d = await judge().grade(groundednessReq);
    // Groundedness never sees the reference: the judge's words are the public reason.
    expect(d).toMatchObject({ outcome: "fail", score: 0, reason: "18.5% is there, the ranking is not", detail: null, cacheHit: false });
    const system = (server.requests[0]!.json as { messages: { content: string }[] }).messages[0]!.content;
    expect(system).toContain("partially_grounded");
    const user = (server.requests[0]!.json as { messages: { content: string }[] }).messages[1]!.content;
    expect(user).toContain('[1] [{"name": "Pommeau Noir", "abv": 18.5}]');
  });

  it("explains with the label when the reply gives no reason", async () => {
    server.enqueue({ content: "<think>maybe correct?</think>\nVerdict: incorrect" });
    const d = await judge().grade(correctnessReq());
    expect(passed(d)).toBe(false);
    expect(d.detail).toBe("Verdict: incorrect");
    server.enqueue({ content: "incorrect" });
    expect((await judge().grade(correctnessReq("another question"))).detail).toBe("verdict: incorrect");
  });
});

describe("openai judge: retries", () => {
  it("retries a 429 and honours Retry-After", async () => {
    server.enqueue({ status: 429, retryAfter: 2 }, { content: verdictJson("incorrect", "wrong value") });
    const d = await judge().grade(correctnessReq());
    expect(server.requestCount).toBe(2);
    expect(d).toMatchObject({ outcome: "fail", score: 0, detail: "wrong value", cacheHit: false });
    // Backoff would be random() * 100 = 100 ms; Retry-After: 2 asks for 2 s.
    expect(sleeps).toEqual([2000]);
  });

  it("uses jittered exponential backoff when there is no Retry-After", async () => {
    server.enqueue({ status: 429 }, { status: 503 }, { content: verdictJson("correct", "ok") });
    const d = await judge({ maxAttempts: 4, random: () => 0.5 }).grade(correctnessReq());
    expect(passed(d)).toBe(true);
    expect(server.requestCount).toBe(3);
    expect(sleeps).toEqual([50, 100]);
  });

  it("gives up after maxAttempts 5xx replies as unjudged", async () => {
    server.setResponder(() => ({ status: 500 }));
    const err = await unjudged(judge({ maxAttempts: 3 }).grade(correctnessReq()));
    expect(server.requestCount).toBe(3);
    expect(err.detail).toBe("judge failed after 3 attempts: HTTP 500");
    expect(sleeps).toEqual([100, 200]);
  });

  it("caps the backoff at maxDelayMs", async () => {
    server.setResponder(() => ({ status: 502 }));
    await unjudged(judge({ maxAttempts: 5, baseDelayMs: 100, maxDelayMs: 250 }).grade(correctnessReq()));
    expect(server.requestCount).toBe(5);
    expect(sleeps).toEqual([100, 200, 250, 250]);
  });

  it("does not retry a 4xx other than 429", async () => {
    server.enqueue({ status: 400, body: '{"error": {"message": "bad model name"}}' });
    const err = await unjudged(judge().grade(correctnessReq()));
    expect(server.requestCount).toBe(1);
    expect(err.detail).toContain("HTTP 400");
    expect(err.detail).toContain("bad model name");
    expect(sleeps).toEqual([]);
  });

  it("retries a request that outlives timeoutMs, then gives up", async () => {
    server.setResponder(() => ({ delayMs: 5_000, content: verdictJson("correct", "too late") }));
    // Without the timeout the first attempt would wait out the 5 s delay and succeed.
    const err = await unjudged(judge({ timeoutMs: 500, maxAttempts: 2 }).grade(correctnessReq()));
    expect(server.requestCount).toBe(2);
    expect(err.detail).toBe("judge failed after 2 attempts: timed out after 500 ms");
  });

  it("recovers when a timed-out request is followed by a prompt reply", async () => {
    // The timeout leaves a loaded machine room to answer the prompt reply in time.
    server.enqueue({ delayMs: 5_000, content: verdictJson("correct", "too late") }, { content: verdictJson("incorrect", "in time") });
    const d = await judge({ timeoutMs: 500 }).grade(correctnessReq());
    expect(server.requestCount).toBe(2);
    expect(d).toMatchObject({ outcome: "fail", detail: "in time" });
  });

  it("retries garbage replies (non-JSON body, no choices, unparseable content), then gives up", async () => {
    server.enqueue({ body: "<html>502 Bad Gateway</html>" }, { body: { id: "x", object: "chat.completion" } }, { content: "I would rather not say." });
    const err = await unjudged(judge({ maxAttempts: 3 }).grade(correctnessReq()));
    expect(server.requestCount).toBe(3);
    expect(err.detail).toContain("judge failed after 3 attempts: no correctness verdict found in judge reply");
    expect(err.detail).toContain("I would rather not say.");
    expect(sleeps).toEqual([100, 200]);
  });

  it("names the last garbage reply in the error", async () => {
    server.setResponder(() => ({ body: "not json at all" }));
    expect((await unjudged(judge({ maxAttempts: 2 }).grade(correctnessReq()))).detail).toBe("judge failed after 2 attempts: response body is not JSON");
    server.setResponder(() => ({ body: chatCompletion(null) }));
    expect((await unjudged(judge({ maxAttempts: 2 }).grade(correctnessReq("q2")))).detail).toBe(
      "judge failed after 2 attempts: response has no choices[0].message.content",
    );
    expect(server.requestCount).toBe(4);
  });

  it("recovers from a garbage reply", async () => {
    server.enqueue({ body: { choices: [] } }, { content: "Verdict: yes" });
    const d = await judge().grade(correctnessReq());
    expect(server.requestCount).toBe(2);
    expect(passed(d)).toBe(true);
  });

  it("turns a refused connection into an unjudged grade after its retries", async () => {
    const url = server.baseUrl;
    await server.close();
    const err = await unjudged(judge({ baseUrl: url, maxAttempts: 2 }).grade(correctnessReq()));
    expect(err.detail).toContain("judge failed after 2 attempts: network error");
    server = await startFakeOpenAiServer();
  });
});

describe("openai judge: grade cache", () => {
  it("answers a second identical request from the cache without HTTP", async () => {
    const cache = createMemoryGradeCache();
    const j = judge({ cache });
    server.enqueue({ content: verdictJson("correct", "same value") });
    const first = await j.grade(correctnessReq());
    const second = await j.grade(correctnessReq());
    expect(server.requestCount).toBe(1);
    expect(first.cacheHit).toBe(false);
    expect(second).toEqual({ ...first, cacheHit: true });
    expect(cache.size()).toBe(1);

    // Another prompt, or the same prompt to another model, is a miss.
    await j.grade(correctnessReq("a different question"));
    await judge({ cache, model: "judge-large" }).grade(correctnessReq());
    expect(server.requestCount).toBe(3);
    expect(cache.size()).toBe(3);
  });

  it("never caches an unjudged grade", async () => {
    const cache = createMemoryGradeCache();
    const j = judge({ cache, maxAttempts: 1 });
    server.enqueue({ status: 500 });
    await unjudged(j.grade(correctnessReq()));
    expect(cache.size()).toBe(0);

    server.enqueue({ content: verdictJson("incorrect", "second try") });
    const d = await j.grade(correctnessReq());
    expect(server.requestCount).toBe(2);
    expect(d).toMatchObject({ outcome: "fail", detail: "second try", cacheHit: false });

    const again = await j.grade(correctnessReq());
    expect(server.requestCount).toBe(2);
    expect(again).toMatchObject({ outcome: "fail", detail: "second try", cacheHit: true });
  });

  it("de-duplicates concurrent identical requests", async () => {
    server.setResponder(() => ({ delayMs: 50, content: verdictJson("correct", "shared") }));
    const j = judge();
    const results = await Promise.all([j.grade(correctnessReq()), j.grade(correctnessReq()), j.grade(correctnessReq())]);
    expect(server.requestCount).toBe(1);
    expect(results.map((r) => r.detail)).toEqual(["shared", "shared", "shared"]);
    expect(results.map((r) => r.cacheHit).sort()).toEqual([false, true, true]);
  });

  it("shares a failure among concurrent identical requests and retries later", async () => {
    server.enqueue({ delayMs: 50, status: 503 });
    const j = judge({ maxAttempts: 1 });
    const shared = await Promise.all([j.grade(correctnessReq()), j.grade(correctnessReq())]);
    expect(shared.map((g) => g.outcome)).toEqual(["unjudged", "unjudged"]);
    expect(server.requestCount).toBe(1);
    expect(passed(await j.grade(correctnessReq()))).toBe(true);
    expect(server.requestCount).toBe(2);
  });
});

describe("openai judge: bounded concurrency", () => {
  it("never has more than `concurrency` requests in flight", async () => {
    server.setResponder(() => ({ delayMs: 50, content: verdictJson("correct", "ok") }));
    const j = judge({ concurrency: 2 });
    const results = await Promise.all(Array.from({ length: 6 }, (_, i) => j.grade(correctnessReq(`question ${i}`))));
    expect(results.every((r) => passed(r) && !r.cacheHit)).toBe(true);
    expect(server.requestCount).toBe(6);
    expect(server.maxInFlight).toBe(2);
    expect(server.inFlight).toBe(0);
  });

  it("runs them all at once when the limit allows (the server does see overlap)", async () => {
    server.setResponder(() => ({ delayMs: 50, content: verdictJson("correct", "ok") }));
    const j = judge({ concurrency: 16 });
    await Promise.all(Array.from({ length: 6 }, (_, i) => j.grade(correctnessReq(`question ${i}`))));
    expect(server.maxInFlight).toBeGreaterThan(2);
  });

  it("keeps the limit while retrying", async () => {
    let n = 0;
    server.setResponder(() => (n++ % 2 === 0 ? { delayMs: 20, status: 503 } : { delayMs: 20, content: verdictJson("correct", "ok") }));
    const j = judge({ concurrency: 1, maxAttempts: 10 });
    const results = await Promise.all(Array.from({ length: 4 }, (_, i) => j.grade(correctnessReq(`retry ${i}`))));
    expect(results.every(passed)).toBe(true);
    expect(server.maxInFlight).toBe(1);
    expect(server.requestCount).toBeGreaterThanOrEqual(5);
  });

  it("rejects a concurrency that is not a positive integer", () => {
    expect(() => judge({ concurrency: 0 })).toThrow(RangeError);
  });
});
