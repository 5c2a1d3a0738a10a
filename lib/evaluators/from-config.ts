/**
 * Builds the evaluators an `eval.yaml` describes: prompt files, metric files and tool
 * schemas are read through the injected `readText`, judges come from the injected factory
 * (the caller knows where API keys live). Every problem is collected, named by evaluator
 * and file, so one run reports them all.
 */
import { methodIdOf, resolveFrom, type EvalConfig, type EvaluatorConfig, type JudgeConfig, type PromptConfig } from "../formats/eval-config";
import { parseMetricsYaml } from "../formats/eval-metrics";
import { unjudged, type Grader } from "../judges/grader";
import type { JudgeStyle } from "./prompts";
import type { Evaluator } from "./evaluator";
import { createQaEvaluator } from "./qa-evaluator";
import { createReportEvaluator, unknownVlmFields } from "./report-evaluator";
import { readToolSchemas, type ToolSchema } from "./tool-schemas";
import { createTrajectoryEvaluator } from "./trajectory-evaluator";

export interface ReadDeps {
  /** Reads a file as UTF-8 text (absolute path). */
  readText(file: string): Promise<string>;
  /** How files are named in messages (default: as given). */
  displayName?: (file: string) => string;
}

export interface BuildDeps extends ReadDeps {
  /** Makes an evaluator's judge; what it throws propagates unchanged. */
  makeJudge(config: JudgeConfig, evaluator: string): Grader;
}

/** `warnings`: what upstream lets pass with a warning, in `compat: nat` (Agentboard refuses it otherwise). */
export type BuildResult = { ok: true; evaluators: Evaluator[]; warnings: string[] } | { ok: false; errors: string[] };

/** An evaluator with its files read and options checked, waiting for its judge. */
export type EvaluatorRecipe = (judge: Grader) => Evaluator;

export type PrepareResult = { ok: true; make: EvaluatorRecipe; warnings: string[] } | { ok: false; errors: string[] };

export async function buildEvaluators(config: EvalConfig, configFile: string, deps: BuildDeps): Promise<BuildResult> {
  const errors: string[] = [];
  const warnings: string[] = [];
  const evaluators: Evaluator[] = [];
  const style: JudgeStyle = config.compat === "nat" ? "nat" : "agentboard";
  for (const [name, e] of Object.entries(config.evaluators)) {
    // NAT's max_retries: attempts after the first on an unusable reply.
    const judgeConfig = e.judge.kind === "openai" && e.maxRetries !== undefined ? { ...e.judge, maxAttempts: e.maxRetries + 1 } : e.judge;
    // Outside the recipe: a judge that cannot be made (say, no API key) is the caller's error to report.
    const judge = deps.makeJudge(judgeConfig, name);
    const prepared = await prepareEvaluator(name, e, configFile, deps, `evaluators.${name}`, style);
    if (prepared.ok) {
      evaluators.push(prepared.make(judge));
      warnings.push(...prepared.warnings);
    } else errors.push(...prepared.errors);
  }
  return errors.length ? { ok: false, errors } : { ok: true, evaluators, warnings };
}

/** Never called: construction only checks templates and fields, it does not grade. */
const PROBE_JUDGE: Grader = {
  id: "probe",
  readsPrompts: true,
  grade: async () => unjudged("probe judge"),
};

/**
 * Reads an evaluator's prompt, metric and tool-schema files (relative to `baseFile`) and
 * checks them by building it once, so a broken template is reported here, named by `key`,
 * rather than on the first item scored.
 */
export async function prepareEvaluator(name: string, e: EvaluatorConfig, baseFile: string, deps: ReadDeps, key: string, style: JudgeStyle = "agentboard"): Promise<PrepareResult> {
  const errors: string[] = [];
  const warnings: string[] = [];
  const show = deps.displayName ?? ((f: string) => f);

  const readFileText = async (rel: string): Promise<{ file: string; text: string } | undefined> => {
    const file = resolveFrom(baseFile, rel);
    try {
      return { file, text: await deps.readText(file) };
    } catch (err) {
      errors.push(`${key}: cannot read ${show(file)}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
      return undefined;
    }
  };
  const prompt = async (p: PromptConfig | undefined) => {
    if (p === undefined) return undefined;
    if (typeof p === "string") return p;
    return (await readFileText(p.file))?.text;
  };

  let make: EvaluatorRecipe | undefined;
  try {
    make = await recipe();
    if (make) make(PROBE_JUDGE);
  } catch (err) {
    errors.push(`${key}: ${err instanceof Error ? err.message.replace(new RegExp(`^${name}: `), "") : String(err)}`);
  }
  return errors.length || !make ? { ok: false, errors } : { ok: true, make, warnings };

  async function recipe(): Promise<EvaluatorRecipe | undefined> {
    const methodId = methodIdOf(e);
    const judging = { style, ...(e.judgeReasoning !== undefined ? { thinking: e.judgeReasoning } : {}) };
    if (e.type === "qa") {
      const template = await prompt(e.prompt);
      return (judge) => createQaEvaluator({ name, methodId, judge, ...judging, ...(template ? { template } : {}) });
    }
    if (e.type === "trajectory") {
      let toolSchemas: ToolSchema[] | null = null;
      if (e.toolSchemas) {
        const f = await readFileText(e.toolSchemas);
        if (!f) return undefined;
        let json: unknown;
        try {
          json = JSON.parse(f.text);
        } catch (err) {
          errors.push(`${key}.toolSchemas: ${show(f.file)} is not valid JSON: ${err instanceof Error ? err.message : String(err)}`);
          return undefined;
        }
        const r = readToolSchemas(json);
        if (!r.ok) {
          errors.push(...r.errors.map((m) => `${key}.toolSchemas: ${show(f.file)} ${m}`));
          return undefined;
        }
        toolSchemas = r.tools;
      }
      const withReference = await prompt(e.prompts.withReference);
      const withoutReference = await prompt(e.prompts.withoutReference);
      return (judge) =>
        createTrajectoryEvaluator({
          name,
          methodId,
          judge,
          agentSelectedToolsOnly: e.agentSelectedToolsOnly,
          toolSchemas,
          ...judging,
          prompts: { ...(withReference ? { withReference } : {}), ...(withoutReference ? { withoutReference } : {}) },
        });
    }
    const f = await readFileText(e.metrics);
    if (!f) return undefined;
    const metrics = parseMetricsYaml(f.text, show(f.file));
    if (!metrics.ok) {
      errors.push(...metrics.errors.map((m) => `${key}.metrics: ${m}`));
      return undefined;
    }
    if (style === "nat") {
      // NAT warns and goes on: each name is looked up among the scored fields, discovered ones included.
      for (const n of unknownVlmFields(metrics.root, e.vlmFields)) warnings.push(`${key}.vlmFields: "${n}" names no field of the metrics tree; it counts only if the judge discovers such a field (NAT's rule)`);
    }
    const field = await prompt(e.prompts.field);
    const discovery = await prompt(e.prompts.discovery);
    return (judge) =>
      createReportEvaluator({
        name,
        methodId,
        judge,
        metrics: metrics.root,
        penalizeMissingFields: e.penalizeMissingFields,
        vlmFields: e.vlmFields,
        includeVlmOutput: e.includeVlmOutput,
        ...judging,
        prompts: { ...(field ? { field } : {}), ...(discovery ? { discovery } : {}) },
      });
  }
}

/** Report evaluators that find reports through a link in the answer, by method id (folders absolute). */
export function reportStores(config: EvalConfig, configFile: string): Map<string, { folder: string; pattern: string }> {
  const out = new Map<string, { folder: string; pattern: string }>();
  for (const e of Object.values(config.evaluators)) {
    if (e.type === "report" && e.reportUrlPattern) out.set(methodIdOf(e), { folder: resolveFrom(configFile, e.objectStore ?? "."), pattern: e.reportUrlPattern });
  }
  return out;
}

/** The `evaluation_method` ids of the report evaluators: their items need reference reports. */
export function reportMethodIds(config: EvalConfig): Set<string> {
  return new Set(Object.values(config.evaluators).filter((e) => e.type === "report").map(methodIdOf));
}
