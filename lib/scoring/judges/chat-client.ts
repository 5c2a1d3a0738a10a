/**
 * The transport every LLM judge shares: one OpenAI-compatible chat-completions call, with
 * bounded concurrency, a timeout, and exponential backoff with full jitter on 429/5xx,
 * timeouts, garbage bodies and replies the caller cannot read. HTTP (`fetch`), sleep and
 * randomness are injected so faults can be tested quickly. What a reply means is the
 * caller's business: it passes a reader that throws `UnusableReplyError` (from the grader
 * port) to ask again.
 */
import { createLimiter, type Limiter } from "../limit";
import { JudgeUnavailableError, UnusableReplyError } from "./grader";
import type { ChatMessage } from "./prompts";

export interface ChatClientOptions {
  baseUrl: string;
  model: string;
  apiKey?: string;
  concurrency?: number;
  timeoutMs?: number;
  maxAttempts?: number;
  baseDelayMs?: number;
  maxDelayMs?: number;
  fetch?: typeof fetch;
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
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

const defaultSleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export function createChatClient(opts: ChatClientOptions): ChatClient {
  const doFetch = opts.fetch ?? fetch;
  const sleep = opts.sleep ?? defaultSleep;
  const random = opts.random ?? Math.random;
  const maxAttempts = opts.maxAttempts ?? 5;
  const baseDelay = opts.baseDelayMs ?? 500;
  const maxDelay = opts.maxDelayMs ?? 20_000;
  const timeoutMs = opts.timeoutMs ?? 60_000;
  const limit: Limiter = createLimiter(opts.concurrency ?? 16);
  const url = `${opts.baseUrl.replace(/\/+$/, "")}/chat/completions`;

  async function callOnce<T>(body: string, read: (content: string) => T): Promise<T> {
    let res: Response;
    try {
      res = await doFetch(url, {
        method: "POST",
        headers: { "content-type": "application/json", ...(opts.apiKey ? { authorization: `Bearer ${opts.apiKey}` } : {}) },
        body,
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (err) {
      const name = err instanceof Error ? err.name : "";
      throw new RetryableError(name === "TimeoutError" || name === "AbortError" ? `timed out after ${timeoutMs} ms` : `network error: ${err instanceof Error ? err.message : String(err)}`);
    }
    if (res.status === 429 || res.status >= 500) {
      const after = Number(res.headers.get("retry-after"));
      await res.body?.cancel();
      throw new RetryableError(`HTTP ${res.status}`, Number.isFinite(after) && after > 0 ? after * 1000 : undefined);
    }
    if (!res.ok) {
      const text = await res.text().catch(() => "");
      throw new JudgeUnavailableError(`HTTP ${res.status}: ${text.slice(0, 200)}`, 1);
    }
    let content: unknown;
    try {
      const json = (await res.json()) as { choices?: { message?: { content?: unknown } }[] };
      content = json.choices?.[0]?.message?.content;
    } catch {
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
      const body = JSON.stringify({ model: opts.model, temperature: 0, messages });
      let lastError = "";
      for (let attempt = 1; attempt <= maxAttempts; attempt++) {
        try {
          return await limit(() => callOnce(body, read));
        } catch (err) {
          if (!(err instanceof RetryableError)) throw err;
          lastError = err.message;
          if (attempt === maxAttempts) break;
          const backoff = Math.min(maxDelay, baseDelay * 2 ** (attempt - 1));
          await sleep(Math.max(err.retryAfterMs ?? 0, random() * backoff));
        }
      }
      throw new JudgeUnavailableError(`judge failed after ${maxAttempts} attempts: ${lastError}`, maxAttempts);
    },
  };
}
