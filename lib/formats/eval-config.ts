/**
 * `eval.yaml`: what an evaluation run reads, which evaluators it runs and with which judge,
 * and where it writes. Paths are relative to the config file. Checked with zod, so every
 * error names its key. A NAT config (a whole agent config or its `eval:` and `llms:` parts)
 * is read as NAT reads it (variables, `base:`, `file://`; paths relative to the working
 * directory) and translated into the same config.
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { parse as parseYaml } from "yaml";
import { z } from "zod";
import { describeType } from "./diagnostic";
import { EVAL_KINDS } from "./eval-dataset";
import { loadNatConfig, MAX_CONFIG_BYTES, type UnsetVariable } from "./nat-config-load";
import { isNatShape, isReadByEval, natEvaluatorPreprocess, translateNatConfig } from "./nat-eval-config";

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
 * Reads an evaluation config from its text: Agentboard's eval.yaml, or NAT's (a whole agent
 * config, or its `eval:` and `llms:` parts) taken as written (no variables, no `base:`; see
 * loadEvalConfig), translated into the same config. `ignored` lists the NAT keys that mean
 * nothing offline.
 */
export function parseEvalConfig(text: string, file = "eval.yaml"): EvalConfigResult {
  let raw: unknown;
  try {
    raw = parseYaml(text);
  } catch (err) {
    return { ok: false, errors: [`${file}: invalid YAML: ${err instanceof Error ? err.message : String(err)}`] };
  }
  return isNatShape(raw) ? fromNat(raw as Record<string, unknown>, file, []) : checkConfig(raw, file, "agentboard", []);
}

function fromNat(raw: Record<string, unknown>, file: string, unset: readonly UnsetVariable[]): EvalConfigResult {
  const t = translateNatConfig(raw);
  // An unset variable evaluation reads is the error to give, not what its "" then breaks.
  const read = unset.filter((u) => u.path === null || isReadByEval(raw, t.ignored, u.path));
  if (read.length) {
    return {
      ok: false,
      errors: read.map((u) => `${u.file}${u.line ? `:${u.line}` : ""}: ${u.path ? u.path.join(".") : "(unplaced)"}: \${${u.name}} is not set and has no default (NAT would read it as an empty string); set ${u.name}, or write \${${u.name}:-<default>}`),
    };
  }
  if (!t.ok) return { ok: false, errors: t.errors.map((e) => `${file}: ${e}`) };
  return checkConfig(t.config, file, "nat", t.ignored);
}

function checkConfig(raw: unknown, file: string, shape: "agentboard" | "nat", ignored: string[]): EvalConfigResult {
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

export interface EvalConfigLoadOptions {
  /** The environment NAT configs take their `${VARIABLES}` from (passed in; never read here). */
  env: Readonly<Record<string, string | undefined>>;
  /** The working directory: NAT resolves a config's relative paths from it. */
  cwd: string;
  /** How files are named in messages (default: as given). */
  displayName?: (file: string) => string;
}

export type EvalConfigLoad =
  | { ok: true; config: EvalConfig; shape: "agentboard" | "nat"; ignored: string[]; /** Variables unset outside what evaluation reads, read as "" as NAT does. */ unsetIgnored: string[] }
  | { ok: false; errors: string[] };

/**
 * Reads an evaluation config file with every path in it made absolute. Agentboard's eval.yaml
 * is read as parseEvalConfig reads it, its paths relative to its folder. A NAT config is read
 * as NAT's yaml_load reads it (loadNatConfig) and its paths resolve from `cwd`, as NAT and VSS
 * resolve them; an unset variable with no default is an error where evaluation reads it.
 */
export async function loadEvalConfig(file: string, opts: EvalConfigLoadOptions): Promise<EvalConfigLoad> {
  const show = opts.displayName ?? ((f: string) => f);
  const abs = path.resolve(opts.cwd, file);
  let text: string;
  try {
    const bytes = await readFile(abs);
    if (bytes.length > MAX_CONFIG_BYTES) return { ok: false, errors: [`${show(abs)}: ${bytes.length} bytes; at most ${MAX_CONFIG_BYTES} are read`] };
    text = bytes.toString("utf8");
  } catch (err) {
    return { ok: false, errors: [`${show(abs)}: cannot read: ${(err as NodeJS.ErrnoException).code ?? String(err)}`] };
  }
  let raw: unknown;
  let parses = true;
  try {
    raw = parseYaml(text, { uniqueKeys: false });
  } catch {
    // Maybe only after its variables are expanded, as NAT reads it.
    parses = false;
  }
  if (parses && !isNatShape(raw)) {
    const r = parseEvalConfig(text, show(abs));
    return r.ok ? { ...r, config: resolveConfigPaths(r.config, path.dirname(abs)), unsetIgnored: [] } : r;
  }
  const loaded = await loadNatConfig(abs, { env: opts.env, displayName: show });
  if (!loaded.ok) return loaded;
  const r = fromNat(loaded.raw, show(abs), loaded.unset);
  if (!r.ok) return r;
  const unsetIgnored = [...new Set(loaded.unset.map((u) => u.name))];
  return { ...r, config: resolveConfigPaths(r.config, opts.cwd), unsetIgnored };
}

/** The config with every path in it absolute, resolved from `dir`. */
export function resolveConfigPaths(config: EvalConfig, dir: string): EvalConfig {
  const abs = (p: string) => path.resolve(dir, p);
  const prompt = (p: PromptConfig | undefined) => (p === undefined || typeof p === "string" ? p : { file: abs(p.file) });
  const prompts = <T extends Record<string, PromptConfig | undefined>>(ps: T): T => Object.fromEntries(Object.entries(ps).map(([k, p]) => [k, prompt(p)])) as T;
  return {
    ...config,
    dataset: abs(config.dataset),
    outputDir: abs(config.outputDir),
    ...(config.outputs !== undefined ? { outputs: abs(config.outputs) } : {}),
    ...(config.referenceBaseDir !== undefined ? { referenceBaseDir: abs(config.referenceBaseDir) } : {}),
    evaluators: Object.fromEntries(
      Object.entries(config.evaluators).map(([name, e]): [string, EvaluatorConfig] => {
        if (e.type === "qa") return [name, { ...e, ...(e.prompt !== undefined ? { prompt: prompt(e.prompt) } : {}) }];
        if (e.type === "trajectory") return [name, { ...e, prompts: prompts(e.prompts), ...(e.toolSchemas !== undefined ? { toolSchemas: abs(e.toolSchemas) } : {}) }];
        return [
          name,
          {
            ...e,
            metrics: abs(e.metrics),
            prompts: prompts(e.prompts),
            ...(e.objectStore !== undefined ? { objectStore: abs(e.objectStore) } : {}),
            ...(e.referenceBaseDir !== undefined ? { referenceBaseDir: abs(e.referenceBaseDir) } : {}),
          },
        ];
      }),
    ),
  };
}

/**
 * The config as `compat` runs it. In `nat`, NAT's defaults where the file is silent:
 * `llm_judge_reasoning` is true for the QA and trajectory evaluators (VSS's default), so the
 * thinking tag is sent; Agentboard's own default sends none.
 */
export function withCompat(config: EvalConfig, compat: "nat" | undefined): EvalConfig {
  if (compat !== "nat") return { ...config, compat: undefined };
  const evaluators = Object.fromEntries(Object.entries(config.evaluators).map(([name, e]) => [name, e.type !== "report" && e.judgeReasoning === undefined ? { ...e, judgeReasoning: true } : e]));
  return { ...config, compat, evaluators };
}

/** The id an evaluator answers to in `evaluation_method`. */
export function methodIdOf(e: EvaluatorConfig): string {
  return e.methodId ?? e.type;
}

/** A config path made absolute against the config file's folder. */
export function resolveFrom(configFile: string, p: string): string {
  return path.resolve(path.dirname(configFile), p);
}
