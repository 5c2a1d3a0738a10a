/**
 * The graded judge on an OpenAI-compatible endpoint: the evaluators' prompts through the
 * shared chat client (retries, backoff, bounded concurrency), scores read strictly, and the
 * verdict cache with in-flight de-duplication. A discovery mapping is cached as its JSON in
 * the decision's explanation, so the database cache serves it too.
 */
import { createChatClient, createSharedCompute, UnusableReplyError, type ChatClient, type ChatClientOptions } from "./chat-client";
import { parseDiscoveryReply, parseScoreReply, ScoreParseError } from "./parse-score";
import type { ChatMessage } from "./prompts";
import type { FieldMatch, ScoreJudge } from "./score-judge";
import { cacheKey, sha256, type CachedDecision, type VerdictCache } from "./verdict-cache";

export interface OpenAiScoreJudgeOptions extends ChatClientOptions {
  cache?: VerdictCache;
  /** A client to share (its concurrency limit is then shared too); built from the options otherwise. */
  client?: ChatClient;
}

function readable<T>(parse: (content: string) => T): (content: string) => T {
  return (content) => {
    try {
      return parse(content);
    } catch (err) {
      if (err instanceof ScoreParseError) throw new UnusableReplyError(err.message);
      throw err;
    }
  };
}

export function createOpenAiScoreJudge(opts: OpenAiScoreJudgeOptions): ScoreJudge {
  const client = opts.client ?? createChatClient(opts);
  const shared = createSharedCompute<CachedDecision>();

  const cached = async (namespace: string, messages: ChatMessage[], compute: () => Promise<Omit<CachedDecision, "promptHash">>) => {
    const promptHash = sha256(JSON.stringify(messages));
    const key = cacheKey(namespace, opts.model, promptHash);
    const { value, cacheHit } = await shared(
      key,
      async () => opts.cache?.get(key),
      async () => {
        const decision: CachedDecision = { ...(await compute()), promptHash };
        await opts.cache?.set(key, decision);
        return decision;
      },
    );
    return { decision: value, promptHash, cacheHit };
  };

  return {
    id: `openai:${opts.model}`,
    readsPrompts: true,
    async grade(req) {
      const { decision, promptHash, cacheHit } = await cached("openai-score", req.messages, async () => {
        const r = await client.complete(req.messages, readable(parseScoreReply));
        return { pass: r.score >= 0.5, score: r.score, explanation: r.reasoning };
      });
      return { score: decision.score, reasoning: decision.explanation, promptHash, cacheHit };
    },
    async discoverFields(req) {
      const fields = Object.keys(req.actual);
      const candidates = Object.keys(req.candidates);
      const { decision, promptHash, cacheHit } = await cached("openai-discovery", req.messages, async () => {
        const matches = await client.complete(req.messages, readable((c) => parseDiscoveryReply(c, fields, candidates)));
        const mean = matches.length ? matches.reduce((s, m) => s + m.score, 0) / matches.length : 0;
        return { pass: mean >= 0.5, score: mean, explanation: JSON.stringify(matches) };
      });
      return { matches: JSON.parse(decision.explanation) as FieldMatch[], promptHash, cacheHit };
    },
  };
}
