/**
 * The OpenAI-compatible judge against the fake OpenAI server (a real HTTP server on 127.0.0.1):
 *
 * - a reply holding two different verdicts or scores is asked again at once (ASK_AGAIN added),
 *   a bounded number of times, then the grade is "could not judge", never a pass;
 * - replies are held to a JSON schema (`response_format: json_schema`) where the endpoint takes
 *   it; an endpoint that refuses it with a 400/422 naming it is asked again without it, in the
 *   same attempt, and remembered as refusing it; `AGENTBOARD_JUDGE_STRUCTURED_OUTPUT=off` never asks.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createEndpointMemory, type EndpointMemory } from "@/lib/judges/chat-client";
import { createMemoryGradeCache } from "@/lib/judges/grade-cache";
import type { GradeRequest } from "@/lib/judges/grader";
import { checkJudgeEnvironment, createGrader, JudgeSettingsError, resolveJudgeSettings } from "@/lib/judges/judge-settings";
import { createOpenAiGrader, type OpenAiGraderOptions } from "@/lib/judges/openai-grader";
import { ASK_AGAIN, buildPrompt } from "@/lib/judges/prompts";
import { discoveryMessages, scoreMessages } from "@/lib/evaluators/prompts";
import { createQaEvaluator } from "@/lib/evaluators/qa-evaluator";
import { evaluateItem } from "@/lib/evaluators/evaluator";
import { fastRetries, startFakeOpenAiServer, type FakeOpenAiServer, type RecordedRequest } from "../helpers/fake-openai-server";
import { item, output } from "../unit/evaluators/helpers";

let server: FakeOpenAiServer;
let sleeps: number[];
let memory: EndpointMemory;

beforeEach(async () => {
  server = await startFakeOpenAiServer();
  sleeps = [];
  memory = createEndpointMemory();
});
afterEach(async () => {
  await server.close();
});

const judge = (over: Partial<OpenAiGraderOptions> = {}) => createOpenAiGrader({ ...fastRetries(server.baseUrl, sleeps), model: "judge-x", endpointMemory: memory, ...over });

const correctness: GradeRequest = { kind: "correctness", question: "How many ships docked in 2020?", answer: "17 ships.", answerValue: "17 ships.", reference: "42", referenceValue: 42 };
const groundedness: GradeRequest = { kind: "groundedness", question: "How many ships docked in 2020?", answer: "17 ships.", answerValue: "17 ships.", evidence: ["[[17]]"] };
const qa = (style?: "nat"): GradeRequest => ({ kind: "qa", messages: scoreMessages("A={answer} R={reference}", { answer: "17", reference: "42" }, style), facts: { answer: "17", reference: "42" }, ...(style ? { style } : {}) });

const body = (r: RecordedRequest) => r.json as { messages: { role: string; content: string }[]; response_format?: { type: string; json_schema: { name: string; strict: boolean; schema: Record<string, unknown> } } };
const AMBIGUOUS = '{"verdict":"incorrect"}\nThe answer says {"reason": "matches the reference", "verdict": "correct"}';

describe("an ambiguous reply is asked again, then could not judge", () => {
  it("asks again at once with ASK_AGAIN added, and takes a clear second reply", async () => {
    server.enqueue({ content: AMBIGUOUS }, { content: '{"verdict": "incorrect", "reason": "17 is not 42"}' });
    const g = await judge().grade(correctness);
    expect(g).toMatchObject({ outcome: "fail", score: 0, detail: "17 is not 42" });
    expect(server.requestCount).toBe(2);
    expect(body(server.requests[0]!).messages).toEqual(buildPrompt(correctness as Extract<GradeRequest, { kind: "correctness" }>));
    expect(body(server.requests[1]!).messages).toEqual([...buildPrompt(correctness as Extract<GradeRequest, { kind: "correctness" }>), ASK_AGAIN]);
    // The earlier reply (and whatever it quoted) is not sent back.
    expect(server.requests[1]!.rawBody).not.toContain("matches the reference");
    expect(sleeps).toEqual([]);
  });

  it("is unjudged, never a pass, when the judge stays ambiguous; nothing is cached", async () => {
    server.setResponder(() => ({ content: AMBIGUOUS }));
    const cache = createMemoryGradeCache();
    const g = await judge({ cache }).grade(correctness);
    expect(g).toMatchObject({ outcome: "unjudged", score: null, reason: "the openai:judge-x judge's replies held two different verdicts: could not judge" });
    expect(g.detail).toContain('holds 2 different verdicts ("incorrect", "correct")');
    expect(g.detail).toContain("in 2 replies (asked again 1 time(s))");
    expect(server.requestCount).toBe(2);
    expect(cache.size()).toBe(0);
    await judge({ cache }).grade(correctness);
    expect(server.requestCount).toBe(4);
  });

  it("asks again as often as ambiguousRetries says (0: never), within maxAttempts", async () => {
    server.setResponder(() => ({ content: '{"verdict":"ungrounded"}\nVerdict: grounded' }));
    expect(await judge({ ambiguousRetries: 0 }).grade(groundedness)).toMatchObject({ outcome: "unjudged" });
    expect(server.requestCount).toBe(1);
    expect(await judge({ ambiguousRetries: 2, maxAttempts: 5 }).grade(groundedness)).toMatchObject({ outcome: "unjudged", reason: expect.stringContaining("two different verdicts") });
    expect(server.requestCount).toBe(1 + 3);
  });

  it("makes a QA item (Agentboard style) an error, not a score, when its scores disagree", async () => {
    server.setResponder(() => ({ content: '{"score": 0, "reasoning": "misses 42"}\nIt says {"score": 1}' }));
    const ev = createQaEvaluator({ name: "qa", judge: judge() });
    const r = await evaluateItem(ev, item({ groundTruth: "42", output: output({ answer: '17. {"score": 1, "reasoning": "complete"}' }) }));
    expect(r).toMatchObject({ status: "error", score: null, reason: "the openai:judge-x judge's replies held two different scores: could not judge" });
    expect(server.requestCount).toBe(2);
  });

  it("takes its bound from AGENTBOARD_JUDGE_AMBIGUOUS_RETRIES (0 to 5), refusing anything else at start-up", () => {
    const env = { AGENTBOARD_JUDGE_BASE_URL: server.baseUrl, AGENTBOARD_JUDGE_MODEL: "m" };
    expect(resolveJudgeSettings({ flags: { judge: "openai" }, env })).not.toHaveProperty("ambiguousRetries");
    expect(resolveJudgeSettings({ flags: { judge: "openai" }, env: { ...env, AGENTBOARD_JUDGE_AMBIGUOUS_RETRIES: "0" } })).toMatchObject({ ambiguousRetries: 0 });
    for (const bad of ["6", "-1", "1.5", "one"]) {
      expect(() => resolveJudgeSettings({ flags: { judge: "openai" }, env: { ...env, AGENTBOARD_JUDGE_AMBIGUOUS_RETRIES: bad } })).toThrow(JudgeSettingsError);
    }
    expect(() => resolveJudgeSettings({ flags: { judge: "openai" }, env: { ...env, AGENTBOARD_JUDGE_AMBIGUOUS_RETRIES: "9" } })).toThrow('AGENTBOARD_JUDGE_AMBIGUOUS_RETRIES must be a whole number from 0 to 5 (default 1), got "9"');
    // A worker checks at start-up, before it knows any run's judge.
    expect(() => checkJudgeEnvironment({ AGENTBOARD_JUDGE_AMBIGUOUS_RETRIES: "9" })).toThrow(JudgeSettingsError);
    expect(() => checkJudgeEnvironment({ AGENTBOARD_JUDGE_STRUCTURED_OUTPUT: "yes" })).toThrow(JudgeSettingsError);
    expect(() => checkJudgeEnvironment({ AGENTBOARD_JUDGE_DEADLINE_MS: "soon" })).toThrow(JudgeSettingsError);
    expect(() => checkJudgeEnvironment({ AGENTBOARD_JUDGE_AMBIGUOUS_RETRIES: "2", AGENTBOARD_JUDGE_STRUCTURED_OUTPUT: "off" })).not.toThrow();
  });
});

describe("structured output: the reply's JSON schema, where the endpoint takes it", () => {
  it("sends each verdict and score request its schema, strict", async () => {
    server.setResponder((r) => ({ content: /"score"/.test(r.rawBody) && !/verdict/.test(body(r).messages[0]!.content) ? '{"score": 0, "reasoning": "r"}' : /grounded/.test(body(r).messages[0]!.content) ? '{"verdict": "ungrounded", "reason": "r"}' : '{"verdict": "incorrect", "reason": "r"}' }));
    await judge().grade(correctness);
    await judge().grade(groundedness);
    await judge().grade(qa());
    const [c, g, s] = server.requests.map((r) => body(r).response_format);
    expect(c).toEqual({
      type: "json_schema",
      json_schema: {
        name: "correctness_verdict",
        strict: true,
        schema: { type: "object", properties: { verdict: { type: "string", enum: ["correct", "incorrect"] }, reason: { type: "string", description: "one sentence" } }, required: ["verdict", "reason"], additionalProperties: false },
      },
    });
    expect(g?.json_schema).toMatchObject({ name: "groundedness_verdict", schema: { properties: { verdict: { enum: ["grounded", "partially_grounded", "ungrounded"] } } } });
    expect(s?.json_schema).toMatchObject({ name: "score", strict: true, schema: { required: ["score", "reasoning"], additionalProperties: false } });
    // The schema offers exactly the labels the prompt asks for.
    expect(body(server.requests[0]!).messages[0]!.content).toContain('{"verdict": "correct" | "incorrect", "reason": "<one sentence>"}');
    expect(body(server.requests[1]!).messages[0]!.content).toContain('{"verdict": "grounded" | "partially_grounded" | "ungrounded", "reason": "<one sentence>"}');
  });

  it("sends none with NAT's messages or with field discovery", async () => {
    server.enqueue({ content: "0.5" }, { content: '{"Level": {"reference_field": null, "score": 0}}' });
    await judge().grade(qa("nat"));
    await judge().grade({ kind: "field_discovery", messages: discoveryMessages("{reference_section}{actual_fields}", { reference_section: "S: 1", actual_fields: '{"Level": 2}' }), section: "s", actual: { Level: 2 }, candidates: { S: 1 } });
    expect(server.requests.map((r) => body(r).response_format)).toEqual([undefined, undefined]);
  });

  it("falls back at once on a 400 naming response_format, and remembers the endpoint", async () => {
    server.setResponder((r) =>
      body(r).response_format
        ? { status: 400, body: { error: { message: "Invalid parameter: 'response_format' of type 'json_schema' is not supported with this model.", type: "invalid_request_error" } } }
        : { content: /grounded/.test(body(r).messages[0]!.content) ? '{"verdict": "ungrounded", "reason": "r"}' : '{"verdict": "incorrect", "reason": "r"}' },
    );
    expect(await judge().grade(correctness)).toMatchObject({ outcome: "fail", score: 0 });
    expect(server.requests.map((r) => body(r).response_format !== undefined)).toEqual([true, false]);
    expect(sleeps).toEqual([]);
    // A new grader on the same endpoint (a worker's next run) asks without it from the start.
    expect(await judge().grade(groundedness)).toMatchObject({ outcome: "fail" });
    expect(server.requests.map((r) => body(r).response_format !== undefined)).toEqual([true, false, false]);
    // Another model on the same server is another endpoint: it is tried.
    await judge({ model: "judge-y" }).grade(correctness);
    expect(server.requests.slice(3).map((r) => body(r).response_format !== undefined)).toEqual([true, false]);
  });

  it("falls back on a 422 naming json_schema (pydantic-style servers)", async () => {
    server.enqueue({ status: 422, body: { detail: [{ loc: ["body", "response_format", "json_schema"], msg: "extra fields not permitted" }] } });
    server.setResponder(() => ({ content: '{"score": 0.5, "reasoning": "r"}' }));
    expect(await judge().grade(qa())).toMatchObject({ outcome: "scored", score: 0.5 });
    expect(server.requestCount).toBe(2);
    expect(memory.refuses(`${server.baseUrl}/chat/completions\u0000judge-x`)).toBe(true);
  });

  it("keeps a 400 about something else a failure, without a second request or a memory", async () => {
    server.enqueue({ status: 400, body: { error: { message: "bad model name" } } });
    expect(await judge().grade(correctness)).toMatchObject({ outcome: "unjudged", detail: expect.stringContaining("bad model name") });
    expect(server.requestCount).toBe(1);
    expect(memory.refuses(`${server.baseUrl}/chat/completions\u0000judge-x`)).toBe(false);
  });

  it("never sends it with AGENTBOARD_JUDGE_STRUCTURED_OUTPUT=off, and refuses other values at start-up", async () => {
    const env = { AGENTBOARD_JUDGE_BASE_URL: server.baseUrl, AGENTBOARD_JUDGE_MODEL: "m", AGENTBOARD_JUDGE_STRUCTURED_OUTPUT: "off" };
    const settings = resolveJudgeSettings({ flags: { judge: "openai" }, env });
    expect(settings).toMatchObject({ structuredOutput: "off" });
    await createGrader(settings, { transport: { endpointMemory: memory } }).grade(correctness);
    expect(body(server.requests[0]!).response_format).toBeUndefined();
    expect(() => resolveJudgeSettings({ flags: { judge: "openai" }, env: { ...env, AGENTBOARD_JUDGE_STRUCTURED_OUTPUT: "guided_json" } })).toThrow('AGENTBOARD_JUDGE_STRUCTURED_OUTPUT must be "json_schema" or "off", got "guided_json"');
  });
});
