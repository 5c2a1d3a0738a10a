/**
 * A judge on any OpenAI-compatible chat-completions endpoint. Temperature 0, our prompts,
 * robust parsing, exponential backoff with full jitter on 429/5xx/timeouts/unparseable
 * replies, bounded concurrency (all in `chat-client.ts`), and a verdict cache with
 * in-flight de-duplication. HTTP (`fetch`), sleep and randomness are injected so faults
 * can be tested quickly.
 */
import { createChatClient, createSharedCompute, UnusableReplyError, type ChatClientOptions } from "./chat-client";
import type { Judge, JudgeDecision } from "./judge";
import { parseVerdict, VerdictParseError } from "./parse-verdict";
import { buildPrompt } from "./prompts";
import { cacheKey, sha256, type CachedDecision, type VerdictCache } from "./verdict-cache";

export interface OpenAiJudgeOptions extends ChatClientOptions {
  cache?: VerdictCache;
}

export function createOpenAiJudge(opts: OpenAiJudgeOptions): Judge {
  const id = `openai:${opts.model}`;
  const client = createChatClient(opts);
  const shared = createSharedCompute<CachedDecision>();

  return {
    id,
    async decide(req) {
      const messages = buildPrompt(req);
      const promptHash = sha256(JSON.stringify(messages));
      const key = cacheKey("openai", opts.model, promptHash);
      const { value, cacheHit } = await shared(
        key,
        async () => opts.cache?.get(key),
        async () => {
          const d = await client.complete(messages, (content) => {
            try {
              const v = parseVerdict(req.task, content);
              return { pass: v.pass, score: v.pass ? 1 : 0, explanation: v.reason || `verdict: ${v.label}` };
            } catch (err) {
              if (err instanceof VerdictParseError) throw new UnusableReplyError(err.message);
              throw err;
            }
          });
          const decision: CachedDecision = { ...d, promptHash };
          await opts.cache?.set(key, decision);
          return decision;
        },
      );
      const decision: JudgeDecision = { ...value, cacheHit };
      return decision;
    },
  };
}
