/**
 * The transport every LLM judge shares: one OpenAI-compatible chat-completions call, with
 * bounded concurrency, a timeout, and exponential backoff with full jitter on 429/5xx,
 * timeouts, garbage bodies and replies the caller cannot read. HTTP (node:http, http-post.ts),
 * sleep, the clock and randomness are injected so faults can be tested quickly. What a reply means is
 * the caller's business: it passes a reader that throws `UnusableReplyError` (from the
 * grader port) to ask again.
 *
 * Every wait is bounded: a Retry-After is obeyed up to `maxRetryAfterMs`, backoff up to
 * `maxDelayMs`, one attempt up to `timeoutMs`, and the whole call (attempts and waits) up to
 * `deadlineMs`, after which the judge gives up (the grade is unjudged). An aborted `signal`
 * (a worker shutting down) ends the pending request or wait at once with `JudgeAbortedError`.
 *
 * Structured output: a call may name the reply's JSON schema (reply-format.ts); it is sent as
 * `response_format` unless the endpoint refused it before. An endpoint that answers 400/422
 * naming `response_format` (or `json_schema`, structured output, guided decoding) is asked the
 * same at once without it, within the same attempt, and remembered as refusing it.
 *
 * Ambiguity: a reader that throws `AmbiguousReplyError` (two different verdicts in one reply)
 * gets the request again at once with `ASK_AGAIN` added, at most `ambiguousRetries` times;
 * then the call gives up with `AmbiguousJudgeError`, and the grade is unjudged.
 */
import { httpPost, type HttpPost, type PostReply } from "./http-post";
import { createLimiter, type Limiter } from "./limit";
import { AmbiguousJudgeError, AmbiguousReplyError, JudgeAbortedError, JudgeUnavailableError, UnusableReplyError } from "./grader";
import { ASK_AGAIN, type ChatMessage } from "./prompts";
import type { ReplySchema } from "./reply-format";

/** Defaults of the limits below; each is a `ChatClientOptions` field (and an env var, see judge-settings.ts). */
export const CHAT_DEFAULTS = {
  timeoutMs: 60_000,
  maxAttempts: 5,
  baseDelayMs: 500,
  maxDelayMs: 20_000,
  maxRetryAfterMs: 60_000,
  deadlineMs: 180_000,
  ambiguousRetries: 1,
} as const;

/** `json_schema`: ask for structured output where a call names a schema; `off`: never. */
export type StructuredOutput = "json_schema" | "off";

/**
 * Which endpoints refused structured output. One per process by default: a worker builds a
 * grader per run, and what an endpoint accepts does not change from run to run, so only the
 * first run pays the refused request. Bounded: endpoints come from settings, not submissions,
 * but a long-lived process never grows it past `MAX_REMEMBERED_ENDPOINTS`.
 */
export interface EndpointMemory {
  refuses(endpoint: string): boolean;
  rememberRefusal(endpoint: string): void;
}

const MAX_REMEMBERED_ENDPOINTS = 1_000;

export function createEndpointMemory(): EndpointMemory {
  const refused = new Set<string>();
  return {
    refuses: (endpoint) => refused.has(endpoint),
    rememberRefusal(endpoint) {
      if (refused.size < MAX_REMEMBERED_ENDPOINTS) refused.add(endpoint);
    },
  };
}

const processEndpoints = createEndpointMemory();

/** A 4xx body saying the endpoint does not take the reply format we asked for. */
const REFUSES_FORMAT = /response_format|json_schema|structured output|guided/i;

export interface ChatClientOptions {
  baseUrl: string;
  model: string;
  apiKey?: string;
  concurrency?: number;
  /** One attempt's limit (default 60 s). */
  timeoutMs?: number;
  maxAttempts?: number;
  baseDelayMs?: number;
  /** Longest backoff between attempts (default 20 s). */
  maxDelayMs?: number;
  /** Longest wait a Retry-After header may ask for; a longer ask is cut to this (default 60 s). */
  maxRetryAfterMs?: number;
  /** The whole call, every attempt and wait, must end within this (default 180 s); then it gives up. */
  deadlineMs?: number;
  /** Aborts pending requests and waits (a worker shutting down): the call throws `JudgeAbortedError`. */
  signal?: AbortSignal;
  /** The HTTP POST (default node:http, http-post.ts); fetch fits, for tests that fake it. */
  fetch?: HttpPost;
  /** Waits `ms`; should end early (rejecting or not) when the signal aborts. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  random?: () => number;
  /** Milliseconds since the epoch (the deadline's clock). */
  now?: () => number;
  /** Sampling temperature (default 0). */
  temperature?: number;
  maxTokens?: number;
  /** Whether a call's reply schema is sent as `response_format` (default `json_schema`). */
  structuredOutput?: StructuredOutput;
  /** How often a reply with two different verdicts is asked again before giving up (default 1). */
  ambiguousRetries?: number;
  /** Which endpoints refused structured output (default: this process's). */
  endpointMemory?: EndpointMemory;
}

export interface CompleteOptions {
  /** The JSON schema the reply should follow, sent as `response_format` where the endpoint takes it. */
  schema?: ReplySchema;
}

export interface ChatClient {
  readonly model: string;
  /**
   * Sends the messages at temperature 0 and reads the reply's content. Retries what may
   * succeed on another attempt; throws `JudgeUnavailableError` once the attempts are used up or on a
   * 4xx other than 429, and `AmbiguousJudgeError` when replies stay ambiguous.
   */
  complete<T>(messages: ChatMessage[], read: (content: string) => T, options?: CompleteOptions): Promise<T>;
}

class RetryableError extends Error {
  constructor(message: string, readonly retryAfterMs?: number) {
    super(message);
  }
}

/** A sleep that ends early, rejecting, when the signal aborts. */
export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(new JudgeAbortedError("stopped while waiting to retry", 0));
    const onAbort = () => {
      clearTimeout(timer);
      reject(new JudgeAbortedError("stopped while waiting to retry", 0));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** Retry-After in milliseconds: delta-seconds or an HTTP date; undefined when absent or unreadable. */
function retryAfterMs(header: string | null, now: number): number | undefined {
  if (!header) return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return seconds > 0 ? seconds * 1000 : undefined;
  const at = Date.parse(header);
  return Number.isFinite(at) && at > now ? at - now : undefined;
}

export function createChatClient(opts: ChatClientOptions): ChatClient {
  const doFetch = opts.fetch ?? httpPost;
  const sleep = opts.sleep ?? abortableSleep;
  const random = opts.random ?? Math.random;
  const now = opts.now ?? Date.now;
  const signal = opts.signal;
  const maxAttempts = opts.maxAttempts ?? CHAT_DEFAULTS.maxAttempts;
  const baseDelay = opts.baseDelayMs ?? CHAT_DEFAULTS.baseDelayMs;
  const maxDelay = opts.maxDelayMs ?? CHAT_DEFAULTS.maxDelayMs;
  const maxRetryAfter = opts.maxRetryAfterMs ?? CHAT_DEFAULTS.maxRetryAfterMs;
  const timeoutMs = opts.timeoutMs ?? CHAT_DEFAULTS.timeoutMs;
  const deadlineMs = opts.deadlineMs ?? CHAT_DEFAULTS.deadlineMs;
  const limit: Limiter = createLimiter(opts.concurrency ?? 16);
  const url = `${opts.baseUrl.replace(/\/+$/, "")}/chat/completions`;
  const aborted = (what: string, attempts: number) => new JudgeAbortedError(`the judge was stopped ${what}`, attempts);
  const structured = (opts.structuredOutput ?? "json_schema") === "json_schema";
  const ambiguousRetries = opts.ambiguousRetries ?? CHAT_DEFAULTS.ambiguousRetries;
  const endpoints = opts.endpointMemory ?? processEndpoints;
  // The model is part of the endpoint: one server may take schemas for one model and not another.
  const endpoint = `${url}\u0000${opts.model}`;

  const bodyOf = (messages: ChatMessage[], schema: ReplySchema | undefined) =>
    JSON.stringify({
      model: opts.model,
      temperature: opts.temperature ?? 0,
      ...(opts.maxTokens ? { max_tokens: opts.maxTokens } : {}),
      messages,
      ...(schema ? { response_format: { type: "json_schema", json_schema: { name: schema.name, strict: true, schema: schema.schema } } } : {}),
    });

  async function post(body: string, attemptMs: number, timeout: AbortSignal): Promise<PostReply> {
    try {
      return await doFetch(url, {
        method: "POST",
        headers: { "content-type": "application/json", ...(opts.apiKey ? { authorization: `Bearer ${opts.apiKey}` } : {}) },
        body,
        signal: signal ? AbortSignal.any([timeout, signal]) : timeout,
      });
    } catch (err) {
      if (signal?.aborted) throw aborted("during a request", 0);
      const name = err instanceof Error ? err.name : "";
      throw new RetryableError(name === "TimeoutError" || name === "AbortError" ? `timed out after ${attemptMs} ms` : `network error: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  async function callOnce<T>(messages: ChatMessage[], schema: ReplySchema | undefined, read: (content: string) => T, attemptMs: number): Promise<T> {
    const timeout = AbortSignal.timeout(attemptMs);
    const asked = structured && schema && !endpoints.refuses(endpoint) ? schema : undefined;
    let res = await post(bodyOf(messages, asked), attemptMs, timeout);
    let refusal: string | undefined;
    if (asked && (res.status === 400 || res.status === 422)) {
      refusal = await res.text().catch(() => "");
      if (REFUSES_FORMAT.test(refusal)) {
        res = await post(bodyOf(messages, undefined), attemptMs, timeout);
        refusal = undefined;
        // Remembered only once the same request without the schema is answered: then the schema was the trouble.
        if (res.ok) endpoints.rememberRefusal(endpoint);
      }
    }
    if (refusal !== undefined) throw new JudgeUnavailableError(`HTTP ${res.status}: ${refusal.slice(0, 200)}`, 1);
    if (res.status === 429 || res.status >= 500) {
      const after = retryAfterMs(res.headers.get("retry-after"), now());
      await res.body?.cancel().catch(() => {});
      throw new RetryableError(`HTTP ${res.status}`, after);
    }
    if (!res.ok) {
      const text = await res.text().catch(() => "");
      throw new JudgeUnavailableError(`HTTP ${res.status}: ${text.slice(0, 200)}`, 1);
    }
    let content: unknown;
    try {
      const json = (await res.json()) as { choices?: { message?: { content?: unknown; reasoning_content?: unknown } }[] };
      const message = json.choices?.[0]?.message;
      content = message?.content;
      // Reasoning models may return their thinking beside the content: keep it as a think block, which readers strip.
      const thinking = message?.reasoning_content;
      if (typeof content === "string" && typeof thinking === "string" && thinking.trim() && !content.includes("</think>")) content = `<think>${thinking}</think>${content}`;
    } catch {
      if (signal?.aborted) throw aborted("during a request", 0);
      throw new RetryableError("response body is not JSON");
    }
    if (typeof content !== "string") throw new RetryableError("response has no choices[0].message.content");
    try {
      return read(content);
    } catch (err) {
      if (err instanceof AmbiguousReplyError) throw err;
      if (err instanceof UnusableReplyError) throw new RetryableError(err.message);
      throw err;
    }
  }

  return {
    model: opts.model,
    async complete(messages, read, options = {}) {
      let sent = messages;
      let ambiguous = 0;
      let lastError = "";
      // The deadline starts with the first attempt, not while waiting for a concurrency slot.
      let started: number | undefined;
      const left = () => (started === undefined ? deadlineMs : started + deadlineMs - now());
      const outOfTime = (attempts: number) => new JudgeUnavailableError(`judge gave up: its ${deadlineMs} ms deadline ran out after ${attempts} attempt(s)${lastError ? `; last error: ${lastError}` : ""}`, attempts);
      for (let attempt = 1; attempt <= maxAttempts; attempt++) {
        if (signal?.aborted) throw aborted("before it answered", attempt - 1);
        try {
          return await limit(() => {
            if (signal?.aborted) throw aborted("before it answered", attempt - 1);
            started ??= now();
            const budget = left();
            if (budget <= 0) throw outOfTime(attempt - 1);
            return callOnce(sent, options.schema, read, Math.min(timeoutMs, budget));
          });
        } catch (err) {
          if (err instanceof JudgeAbortedError) throw new JudgeAbortedError(err.message, attempt);
          if (err instanceof AmbiguousReplyError) {
            ambiguous++;
            lastError = err.message;
            if (ambiguous > ambiguousRetries) throw new AmbiguousJudgeError(`${err.message}, in ${ambiguous} repl${ambiguous === 1 ? "y" : "ies"} (asked again ${ambiguous - 1} time(s))`, attempt);
            if (attempt === maxAttempts) break;
            // The endpoint answered: ask again at once, with one more chance to give one verdict.
            sent = [...messages, ASK_AGAIN];
            continue;
          }
          if (!(err instanceof RetryableError)) throw err;
          lastError = err.message;
          if (attempt === maxAttempts) break;
          const backoff = Math.min(maxDelay, baseDelay * 2 ** (attempt - 1));
          const wait = Math.max(Math.min(err.retryAfterMs ?? 0, maxRetryAfter), random() * backoff);
          if (wait >= left()) throw outOfTime(attempt);
          try {
            await sleep(wait, signal);
          } catch (e) {
            if (signal?.aborted) throw aborted("while waiting to retry", attempt);
            throw e;
          }
          if (signal?.aborted) throw aborted("while waiting to retry", attempt);
        }
      }
      throw new JudgeUnavailableError(`judge failed after ${maxAttempts} attempts: ${lastError}`, maxAttempts);
    },
  };
}
