/**
 * `eval.yaml`: what an evaluation run reads, which evaluators it runs and with which judge,
 * and where it writes. Paths are relative to the config file. Checked with zod, so every
 * error names its key.
 */
import path from "node:path";
import { parse as parseYaml } from "yaml";
import { z } from "zod";
import { describeType } from "./diagnostic";
import { EVAL_KINDS } from "./eval-dataset";

const relPath = z.string({ error: (iss) => (iss.input === undefined ? "expected a file path" : `expected a file path, found ${describeType(iss.input)}`) }).trim().min(1, "expected a file path");

/** A prompt template: inline text, or `{file: <path>}`. */
const promptSchema = z.union([z.string().min(1, "expected a non-empty template"), z.object({ file: relPath }).strict()], {
  error: "expected a template string or {file: <path>}",
});

/** `rules`, or an OpenAI-compatible endpoint. The bare string "rules" is short for {kind: rules}. */
export const judgeConfigSchema = z.preprocess(
  (v) => (v === "rules" ? { kind: "rules" } : v),
  z.discriminatedUnion(
    "kind",
    [
      z.object({ kind: z.literal("rules") }).strict(),
      z
        .object({
          kind: z.literal("openai"),
          baseUrl: z.url({ error: "expected an http(s) URL such as https://api.openai.com/v1" }),
          model: z.string().min(1),
          /** The environment variable holding the API key (never the key itself). */
          apiKeyEnv: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "expected an environment variable name").optional(),
          concurrency: z.number().int().positive().max(256).optional(),
          timeoutMs: z.number().int().positive().optional(),
          maxAttempts: z.number().int().positive().max(20).optional(),
        })
        .strict(),
    ],
    { error: (iss) => (iss.code === "invalid_union" ? `expected "rules" or {kind: openai, baseUrl, model, apiKeyEnv?}` : undefined) },
  ),
);

const common = {
  /** The id items name in `evaluation_method`; defaults to the evaluator's type. */
  methodId: z.string().trim().min(1).optional(),
  judge: judgeConfigSchema.default({ kind: "rules" }),
};

const qaSchema = z.object({ type: z.literal("qa"), ...common, prompt: promptSchema.optional() }).strict();

const trajectorySchema = z
  .object({
    type: z.literal("trajectory"),
    ...common,
    /** Keep only tools the agent's own LLM chose (drops nested tool calls). */
    agentSelectedToolsOnly: z.boolean().default(true),
    /** JSON file with the agent's tool schemas, for the reference-free check. */
    toolSchemas: relPath.optional(),
    prompts: z.object({ withReference: promptSchema.optional(), withoutReference: promptSchema.optional() }).strict().default({}),
  })
  .strict();

const reportSchema = z
  .object({
    type: z.literal("report"),
    ...common,
    metrics: relPath,
    penalizeMissingFields: z.boolean().default(false),
    /** Sections (or dotted paths below the root) whose mean is the VLM-fields sub-score. */
    vlmFields: z.array(z.string().min(1)).default([]),
    prompts: z.object({ field: promptSchema.optional(), discovery: promptSchema.optional() }).strict().default({}),
  })
  .strict();

export const evaluatorConfigSchema = z.discriminatedUnion("type", [qaSchema, trajectorySchema, reportSchema], {
  error: (iss) => (iss.code === "invalid_union" ? `expected "type" to be one of ${EVAL_KINDS.join(", ")}` : undefined),
});

export const evalConfigSchema = z
  .object({
    dataset: relPath,
    outputs: relPath.optional(),
    /** Where report items' reference paths resolve; defaults to the dataset's folder. */
    referenceBaseDir: relPath.optional(),
    outputDir: relPath.default("eval-output"),
    concurrency: z.number().int().positive().max(256).default(8),
    evaluators: z
      .record(z.string().regex(/^[A-Za-z0-9_.-]+$/, "expected an evaluator name of letters, digits, _ . -"), evaluatorConfigSchema)
      .refine((e) => Object.keys(e).length > 0, "configure at least one evaluator"),
  })
  .strict();

export type JudgeConfig = z.infer<typeof judgeConfigSchema>;
export type PromptConfig = z.infer<typeof promptSchema>;
export type EvaluatorConfig = z.infer<typeof evaluatorConfigSchema>;
export type EvalConfig = z.infer<typeof evalConfigSchema>;

export type EvalConfigResult = { ok: true; config: EvalConfig } | { ok: false; errors: string[] };

export function parseEvalConfig(text: string, file = "eval.yaml"): EvalConfigResult {
  let raw: unknown;
  try {
    raw = parseYaml(text);
  } catch (err) {
    return { ok: false, errors: [`${file}: invalid YAML: ${err instanceof Error ? err.message : String(err)}`] };
  }
  const parsed = evalConfigSchema.safeParse(raw ?? {});
  if (!parsed.success) {
    return {
      ok: false,
      errors: parsed.error.issues.map((i) => {
        const key = i.path.reduce<string>((acc, seg) => (typeof seg === "number" ? `${acc}[${seg}]` : acc ? `${acc}.${String(seg)}` : String(seg)), "");
        return `${file}: ${key || "(top level)"}: ${i.message}`;
      }),
    };
  }
  return { ok: true, config: parsed.data };
}

/** The id an evaluator answers to in `evaluation_method`. */
export function methodIdOf(e: EvaluatorConfig): string {
  return e.methodId ?? e.type;
}

/** A config path made absolute against the config file's folder. */
export function resolveFrom(configFile: string, p: string): string {
  return path.resolve(path.dirname(configFile), p);
}
