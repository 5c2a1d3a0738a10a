/**
 * The grader on any OpenAI-compatible chat-completions endpoint: our prompts at
 * temperature 0 through the shared chat client (bounded concurrency, backoff with jitter on
 * 429/5xx/timeouts/unreadable replies), replies read strictly, and the grade cache with
 * in-flight de-duplication. A judge that gives up (or is stopped) is an `unjudged` grade. A
 * reply is read for the judge's own verdict, never one it quoted from the prompt's data
 * blocks (see `judge-reply.ts`). What the model
 * says about a comparison with the reference is private detail; the public reason names
 * only the verdict or the score.
 */
import { createChatClient, type ChatClient, type ChatClientOptions } from "./chat-client";
import { cacheKey, createCachedGrading, sha256, type CachedGrade, type GradeCache } from "./grade-cache";
import { dataContextOf } from "./data-blocks";
import { JudgeAbortedError, JudgeUnavailableError, passFail, scored, unjudged, type Grade, type GradeRequest, type Grader } from "./grader";
import { thinkingTag } from "./thinking";
import { parseDiscoveryReply, parseNatFloat, parseNatScore, parseScoreReply } from "./parse-score";
import { parseVerdict } from "./parse-verdict";
import { buildPrompt, type ChatMessage } from "./prompts";

export interface OpenAiGraderOptions extends ChatClientOptions {
  cache?: GradeCache;
  /** A client to share (its concurrency limit is then shared too); built from the options otherwise. */
  client?: ChatClient;
}

export function createOpenAiGrader(opts: OpenAiGraderOptions): Grader {
  const id = `openai:${opts.model}`;
  const client = opts.client ?? createChatClient(opts);
  const cached = createCachedGrading(opts.cache);

  const ask = (kind: GradeRequest["kind"], messages: ChatMessage[], read: (content: string) => Omit<CachedGrade, "promptHash">): Promise<Grade> => {
    const promptHash = sha256(JSON.stringify(messages));
    return cached(cacheKey(`grade/${kind}`, opts.model, promptHash), async () => {
      try {
        return { ...(await client.complete(messages, read)), promptHash };
      } catch (err) {
        if (err instanceof JudgeAbortedError) return { ...unjudged(`the ${id} judge was stopped before it answered`, err.message), promptHash };
        if (err instanceof JudgeUnavailableError) return { ...unjudged(`the ${id} judge gave no usable reply`, err.message), promptHash };
        throw err;
      }
    });
  };

  return {
    id,
    readsPrompts: true,
    async grade(req) {
      switch (req.kind) {
        case "correctness":
        case "groundedness": {
          const messages = buildPrompt(req);
          const data = dataContextOf(messages);
          return ask(req.kind, messages, (content) => {
            const v = parseVerdict(req.kind, content, data);
            const said = v.reason || `verdict: ${v.label}`;
            // A correctness judge compares with the reference: its words stay private.
            if (req.kind === "correctness") return strip(passFail(v.pass, `judged ${v.pass ? "correct" : "incorrect"} by ${id}`, said));
            return strip(passFail(v.pass, said));
          });
        }
        case "qa":
        case "trajectory":
        case "report_field": {
          const data = dataContextOf(req.messages);
          const nat = req.style === "nat";
          return ask(req.kind, withTag(req.messages, req.thinking, opts.model), (content) => {
            const r = nat ? (req.kind === "report_field" ? parseNatFloat(content) : parseNatScore(content)) : parseScoreReply(content, data);
            return strip(scored(r.score, `graded ${r.score.toFixed(2)} by ${id}`, r.reasoning || null));
          });
        }
        case "field_discovery": {
          const fields = Object.keys(req.actual);
          const candidates = Object.keys(req.candidates);
          const data = dataContextOf(req.messages);
          return ask(req.kind, withTag(req.messages, req.thinking, opts.model), (content) => {
            const matches = parseDiscoveryReply(content, fields, candidates, data, req.style === "nat");
            const mean = matches.length ? matches.reduce((s, m) => s + m.score, 0) / matches.length : 0;
            return { ...strip(scored(mean, `${matches.length} unlisted field(s) mapped by ${id}`)), matches };
          });
        }
      }
    },
  };
}

/** The model's thinking switch first, when the request says whether to think and the model has one. */
function withTag(messages: ChatMessage[], thinking: boolean | undefined, model: string): ChatMessage[] {
  const tag = thinking === undefined ? null : thinkingTag(model, thinking);
  return tag ? [{ role: "system", content: tag }, ...messages] : messages;
}

function strip({ cacheHit: _c, promptHash: _p, ...rest }: Grade): Omit<CachedGrade, "promptHash"> {
  return rest;
}
