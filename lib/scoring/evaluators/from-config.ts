/**
 * Builds the evaluators an `eval.yaml` describes: prompt files, metric files and tool
 * schemas are read through the injected `readText`, judges come from the injected factory
 * (the caller knows where API keys live). Every problem is collected, named by evaluator
 * and file, so one run reports them all.
 */
import { methodIdOf, resolveFrom, type EvalConfig, type EvaluatorConfig, type JudgeConfig, type PromptConfig } from "../../formats/eval-config";
import { parseMetricsYaml } from "../../formats/eval-metrics";
import type { ScoreJudge } from "../judges/score-judge";
import type { Evaluator } from "./evaluator";
import { createQaEvaluator } from "./qa-evaluator";
import { createReportEvaluator } from "./report-evaluator";
import { readToolSchemas, type ToolSchema } from "./tool-schemas";
import { createTrajectoryEvaluator } from "./trajectory-evaluator";

export interface BuildDeps {
  /** Reads a file as UTF-8 text (absolute path). */
  readText(file: string): Promise<string>;
  /** Makes an evaluator's judge; what it throws propagates unchanged. */
  makeJudge(config: JudgeConfig, evaluator: string): ScoreJudge;
  /** How files are named in messages (default: as given). */
  displayName?: (file: string) => string;
}

export type BuildResult = { ok: true; evaluators: Evaluator[] } | { ok: false; errors: string[] };

export async function buildEvaluators(config: EvalConfig, configFile: string, deps: BuildDeps): Promise<BuildResult> {
  const errors: string[] = [];
  const evaluators: Evaluator[] = [];
  const show = deps.displayName ?? ((f: string) => f);

  const readFileText = async (name: string, rel: string): Promise<{ file: string; text: string } | undefined> => {
    const file = resolveFrom(configFile, rel);
    try {
      return { file, text: await deps.readText(file) };
    } catch (err) {
      errors.push(`evaluators.${name}: cannot read ${show(file)}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
      return undefined;
    }
  };
  const prompt = async (name: string, p: PromptConfig | undefined) => {
    if (p === undefined) return undefined;
    if (typeof p === "string") return p;
    return (await readFileText(name, p.file))?.text;
  };

  for (const [name, e] of Object.entries(config.evaluators)) {
    // Outside the try: a judge that cannot be made (say, no API key) is the caller's error to report.
    const judge = deps.makeJudge(e.judge, name);
    try {
      const built = await buildOne(name, e, judge);
      if (built) evaluators.push(built);
    } catch (err) {
      errors.push(`evaluators.${name}: ${err instanceof Error ? err.message.replace(new RegExp(`^${name}: `), "") : String(err)}`);
    }
  }
  return errors.length ? { ok: false, errors } : { ok: true, evaluators };

  async function buildOne(name: string, e: EvaluatorConfig, judge: ScoreJudge): Promise<Evaluator | undefined> {
    const methodId = methodIdOf(e);
    if (e.type === "qa") {
      const template = await prompt(name, e.prompt);
      return createQaEvaluator({ name, methodId, judge, ...(template ? { template } : {}) });
    }
    if (e.type === "trajectory") {
      let toolSchemas: ToolSchema[] | null = null;
      if (e.toolSchemas) {
        const f = await readFileText(name, e.toolSchemas);
        if (!f) return undefined;
        let json: unknown;
        try {
          json = JSON.parse(f.text);
        } catch (err) {
          errors.push(`evaluators.${name}.toolSchemas: ${show(f.file)} is not valid JSON: ${err instanceof Error ? err.message : String(err)}`);
          return undefined;
        }
        const r = readToolSchemas(json);
        if (!r.ok) {
          errors.push(...r.errors.map((m) => `evaluators.${name}.toolSchemas: ${show(f.file)} ${m}`));
          return undefined;
        }
        toolSchemas = r.tools;
      }
      const withReference = await prompt(name, e.prompts.withReference);
      const withoutReference = await prompt(name, e.prompts.withoutReference);
      return createTrajectoryEvaluator({
        name,
        methodId,
        judge,
        agentSelectedToolsOnly: e.agentSelectedToolsOnly,
        toolSchemas,
        prompts: { ...(withReference ? { withReference } : {}), ...(withoutReference ? { withoutReference } : {}) },
      });
    }
    const f = await readFileText(name, e.metrics);
    if (!f) return undefined;
    const metrics = parseMetricsYaml(f.text, show(f.file));
    if (!metrics.ok) {
      errors.push(...metrics.errors.map((m) => `evaluators.${name}.metrics: ${m}`));
      return undefined;
    }
    const field = await prompt(name, e.prompts.field);
    const discovery = await prompt(name, e.prompts.discovery);
    return createReportEvaluator({
      name,
      methodId,
      judge,
      metrics: metrics.root,
      penalizeMissingFields: e.penalizeMissingFields,
      vlmFields: e.vlmFields,
      prompts: { ...(field ? { field } : {}), ...(discovery ? { discovery } : {}) },
    });
  }
}

/** The `evaluation_method` ids of the report evaluators: their items need reference reports. */
export function reportMethodIds(config: EvalConfig): Set<string> {
  return new Set(Object.values(config.evaluators).filter((e) => e.type === "report").map(methodIdOf));
}
