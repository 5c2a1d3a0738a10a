/** Builds the judge the CLI asked for: flags, then environment, then benchmark.yaml defaults. */
import type { JudgeSpec } from "../../lib/benchmark/spec";
import type { Judge } from "../../lib/scoring/judges/judge";
import { createOpenAiJudge } from "../../lib/scoring/judges/openai-judge";
import { createRulesJudge } from "../../lib/scoring/judges/rules-judge";
import type { VerdictCache } from "../../lib/scoring/judges/verdict-cache";
import { usageError } from "./cli-errors";

export interface JudgeFlags {
  judge?: string;
  judgeModel?: string;
  judgeBaseUrl?: string;
  judgeConcurrency?: string;
}

export function judgeFromOptions(flags: JudgeFlags, defaults: JudgeSpec, env: NodeJS.ProcessEnv, cache?: VerdictCache): Judge {
  const kind = flags.judge ?? defaults.kind;
  if (kind === "rules") return createRulesJudge();
  if (kind !== "openai") throw usageError(`--judge must be "rules" or "openai", got "${kind}"`);
  const baseUrl = flags.judgeBaseUrl ?? env.AGENTBOARD_JUDGE_BASE_URL ?? env.OPENAI_BASE_URL ?? defaults.baseUrl;
  const model = flags.judgeModel ?? env.AGENTBOARD_JUDGE_MODEL ?? defaults.model;
  if (!baseUrl) throw usageError("the openai judge needs a base URL: --judge-base-url, AGENTBOARD_JUDGE_BASE_URL or OPENAI_BASE_URL");
  if (!model) throw usageError("the openai judge needs a model: --judge-model or AGENTBOARD_JUDGE_MODEL");
  const concurrency = Number(flags.judgeConcurrency ?? env.AGENTBOARD_JUDGE_CONCURRENCY ?? defaults.concurrency ?? 16);
  if (!Number.isInteger(concurrency) || concurrency < 1) throw usageError(`--judge-concurrency must be a positive integer`);
  return createOpenAiJudge({ baseUrl, model, apiKey: env.AGENTBOARD_JUDGE_API_KEY ?? env.OPENAI_API_KEY, concurrency, ...(cache ? { cache } : {}) });
}
