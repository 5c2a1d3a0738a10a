/**
 * The grader on any OpenAI-compatible chat-completions endpoint: our prompts at
 * temperature 0 through the shared chat client (bounded concurrency, backoff with jitter on
 * 429/5xx/timeouts/unreadable replies), replies read strictly, and the grade cache with
 * in-flight de-duplication. A judge that gives up (or is stopped) is an `unjudged` grade. A
 * reply is read for the judge's own verdict, never one it quoted from the prompt's data
 * blocks (see `judge-reply.ts`); a reply with two different verdicts is asked again, then
 * unjudged. Where the endpoint takes it, the reply is held to a JSON schema
 * (reply-format.ts). What the model says about a comparison with the reference is private
 * detail; the public reason names only the verdict or the score.
 */
import { createChatClient, type ChatClient, type ChatClientOptions } from "./chat-client";
import { createCachedGrading, gradeKey, type CachedGrade, type GradeCache } from "./grade-cache";
import { dataContextOf } from "./data-blocks";
import { AmbiguousJudgeError, JudgeAbortedError, JudgeUnavailableError, passFail, scored, unjudged, type Grade, type GradeRequest, type Grader } from "./grader";
import { parseDiscoveryReply, parseNatFloat, parseNatScore, parseScoreReply } from "./parse-score";
import { parseVerdict } from "./parse-verdict";
import { gradePrompt, promptHashOf } from "./grade-prompt";
import type { ChatMessage } from "./prompts";
import { replySchemaOf } from "./reply-format";

export interface OpenAiGraderOptions extends ChatClientOptions {
  cache?: GradeCache;
  /** A client to share (its concurrency limit is then shared too); built from the options otherwise. */
  client?: ChatClient;
}

export function createOpenAiGrader(opts: OpenAiGraderOptions): Grader {
  const id = `openai:${opts.model}`;
  const client = opts.client ?? createChatClient(opts);
  const cached = createCachedGrading(opts.cache);

  const ask = (req: GradeRequest, messages: ChatMessage[], read: (content: string) => Omit<CachedGrade, "promptHash">): Promise<Grade> => {
    // The reply schema is not part of the prompt hash: it asks for the shape the prompt already asks for.
    const promptHash = promptHashOf(messages);
    const schema = replySchemaOf(req);
    return cached(gradeKey(req.kind, opts.model, promptHash), async () => {
      try {
        return { ...(await client.complete(messages, read, schema ? { schema } : {})), promptHash };
      } catch (err) {
        if (err instanceof JudgeAbortedError) return { ...unjudged(`the ${id} judge was stopped before it answered`, err.message), promptHash };
        if (err instanceof AmbiguousJudgeError) return { ...unjudged(`the ${id} judge's replies held two different ${statedIn(req)}: could not judge`, err.message), promptHash };
        if (err instanceof JudgeUnavailableError) return { ...unjudged(`the ${id} judge gave no usable reply`, err.message), promptHash };
        throw err;
      }
    });
  };

  return {
    id,
    readsPrompts: true,
    model: opts.model,
    async grade(req) {
      const messages = gradePrompt(req, opts.model);
      switch (req.kind) {
        case "correctness":
        case "groundedness": {
          const data = dataContextOf(messages);
          return ask(req, messages, (content) => {
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
          return ask(req, messages, (content) => {
            const r = nat ? (req.kind === "report_field" ? parseNatFloat(content) : parseNatScore(content)) : parseScoreReply(content, data);
            return strip(scored(r.score, `graded ${r.score.toFixed(2)} by ${id}`, r.reasoning || null));
          });
        }
        case "field_discovery": {
          const fields = Object.keys(req.actual);
          const candidates = Object.keys(req.candidates);
          const data = dataContextOf(req.messages);
          return ask(req, messages, (content) => {
            const matches = parseDiscoveryReply(content, fields, candidates, data, req.style === "nat");
            const mean = matches.length ? matches.reduce((s, m) => s + m.score, 0) / matches.length : 0;
            return { ...strip(scored(mean, `${matches.length} unlisted field(s) mapped by ${id}`)), matches };
          });
        }
      }
    },
  };
}

/** What a request's reply states, for the reason an ambiguous one gives. */
function statedIn(req: GradeRequest): string {
  return req.kind === "correctness" || req.kind === "groundedness" ? "verdicts" : req.kind === "field_discovery" ? "field mappings" : "scores";
}

function strip({ cacheHit: _c, promptHash: _p, ...rest }: Grade): Omit<CachedGrade, "promptHash"> {
  return rest;
}
