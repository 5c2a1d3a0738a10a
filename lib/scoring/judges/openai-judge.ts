/**
 * A judge on any OpenAI-compatible chat-completions endpoint. Temperature 0, our prompts,
 * robust parsing, exponential backoff with full jitter on 429/5xx/timeouts/unparseable
 * replies, bounded concurrency, a verdict cache with in-flight de-duplication.
 * HTTP (`fetch`), sleep and randomness are injected so faults can be tested quickly.
 */
import { createLimiter, type Limiter } from "../limit";
import { JudgeError, type Judge, type JudgeDecision, type JudgeRequest } from "./judge";
import { parseVerdict, VerdictParseError } from "./parse-verdict";
import { buildPrompt } from "./prompts";
import { cacheKey, sha256, type VerdictCache } from "./verdict-cache";

export interface OpenAiJudgeOptions {
  baseUrl: string;
  model: string;
  apiKey?: string;
  concurrency?: number;
  timeoutMs?: number;
  maxAttempts?: number;
  baseDelayMs?: number;
  maxDelayMs?: number;
  cache?: VerdictCache;
  fetch?: typeof fetch;
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
}

class RetryableError extends Error {
  constructor(message: string, readonly retryAfterMs?: number) {
    super(message);
  }
}

const defaultSleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export function createOpenAiJudge(opts: OpenAiJudgeOptions): Judge {
  const id = `openai:${opts.model}`;
  const doFetch = opts.fetch ?? fetch;
  const sleep = opts.sleep ?? defaultSleep;
  const random = opts.random ?? Math.random;
  const maxAttempts = opts.maxAttempts ?? 5;
  const baseDelay = opts.baseDelayMs ?? 500;
  const maxDelay = opts.maxDelayMs ?? 20_000;
  const timeoutMs = opts.timeoutMs ?? 60_000;
  const limit: Limiter = createLimiter(opts.concurrency ?? 16);
  const url = `${opts.baseUrl.replace(/\/+$/, "")}/chat/completions`;
  const inFlight = new Map<string, Promise<JudgeDecision>>();

  async function callOnce(body: string, task: JudgeRequest["task"]): Promise<Omit<JudgeDecision, "promptHash" | "cacheHit">> {
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
      throw new JudgeError(`HTTP ${res.status}: ${text.slice(0, 200)}`, 1);
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
      const v = parseVerdict(task, content);
      return { pass: v.pass, score: v.pass ? 1 : 0, explanation: v.reason || `verdict: ${v.label}` };
    } catch (err) {
      if (err instanceof VerdictParseError) throw new RetryableError(err.message);
      throw err;
    }
  }

  async function callWithRetries(body: string, task: JudgeRequest["task"]) {
    let lastError = "";
    for (let attempt = 1; attempt <= maxAttempts; attempt++) {
      try {
        return await limit(() => callOnce(body, task));
      } catch (err) {
        if (!(err instanceof RetryableError)) throw err;
        lastError = err.message;
        if (attempt === maxAttempts) break;
        const backoff = Math.min(maxDelay, baseDelay * 2 ** (attempt - 1));
        await sleep(Math.max(err.retryAfterMs ?? 0, random() * backoff));
      }
    }
    throw new JudgeError(`judge failed after ${maxAttempts} attempts: ${lastError}`, maxAttempts);
  }

  return {
    id,
    async decide(req) {
      const messages = buildPrompt(req);
      const promptHash = sha256(JSON.stringify(messages));
      const key = cacheKey("openai", opts.model, promptHash);
      const cached = await opts.cache?.get(key);
      if (cached) return { ...cached, cacheHit: true };
      const pending = inFlight.get(key);
      if (pending) return { ...(await pending), cacheHit: true };
      const body = JSON.stringify({ model: opts.model, temperature: 0, messages });
      const p = (async () => {
        const d = await callWithRetries(body, req.task);
        const decision: JudgeDecision = { ...d, promptHash, cacheHit: false };
        await opts.cache?.set(key, { pass: decision.pass, score: decision.score, explanation: decision.explanation, promptHash });
        return decision;
      })();
      inFlight.set(key, p);
      try {
        return await p;
      } finally {
        inFlight.delete(key);
      }
    },
  };
}
