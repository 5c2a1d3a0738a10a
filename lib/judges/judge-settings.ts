/**
 * The one judge factory. Every command that judges (`score`, `submit`, the worker, `eval`)
 * resolves its judge here with one precedence, per setting:
 *
 *   flags  >  environment  >  benchmark.yaml (or eval.yaml)  >  defaults
 *
 * Environment: AGENTBOARD_JUDGE (kind), AGENTBOARD_JUDGE_MODEL, AGENTBOARD_JUDGE_BASE_URL
 * (else OPENAI_BASE_URL), AGENTBOARD_JUDGE_CONCURRENCY, and the key in
 * AGENTBOARD_JUDGE_API_KEY (else OPENAI_API_KEY, or the variable a config names). The
 * environment is passed in as a plain record: the engine reads none itself.
 *
 * `verdicts` is no model: it answers from a run's exported verdicts (`--judge-verdicts <file>`,
 * or the export itself passed to `createGrader`), to re-score a run without an LLM (`verify`).
 *
 * The judge's waits are bounded (chat-client.ts, CHAT_DEFAULTS), and the environment may
 * change the bounds, in milliseconds: AGENTBOARD_JUDGE_MAX_RETRY_AFTER_MS (the longest
 * Retry-After obeyed, 60 s), AGENTBOARD_JUDGE_MAX_DELAY_MS (the longest backoff, 20 s),
 * AGENTBOARD_JUDGE_DEADLINE_MS (one grade, all attempts and waits, 180 s), and
 * AGENTBOARD_JUDGE_TIMEOUT_MS (one attempt, 60 s).
 *
 * A reply that holds two different verdicts is asked again AGENTBOARD_JUDGE_AMBIGUOUS_RETRIES
 * times (0 to 5, default 1), then the item is unjudged. AGENTBOARD_JUDGE_STRUCTURED_OUTPUT
 * says whether replies are held to a JSON schema where the endpoint takes one (`json_schema`,
 * the default) or never (`off`).
 */
import { CHAT_DEFAULTS, type ChatClient, type ChatClientOptions, type StructuredOutput } from "./chat-client";
import type { GradeCache } from "./grade-cache";
import type { Grader } from "./grader";
import { DETERMINISTIC_JUDGES, isDeterministicJudge, type JudgeKind } from "./judge-kind";
import { createLiteralGrader } from "./literal-grader";
import { createOpenAiGrader } from "./openai-grader";
import { createPanelGrader, type DecisionLookup, type PanelRule } from "./panel-grader";
import { createRulesGrader } from "./rules-grader";
import { createVerdictsGrader } from "./verdicts-grader";
import { readVerdictFile, type VerdictExport } from "./verdict-file";

export { DETERMINISTIC_JUDGES, isDeterministicJudge, type JudgeKind };
/** Whether a resolved judge asks no model at all: a deterministic judge, or a panel of them. */
export const asksNoModel = (s: Pick<JudgeSettings, "kind" | "panel">): boolean => isDeterministicJudge(s.kind) || (s.kind === "panel" && !!s.panel && s.panel.members.every(asksNoModel));

/** A panel member as a config names it: its kind, model and base URL are its own. */
export type PanelMemberDefaults = Pick<JudgeDefaults, "kind" | "model" | "baseUrl" | "concurrency">;

/** What a config file says about its judge (benchmark.yaml `judge`, an eval.yaml evaluator's `judge`). */
export interface JudgeDefaults {
  kind?: JudgeKind;
  model?: string;
  baseUrl?: string;
  concurrency?: number;
  /** The environment variable that holds the API key (eval.yaml). */
  apiKeyEnv?: string;
  timeoutMs?: number;
  maxAttempts?: number;
  temperature?: number;
  maxTokens?: number;
  /** benchmark.yaml `judge.panel`: two or three judges and the rule their grades follow (panel-grader.ts). */
  panel?: { rule: PanelRule; judges: PanelMemberDefaults[] };
}

export interface JudgeFlags {
  judge?: string;
  judgeModel?: string;
  judgeBaseUrl?: string;
  judgeConcurrency?: string | number;
  /** The verdict file the `verdicts` judge answers from. */
  judgeVerdicts?: string;
}

export interface JudgeSources {
  flags?: JudgeFlags;
  env?: Readonly<Record<string, string | undefined>>;
  config?: JudgeDefaults;
}

/** A resolved judge. Never persisted with its key: `recordedJudge` drops it. */
export interface JudgeSettings {
  kind: JudgeKind;
  model?: string;
  baseUrl?: string;
  apiKey?: string;
  concurrency: number;
  timeoutMs?: number;
  maxAttempts?: number;
  maxRetryAfterMs?: number;
  maxDelayMs?: number;
  deadlineMs?: number;
  temperature?: number;
  maxTokens?: number;
  /** Replies held to a JSON schema where the endpoint takes one (default `json_schema`). */
  structuredOutput?: StructuredOutput;
  /** How often an ambiguous reply is asked again (default 1). */
  ambiguousRetries?: number;
  /** The `verdicts` judge's file. */
  verdictsFile?: string;
  /** The `panel` judge's rule and members, each resolved like a judge of its own. */
  panel?: { rule: PanelRule; members: JudgeSettings[] };
}

/** What a run records about its judge: everything but the key. */
export interface RecordedJudge {
  id: string;
  kind: JudgeKind;
  model: string | null;
  baseUrl: string | null;
  concurrency: number;
  /** A panel's rule and members. */
  panel?: { rule: PanelRule; members: RecordedJudge[] };
}

export const DEFAULT_JUDGE_CONCURRENCY = 16;

export class JudgeSettingsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "JudgeSettingsError";
  }
}

const first = <T>(...values: (T | undefined | null | "")[]): T | undefined => values.find((v): v is T => v !== undefined && v !== null && v !== "");

export function resolveJudgeSettings({ flags = {}, env = {}, config = {} }: JudgeSources): JudgeSettings {
  // A config's panel is its judge, unless a flag or the environment names another.
  const kind = first(flags.judge, env.AGENTBOARD_JUDGE, config.panel ? "panel" : config.kind) ?? "rules";
  if (kind !== "rules" && kind !== "literal" && kind !== "openai" && kind !== "verdicts" && kind !== "panel") throw new JudgeSettingsError(`the judge must be "rules", "literal", "openai", "verdicts" or "panel", got "${kind}" (--judge, AGENTBOARD_JUDGE or the config's judge.kind)`);
  const rawConcurrency = first<string | number>(flags.judgeConcurrency, env.AGENTBOARD_JUDGE_CONCURRENCY, config.concurrency) ?? DEFAULT_JUDGE_CONCURRENCY;
  const concurrency = Number(rawConcurrency);
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 256) {
    throw new JudgeSettingsError(`the judge's concurrency must be an integer from 1 to 256, got "${rawConcurrency}" (--judge-concurrency, AGENTBOARD_JUDGE_CONCURRENCY or judge.concurrency)`);
  }
  if (kind === "rules" || kind === "literal") return { kind, concurrency };
  if (kind === "panel") return { kind, concurrency, panel: resolvePanel(config.panel, env) };
  if (kind === "verdicts") {
    if (!flags.judgeVerdicts) throw new JudgeSettingsError("the verdicts judge needs the exported verdicts to answer from: --judge-verdicts <file>");
    return { kind, concurrency, verdictsFile: flags.judgeVerdicts };
  }
  const baseUrl = first(flags.judgeBaseUrl, env.AGENTBOARD_JUDGE_BASE_URL, env.OPENAI_BASE_URL, config.baseUrl);
  const model = first(flags.judgeModel, env.AGENTBOARD_JUDGE_MODEL, config.model);
  if (!baseUrl) throw new JudgeSettingsError("the openai judge needs a base URL: --judge-base-url, AGENTBOARD_JUDGE_BASE_URL, OPENAI_BASE_URL or the config's judge.baseUrl");
  if (!/^https?:\/\//i.test(baseUrl)) throw new JudgeSettingsError(`the judge's base URL must be an http(s) URL, got "${baseUrl}"`);
  if (!model) throw new JudgeSettingsError("the openai judge needs a model: --judge-model, AGENTBOARD_JUDGE_MODEL or the config's judge.model");
  let apiKey: string | undefined;
  if (config.apiKeyEnv) {
    apiKey = env[config.apiKeyEnv];
    if (!apiKey) throw new JudgeSettingsError(`the judge reads its API key from $${config.apiKeyEnv}, which is not set`);
  } else apiKey = first(env.AGENTBOARD_JUDGE_API_KEY, env.OPENAI_API_KEY, env.NVIDIA_API_KEY);
  const timeoutMs = millis(env, "AGENTBOARD_JUDGE_TIMEOUT_MS") ?? config.timeoutMs;
  const maxRetryAfterMs = millis(env, "AGENTBOARD_JUDGE_MAX_RETRY_AFTER_MS");
  const maxDelayMs = millis(env, "AGENTBOARD_JUDGE_MAX_DELAY_MS");
  const deadlineMs = millis(env, "AGENTBOARD_JUDGE_DEADLINE_MS");
  const structuredOutput = structuredOutputOf(env.AGENTBOARD_JUDGE_STRUCTURED_OUTPUT);
  const ambiguousRetries = ambiguousRetriesOf(env.AGENTBOARD_JUDGE_AMBIGUOUS_RETRIES);
  return {
    kind,
    baseUrl,
    model,
    concurrency,
    ...(apiKey ? { apiKey } : {}),
    ...(timeoutMs ? { timeoutMs } : {}),
    ...(config.maxAttempts ? { maxAttempts: config.maxAttempts } : {}),
    ...(maxRetryAfterMs !== undefined ? { maxRetryAfterMs } : {}),
    ...(maxDelayMs !== undefined ? { maxDelayMs } : {}),
    ...(deadlineMs !== undefined ? { deadlineMs } : {}),
    ...(config.temperature !== undefined ? { temperature: config.temperature } : {}),
    ...(config.maxTokens !== undefined ? { maxTokens: config.maxTokens } : {}),
    ...(structuredOutput ? { structuredOutput } : {}),
    ...(ambiguousRetries !== undefined ? { ambiguousRetries } : {}),
  };
}

/**
 * A panel's members: each member's kind, model, base URL and concurrency come from the panel
 * (as flags would: the environment's AGENTBOARD_JUDGE and AGENTBOARD_JUDGE_MODEL do not change
 * a member); the environment gives the key and the limits, and the base URL where a member
 * names none.
 */
function resolvePanel(panel: JudgeDefaults["panel"], env: Readonly<Record<string, string | undefined>>): NonNullable<JudgeSettings["panel"]> {
  if (!panel) throw new JudgeSettingsError("the panel judge needs judge.panel in benchmark.yaml (two or three judges and a rule)");
  const members = panel.judges.map((m, i) => {
    try {
      return resolveJudgeSettings({ flags: { judge: m.kind ?? "rules", ...(m.model ? { judgeModel: m.model } : {}), ...(m.baseUrl ? { judgeBaseUrl: m.baseUrl } : {}), ...(m.concurrency ? { judgeConcurrency: m.concurrency } : {}) }, env });
    } catch (err) {
      if (err instanceof JudgeSettingsError) throw new JudgeSettingsError(`judge.panel.judges[${i}]: ${err.message}`);
      throw err;
    }
  });
  return { rule: panel.rule, members };
}

/**
 * Checks the environment's judge limits whatever judge a command starts with: a worker resolves
 * each run's judge when it takes the run, so it calls this at start-up to fail there, clearly,
 * rather than on every run it takes.
 */
export function checkJudgeEnvironment(env: Readonly<Record<string, string | undefined>>): void {
  for (const name of ["AGENTBOARD_JUDGE_TIMEOUT_MS", "AGENTBOARD_JUDGE_MAX_RETRY_AFTER_MS", "AGENTBOARD_JUDGE_MAX_DELAY_MS", "AGENTBOARD_JUDGE_DEADLINE_MS"]) millis(env, name);
  structuredOutputOf(env.AGENTBOARD_JUDGE_STRUCTURED_OUTPUT);
  ambiguousRetriesOf(env.AGENTBOARD_JUDGE_AMBIGUOUS_RETRIES);
}

function structuredOutputOf(raw: string | undefined): StructuredOutput | undefined {
  if (raw === undefined || raw === "") return undefined;
  if (raw === "json_schema" || raw === "off") return raw;
  throw new JudgeSettingsError(`AGENTBOARD_JUDGE_STRUCTURED_OUTPUT must be "json_schema" or "off", got "${raw}"`);
}

/** At most 5: each one is a request, and a judge that stays ambiguous will not stop being so. */
const MAX_AMBIGUOUS_RETRIES = 5;

function ambiguousRetriesOf(raw: string | undefined): number | undefined {
  if (raw === undefined || raw === "") return undefined;
  const n = Number(raw);
  if (!/^\d+$/.test(raw.trim()) || n > MAX_AMBIGUOUS_RETRIES) {
    throw new JudgeSettingsError(`AGENTBOARD_JUDGE_AMBIGUOUS_RETRIES must be a whole number from 0 to ${MAX_AMBIGUOUS_RETRIES} (default ${CHAT_DEFAULTS.ambiguousRetries}), got "${raw}"`);
  }
  return n;
}

/** A duration in milliseconds from the environment: a positive integer, at most a day. */
function millis(env: Readonly<Record<string, string | undefined>>, name: string): number | undefined {
  const raw = env[name];
  if (raw === undefined || raw === "") return undefined;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > 86_400_000) throw new JudgeSettingsError(`${name} must be a whole number of milliseconds from 1 to 86400000, got "${raw}"`);
  return n;
}

export const judgeId = (s: Pick<JudgeSettings, "kind" | "model" | "panel">): string =>
  s.kind === "openai" ? `openai:${s.model}` : s.kind === "panel" && s.panel ? `panel:${s.panel.rule}(${s.panel.members.map(judgeId).join(",")})` : s.kind;

export function recordedJudge(s: JudgeSettings): RecordedJudge {
  return { id: judgeId(s), kind: s.kind, model: s.model ?? null, baseUrl: s.baseUrl ?? null, concurrency: s.concurrency, ...(s.panel ? { panel: { rule: s.panel.rule, members: s.panel.members.map(recordedJudge) } } : {}) };
}

/** Transport seams for tests (a fake clock, a fake fetch). */
export type GraderTransport = Pick<ChatClientOptions, "fetch" | "sleep" | "random" | "now" | "signal" | "baseDelayMs" | "maxDelayMs" | "maxRetryAfterMs" | "deadlineMs" | "timeoutMs" | "maxAttempts" | "endpointMemory">;

/**
 * Builds the resolved judge; `client` shares one chat client (and its concurrency limit) between
 * graders. The verdicts judge answers from `verdicts` (else its file) and needs the benchmark's
 * `keySalt` (content-hash.ts) to find them.
 */
export function createGrader(s: JudgeSettings, deps: { cache?: GradeCache; transport?: GraderTransport; client?: ChatClient; verdicts?: VerdictExport; keySalt?: string; decisions?: DecisionLookup } = {}): Grader {
  if (s.kind === "rules") return createRulesGrader();
  if (s.kind === "literal") return createLiteralGrader();
  if (s.kind === "panel") {
    if (!s.panel) throw new JudgeSettingsError("the panel judge needs its members (judge.panel in benchmark.yaml)");
    // Each member asks its own model through its own client; they share the grade cache, keyed by model.
    const { client: _shared, decisions, ...memberDeps } = deps;
    return createPanelGrader({ rule: s.panel.rule, members: s.panel.members.map((m) => createGrader(m, memberDeps)), ...(decisions ? { decisions } : {}) });
  }
  if (s.kind === "verdicts") {
    if (deps.keySalt === undefined) throw new JudgeSettingsError("the verdicts judge needs the benchmark's key salt (load the benchmark first)");
    let verdicts = deps.verdicts;
    if (!verdicts) {
      if (!s.verdictsFile) throw new JudgeSettingsError("the verdicts judge needs the exported verdicts: --judge-verdicts <file>");
      try {
        verdicts = readVerdictFile(s.verdictsFile);
      } catch (err) {
        throw new JudgeSettingsError(err instanceof Error ? err.message : String(err));
      }
    }
    try {
      return createVerdictsGrader({ verdicts, salt: deps.keySalt });
    } catch (err) {
      throw new JudgeSettingsError(err instanceof Error ? err.message : String(err));
    }
  }
  return createOpenAiGrader({ ...chatOptions(s), ...deps.transport, ...(deps.cache ? { cache: deps.cache } : {}), ...(deps.client ? { client: deps.client } : {}) });
}

/** The chat client an openai judge's settings describe. */
export function chatOptions(s: JudgeSettings): ChatClientOptions {
  if (!s.baseUrl || !s.model) throw new JudgeSettingsError("the openai judge needs a base URL and a model");
  return {
    baseUrl: s.baseUrl,
    model: s.model,
    concurrency: s.concurrency,
    ...(s.apiKey ? { apiKey: s.apiKey } : {}),
    ...(s.timeoutMs ? { timeoutMs: s.timeoutMs } : {}),
    ...(s.maxAttempts ? { maxAttempts: s.maxAttempts } : {}),
    ...(s.maxRetryAfterMs ? { maxRetryAfterMs: s.maxRetryAfterMs } : {}),
    ...(s.maxDelayMs ? { maxDelayMs: s.maxDelayMs } : {}),
    ...(s.deadlineMs ? { deadlineMs: s.deadlineMs } : {}),
    ...(s.temperature !== undefined ? { temperature: s.temperature } : {}),
    ...(s.maxTokens !== undefined ? { maxTokens: s.maxTokens } : {}),
    ...(s.structuredOutput ? { structuredOutput: s.structuredOutput } : {}),
    ...(s.ambiguousRetries !== undefined ? { ambiguousRetries: s.ambiguousRetries } : {}),
  };
}
