/**
 * The transport every LLM judge shares: one OpenAI-compatible chat-completions call, with
 * bounded concurrency, a timeout, and exponential backoff with full jitter on 429/5xx,
 * timeouts, garbage bodies and replies the caller cannot read. HTTP (`fetch`), sleep, the
 * clock and randomness are injected so faults can be tested quickly. What a reply means is
 * the caller's business: it passes a reader that throws `UnusableReplyError` (from the
 * grader port) to ask again.
 *
 * Every wait is bounded: a Retry-After is obeyed up to `maxRetryAfterMs`, backoff up to
 * `maxDelayMs`, one attempt up to `timeoutMs`, and the whole call (attempts and waits) up to
 * `deadlineMs`, after which the judge gives up (the grade is unjudged). An aborted `signal`
 * (a worker shutting down) ends the pending request or wait at once with `JudgeAbortedError`.
 */
import { createLimiter, type Limiter } from "../limit";
import { JudgeAbortedError, JudgeUnavailableError, UnusableReplyError } from "./grader";
import type { ChatMessage } from "./prompts";

/** Defaults of the limits below; each is a `ChatClientOptions` field (and an env var, see judge-settings.ts). */
export const CHAT_DEFAULTS = {
  timeoutMs: 60_000,
  maxAttempts: 5,
  baseDelayMs: 500,
  maxDelayMs: 20_000,
  maxRetryAfterMs: 60_000,
  deadlineMs: 180_000,
} as const;

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
  fetch?: typeof fetch;
  /** Waits `ms`; should end early (rejecting or not) when the signal aborts. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  random?: () => number;
  /** Milliseconds since the epoch (the deadline's clock). */
  now?: () => number;
  /** Sampling temperature (default 0). */
  temperature?: number;
  maxTokens?: number;
}

export interface ChatClient {
  readonly model: string;
  /**
   * Sends the messages at temperature 0 and reads the reply's content. Retries what may
   * succeed on another attempt; throws `JudgeUnavailableError` once the attempts are used up or on a
   * 4xx other than 429.
   */
  complete<T>(messages: ChatMessage[], read: (content: string) => T): Promise<T>;
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
  const doFetch = opts.fetch ?? fetch;
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

  async function callOnce<T>(body: string, read: (content: string) => T, attemptMs: number): Promise<T> {
    let res: Response;
    const timeout = AbortSignal.timeout(attemptMs);
    try {
      res = await doFetch(url, {
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
      if (err instanceof UnusableReplyError) throw new RetryableError(err.message);
      throw err;
    }
  }

  return {
    model: opts.model,
    async complete(messages, read) {
      const body = JSON.stringify({ model: opts.model, temperature: opts.temperature ?? 0, ...(opts.maxTokens ? { max_tokens: opts.maxTokens } : {}), messages });
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
            return callOnce(body, read, Math.min(timeoutMs, budget));
          });
        } catch (err) {
          if (err instanceof JudgeAbortedError) throw new JudgeAbortedError(err.message, attempt);
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
