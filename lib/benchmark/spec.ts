/**
 * `benchmark.yaml`: what a benchmark is. Parsed with zod so every error names its key.
 * Everything is optional: a folder with only `groundtruth/` gets VAKRA's defaults.
 */
import { z } from "zod";
import { evaluatorConfigSchema, type EvaluatorConfig } from "../formats/eval-config";
import type { EvalKind } from "../formats/eval-dataset";

/** What scores a capability's items: `capabilities[].scorer`. */
export type ScorerName = "waterfall" | EvalKind;
export const SCORER_NAMES: readonly ScorerName[] = ["waterfall", "qa", "trajectory", "report"];

const glob = z.string().min(1, "expected a non-empty glob");

/** How to start a capability's tool server. `{domain}`, `{capability}` and `{benchmark}` are substituted. */
export const serverSpecSchema = z.union([
  z
    .object({
      command: z.string().min(1),
      args: z.array(z.string()).default([]),
      env: z.record(z.string(), z.string()).default({}),
      /** Working directory; relative paths resolve against the benchmark folder (the default). */
      cwd: z.string().optional(),
    })
    .strict(),
  z.object({ url: z.string().url(), headers: z.record(z.string(), z.string()).default({}) }).strict(),
]);

const toolCallSpecSchema = z.object({ name: z.string().min(1), arguments: z.record(z.string(), z.unknown()).default({}) }).strict();

/** The executable environment a capability's tool calls are replayed against, over MCP. */
export const environmentSpecSchema = z
  .object({
    server: serverSpecSchema,
    /** Calls made before the agent's own (VAKRA capability 1: get_data with the dialogue's uuid); `{uuid}` is substituted. */
    prelude: z.array(toolCallSpecSchema).default([]),
    /** Leading ground-truth calls with these names are dropped before replay (VAKRA: initialize_active_data). */
    dropLeadingGroundTruthCalls: z.array(z.string()).default([]),
    /** A tool that clears server state; without one, every dialogue gets a new server session. */
    resetTool: z.string().optional(),
    callTimeoutMs: z.number().int().positive().default(30_000),
    /** Retriever responses reduced to their text chunks (as VAKRA compares them), or kept whole. */
    retrieverResponses: z.enum(["text_chunks", "full"]).default("text_chunks"),
  })
  .strict();

export const capabilitySpecSchema = z
  .object({
    id: z.string().regex(/^[a-z][a-z0-9_]*$/, "expected a lower-case identifier such as api_chaining"),
    label: z.string().min(1),
    description: z.string().default(""),
    /** Folder under groundtruth/ and in submission bundles, e.g. capability_1_bi_apis. */
    directory: z.string().regex(/^[A-Za-z0-9_.-]+$/, "expected a plain folder name"),
    /**
     * `waterfall` scores VAKRA-style dialogues (replay, policy, exact, correctness,
     * groundedness); `qa`, `trajectory` and `report` score NVIDIA-style dataset items with
     * that evaluator.
     */
    scorer: z.enum(["waterfall", "qa", "trajectory", "report"]).default("waterfall"),
    /** The evaluator's options (as in eval.yaml, without `type` and `judge`); paths are relative to the benchmark folder. */
    evaluator: z.record(z.string(), z.unknown()).optional(),
    /** VAKRA scores only the last ground-truth turn of a dialogue. */
    scoredTurns: z.enum(["last", "all"]).default("last"),
    /** Whether items of this capability carry tool-use policies (checked first in the waterfall). */
    policies: z.boolean().default(false),
    weights: z
      .object({
        /** Weight of items whose scored turn uses both an API tool and a retriever tool. */
        multiSource: z.number().positive().default(1),
      })
      .strict()
      .default({ multiSource: 1 }),
    environment: environmentSpecSchema.optional(),
  })
  .strict()
  .transform((c, ctx) => {
    const { evaluator: raw, ...rest } = c;
    if (rest.scorer === "waterfall") {
      if (raw !== undefined) ctx.addIssue({ code: "custom", path: ["evaluator"], message: `evaluator options apply only to capabilities scored by qa, trajectory or report; this one uses the waterfall` });
      return { ...rest, evaluator: undefined };
    }
    // Waterfall-only keys on an evaluator capability would be silently meaningless: say so.
    const waterfallOnly = [
      ["policies", c.policies],
      ["environment", c.environment],
      ["scoredTurns", c.scoredTurns !== "last" ? c.scoredTurns : undefined],
      ["weights", c.weights.multiSource !== 1 ? c.weights : undefined],
    ] as const;
    for (const [key, value] of waterfallOnly) {
      if (value) ctx.addIssue({ code: "custom", path: [key], message: `applies only to waterfall capabilities; the ${rest.scorer} scorer has no ${key}` });
    }
    if (raw && "judge" in raw) ctx.addIssue({ code: "custom", path: ["evaluator", "judge"], message: "the judge is chosen per scoring run (the benchmark's judge); remove evaluator.judge" });
    if (raw && "type" in raw) ctx.addIssue({ code: "custom", path: ["evaluator", "type"], message: "the evaluator's type is the capability's scorer; remove evaluator.type" });
    const parsed = evaluatorConfigSchema.safeParse({ ...(raw ?? {}), type: rest.scorer });
    if (!parsed.success) {
      for (const issue of parsed.error.issues) ctx.addIssue({ code: "custom", path: ["evaluator", ...issue.path.map((p) => (typeof p === "symbol" ? String(p) : p))], message: issue.message });
      return z.NEVER;
    }
    return { ...rest, evaluator: parsed.data as EvaluatorConfig };
  });

export const policyRuleSchema = z
  .object({
    /** The instruction text exactly as it appears in `additional_instructions` (whitespace-normalised). */
    text: z.string().min(1),
    allowTools: z.array(glob).optional(),
    denyTools: z.array(glob).optional(),
  })
  .strict()
  .refine((r) => r.allowTools || r.denyTools, "a policy rule needs allowTools or denyTools");

/** One judge: the benchmark's, or a member of its panel. */
export const judgeMemberSchema = z
  .object({
    kind: z.enum(["rules", "literal", "openai"]).default("rules"),
    model: z.string().optional(),
    baseUrl: z.string().url().optional(),
    concurrency: z.number().int().positive().max(256).optional(),
    /**
     * The least Cohen's κ a stored calibration of an LLM judge must show (its pooled pass/fail
     * agreement with the benchmark's labelled cases) before a run it graded is published.
     */
    minKappa: z.number({ error: "expected Cohen's κ as a number from -1 to 1" }).min(-1, "expected Cohen's κ as a number from -1 to 1").max(1, "expected Cohen's κ as a number from -1 to 1").optional(),
  })
  .strict();

/**
 * A second opinion (docs/judges.md "Panels"): every LLM-judged grade is asked of each judge.
 * `primary`: the first judge's grade stands; `majority`: of exactly three judges.
 */
export const judgePanelSchema = z
  .object({
    rule: z.enum(["primary", "majority"]).default("primary"),
    judges: z.array(judgeMemberSchema).min(2, "a panel needs two or three judges").max(3, "a panel needs two or three judges"),
  })
  .strict()
  .refine((p) => p.rule !== "majority" || p.judges.length === 3, { message: "a majority needs three judges", path: ["judges"] });

export const judgeSpecSchema = judgeMemberSchema.extend({ panel: judgePanelSchema.optional() }).strict();

/** At most this many canaries, each at most this long: the scan is linear in the bundle's bytes times their number. */
export const MAX_CANARIES = 20;
export const MAX_CANARY_CHARS = 256;
/** A canary this short would match ordinary text. */
export const MIN_CANARY_CHARS = 8;

/** Integrity checks (README: "Integrity flags"). */
export const integritySpecSchema = z
  .object({
    /**
     * Flag a waterfall capability whose share of correct-but-unsupported answers is above this
     * (0–1); `false` turns the flag off (the shares are still shown). Default 0.5.
     */
    unsupportedAnswers: z.union([z.number().min(0, "expected a share from 0 to 1").max(1, "expected a share from 0 to 1"), z.literal(false)]).default(0.5),
    /** Strings planted in the benchmark's data: submitted text that holds one flags the entry. */
    canaries: z
      .array(
        z
          .string()
          .refine((c) => c.trim().length >= MIN_CANARY_CHARS, `expected at least ${MIN_CANARY_CHARS} characters besides spaces (a shorter canary matches ordinary text)`)
          .refine((c) => c.length <= MAX_CANARY_CHARS, `expected at most ${MAX_CANARY_CHARS} characters`),
      )
      .max(MAX_CANARIES, `expected at most ${MAX_CANARIES} canaries`)
      .default([]),
  })
  .strict();

export const benchmarkSpecSchema = z
  .object({
    slug: z.string().regex(/^[a-z0-9][a-z0-9-]*$/, "expected a URL-safe slug such as vakra"),
    title: z.string().min(1),
    version: z.union([z.string().min(1), z.number()]).transform(String),
    description: z.string().default(""),
    /**
     * `vakra` reproduces VAKRA's scorer item by item (its string forms, vacuous exact match,
     * uncut evidence, errored records scored); `strict` is ours. README: "Differences from VAKRA".
     */
    compat: z.enum(["strict", "vakra"]).default("strict"),
    retrieverTools: z.array(glob).min(1).default(["query_*", "retriever_*"]),
    /** How many of the last predicted tool responses the exact-match stage searches. */
    exactMatchWindow: z.number().int().positive().default(20),
    /**
     * Strict mode: the most characters of tool output a groundedness judge reads (the newest
     * are kept, and the verdict says it was cut). Compat: vakra never cuts, as VAKRA does not.
     */
    evidenceMaxChars: z.number().int().positive().default(24_000),
    judge: judgeSpecSchema.default({ kind: "rules" }),
    capabilities: z.array(capabilitySpecSchema).min(1),
    policyTable: z.array(policyRuleSchema).default([]),
    /** Whether detail pages may show ground truth to the public. */
    showGroundTruth: z.boolean().default(false),
    /** Whether each published entry offers its bundle for download (default true; absent keeps the spec's hash as before). */
    bundleDownload: z.boolean({ error: "expected true or false: whether published entries offer their bundle for download (default true)" }).optional(),
    integrity: integritySpecSchema.default({ unsupportedAnswers: 0.5, canaries: [] }),
    /**
     * Runs of the agent a bundle must hold (`trial_1/ … trial_k/`); a bundle with fewer is
     * invalid. At most 32, the bundle limit `maxTrials`.
     */
    trials: z
      .object({ min: z.number().int("expected a whole number of trials").min(1, "expected at least 1 trial").max(32, "expected at most 32 trials (the bundle limit maxTrials)") })
      .strict()
      .optional(),
  })
  .strict()
  .superRefine((spec, ctx) => {
    for (const key of ["id", "directory"] as const) {
      const seen = new Set<string>();
      spec.capabilities.forEach((c, i) => {
        if (seen.has(c[key])) ctx.addIssue({ code: "custom", path: ["capabilities", i, key], message: `duplicate capability ${key} "${c[key]}"` });
        seen.add(c[key]);
      });
    }
  });

export type CapabilitySpec = z.infer<typeof capabilitySpecSchema>;
export type EnvironmentSpec = z.infer<typeof environmentSpecSchema>;

/**
 * How many leading calls of a ground-truth turn the environment makes itself, so neither the
 * replay nor the agent makes them (VAKRA: `initialize_active_data`); only a dialogue's first turn has them.
 */
export function leadingCallsDropped(env: Pick<EnvironmentSpec, "dropLeadingGroundTruthCalls"> | undefined, calls: readonly { name: string }[], turnIndex: number): number {
  const drop = env?.dropLeadingGroundTruthCalls ?? [];
  let k = 0;
  if (turnIndex === 0) while (k < calls.length && drop.includes(calls[k]!.name)) k++;
  return k;
}
export type ServerSpec = z.infer<typeof serverSpecSchema>;
export type PolicyRule = z.infer<typeof policyRuleSchema>;
export type JudgeSpec = z.infer<typeof judgeSpecSchema>;
export type JudgePanelSpec = z.infer<typeof judgePanelSchema>;
export type IntegritySpec = z.infer<typeof integritySpecSchema>;
export type BenchmarkSpec = z.infer<typeof benchmarkSpecSchema>;
export type BenchmarkSpecInput = z.input<typeof benchmarkSpecSchema>;
