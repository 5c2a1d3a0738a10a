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
import { isNatShape, natEvaluatorPreprocess, translateNatConfig } from "./nat-eval-config";

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
          temperature: z.number().min(0).max(2).optional(),
          maxTokens: z.number().int().positive().optional(),
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
  /** Judge attempts after the first on an unusable reply (NAT's `max_retries`, default 2). */
  maxRetries: z.number().int().min(0).max(10).optional(),
  /** Ask reasoning models to think, and keep their thinking as the item's reasoning (`llm_judge_reasoning`). */
  judgeReasoning: z.boolean().optional(),
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
    /** Whether the VLM-fields sub-score is reported (NAT's `include_vlm_output`). */
    includeVlmOutput: z.boolean().default(true),
    prompts: z.object({ field: promptSchema.optional(), discovery: promptSchema.optional() }).strict().default({}),
    /** A regex over the agent's answer whose group 1 names the report file in `objectStore`. */
    reportUrlPattern: z.string().min(1).optional(),
    /** A local folder standing in for NAT's object store: reports are read from `<folder>/[camera_N/]<file>`. */
    objectStore: relPath.optional(),
    /** Where this evaluator's reference reports resolve (overrides the run's). */
    referenceBaseDir: relPath.optional(),
  })
  .strict();

/** An evaluator in Agentboard's shape, or NAT's (`_type: customized_qa_evaluator`…), translated. */
export const evaluatorConfigSchema = z.preprocess(
  natEvaluatorPreprocess,
  z.discriminatedUnion("type", [qaSchema, trajectorySchema, reportSchema], {
    error: (iss) => (iss.code === "invalid_union" ? `expected "type" to be one of ${EVAL_KINDS.join(", ")} (or NAT's "_type")` : undefined),
  }),
);

/** Which keys of a dataset record hold what (NAT's `dataset.structure`). */
export const structureSchema = z
  .object({
    questionKey: z.string().min(1).default("query"),
    answerKey: z.string().min(1).default("ground_truth"),
    generatedAnswerKey: z.string().min(1).default("generated_answer"),
    trajectoryKey: z.string().min(1).default("intermediate_steps"),
    idKey: z.string().min(1).default("id"),
  })
  .strict();

export type DatasetStructure = z.infer<typeof structureSchema>;

export const evalConfigSchema = z
  .object({
    dataset: relPath,
    datasetFormat: z.enum(["json", "jsonl"]).optional(),
    structure: structureSchema.default(structureSchema.parse({})),
    outputs: relPath.optional(),
    /** `nat` reproduces NAT's numbers: errors scored 0.0, averages to 2 decimals, NAT's reply parsing and prompts. */
    compat: z.enum(["nat"]).optional(),
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

export type EvalConfigResult = { ok: true; config: EvalConfig; shape: "agentboard" | "nat"; ignored: string[] } | { ok: false; errors: string[] };

/**
 * Reads an evaluation config: Agentboard's eval.yaml, or NAT's (a whole agent config, or its
 * `eval:` and `llms:` parts), translated into the same config. `ignored` lists the NAT keys
 * that mean nothing offline.
 */
export function parseEvalConfig(text: string, file = "eval.yaml"): EvalConfigResult {
  let raw: unknown;
  try {
    raw = parseYaml(text);
  } catch (err) {
    return { ok: false, errors: [`${file}: invalid YAML: ${err instanceof Error ? err.message : String(err)}`] };
  }
  let ignored: string[] = [];
  const shape = isNatShape(raw) ? "nat" : "agentboard";
  if (shape === "nat") {
    const t = translateNatConfig(raw as Record<string, unknown>);
    if (!t.ok) return { ok: false, errors: t.errors.map((e) => `${file}: ${e}`) };
    raw = t.config;
    ignored = t.ignored;
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
  return { ok: true, config: parsed.data, shape, ignored };
}

/** The id an evaluator answers to in `evaluation_method`. */
export function methodIdOf(e: EvaluatorConfig): string {
  return e.methodId ?? e.type;
}

/** A config path made absolute against the config file's folder. */
export function resolveFrom(configFile: string, p: string): string {
  return path.resolve(path.dirname(configFile), p);
}
