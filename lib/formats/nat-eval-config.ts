/**
 * NAT's evaluation config, read as NAT reads it: an agent config file (or just its `eval:`
 * part) with `eval.general` (output_dir, max_concurrency, dataset), `eval.evaluators`
 * (`_type: customized_qa_evaluator | customized_trajectory_evaluator | report_evaluator`)
 * and the `llms` their `llm_name` points at. It is translated into Agentboard's own
 * eval.yaml shape, so both shapes are one config. Keys NAT has that mean nothing offline
 * (the workflow, telemetry, profiler…) are accepted and listed as ignored; any other key is
 * an error naming it.
 */
import { z } from "zod";
import { describeType } from "./diagnostic";

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

/** NAT's own evaluator types and the Agentboard evaluator each one is. */
export const NAT_EVALUATOR_TYPES = { customized_qa_evaluator: "qa", customized_trajectory_evaluator: "trajectory", report_evaluator: "report" } as const;
type NatEvaluatorType = keyof typeof NAT_EVALUATOR_TYPES;

/** Top-level keys of a NAT agent config that describe the live agent, not its evaluation. */
const AGENT_KEYS = ["general", "functions", "function_groups", "embedders", "memory", "retrievers", "workflow", "authentication", "ttc_strategies", "middleware", "trainers", "trainer_adapters", "trajectory_builders", "finetuning", "telemetry", "front_end", "logging"];
const GENERAL_IGNORED = ["workflow_alias", "profiler", "validate_llm_endpoints", "per_input_user_id", "user_id"];
const OUTPUT_IGNORED = ["remote_dir", "s3", "custom_pre_eval_process_function", "custom_scripts", "job_management", "workflow_output_step_filter", "write_atif_workflow_output", "cleanup"];
const DATASET_IGNORED = ["s3", "remote_file_path"];
const LLM_IGNORED = ["api_key", "top_p", "seed", "max_retries", "thinking", "verify_ssl", "num_retries", "retry_on_status_codes", "retry_on_errors", "request_timeout", "timeout", "organization", "api_version", "azure_deployment", "stop"];

/** NIM's hosted endpoint and OpenAI's, when an `llms` entry gives no `base_url`. */
const DEFAULT_BASE_URL = { nim: "https://integrate.api.nvidia.com/v1", openai: "https://api.openai.com/v1" } as const;

export type NatTranslation = { ok: true; config: Obj; ignored: string[] } | { ok: false; errors: string[]; ignored: string[] };

/** Whether a parsed YAML document is in NAT's shape rather than eval.yaml's (which has no `base:`). */
export function isNatShape(raw: unknown): boolean {
  return isObj(raw) && ("eval" in raw || "llms" in raw || "base" in raw) && !("evaluators" in raw && "dataset" in raw);
}

/**
 * Whether evaluation reads the value at `at` (a YAML path) of a NAT config: the eval block,
 * the `llms` and `object_stores` entries its evaluators name, and our `agentboard` block,
 * less what the translation listed as ignored. The agent's own sections are never read.
 */
export function isReadByEval(raw: Obj, ignored: readonly string[], at: readonly string[]): boolean {
  const [top, name] = at;
  if (top !== "eval" && top !== "llms" && top !== "object_stores" && top !== "agentboard") return false;
  if (name !== undefined && (top === "llms" || top === "object_stores") && !namedByEvaluators(raw, top).has(name)) return false;
  return !ignored.some((entry) => {
    const prefix = entry.split(" ")[0]!.split(".");
    return prefix.length <= at.length && prefix.every((seg, i) => seg === at[i]);
  });
}

function namedByEvaluators(raw: Obj, section: "llms" | "object_stores"): Set<string> {
  const names = new Set<string>();
  const evaluators = isObj(raw.eval) && isObj(raw.eval.evaluators) ? raw.eval.evaluators : {};
  for (const e of Object.values(evaluators)) {
    if (!isObj(e)) continue;
    if (section === "object_stores") {
      if (typeof e.object_store === "string") names.add(e.object_store);
      continue;
    }
    if (typeof e.llm_name === "string") names.add(e.llm_name);
    const judge = isObj(e.metric_configs) && isObj(e.metric_configs.llm_judge) ? e.metric_configs.llm_judge : {};
    if (typeof judge.llm_name === "string") names.add(judge.llm_name);
  }
  return names;
}

export function translateNatConfig(raw: Obj): NatTranslation {
  const errors: string[] = [];
  const ignored: string[] = [];
  const err = (key: string, message: string) => errors.push(`${key}: ${message}`);

  for (const k of Object.keys(raw)) {
    if (k === "eval" || k === "llms" || k === "object_stores" || k === "agentboard") continue;
    if (AGENT_KEYS.includes(k)) ignored.push(k);
    else err(k, `unknown key; a NAT config has eval, llms, object_stores and the agent's own sections (${AGENT_KEYS.slice(0, 6).join(", ")}…)`);
  }
  const ev = raw.eval;
  if (!isObj(ev)) {
    err("eval", ev === undefined ? "missing: the evaluation settings (eval.general and eval.evaluators)" : `expected a mapping, found ${describeType(ev)}`);
    return { ok: false, errors, ignored };
  }
  for (const k of Object.keys(ev)) if (k !== "general" && k !== "evaluators") err(`eval.${k}`, "unknown key; expected general or evaluators");

  const ext = readExtension(raw.agentboard, err);
  const llms = isObj(raw.llms) ? raw.llms : {};
  if (raw.llms !== undefined && !isObj(raw.llms)) err("llms", `expected a mapping of LLM names, found ${describeType(raw.llms)}`);
  const stores = isObj(raw.object_stores) ? raw.object_stores : {};

  const out: Obj = {};
  const general = ev.general;
  if (!isObj(general)) err("eval.general", general === undefined ? "missing: output_dir, max_concurrency and dataset" : `expected a mapping, found ${describeType(general)}`);
  else {
    for (const k of Object.keys(general)) {
      if (["output_dir", "max_concurrency", "dataset", "output"].includes(k)) continue;
      if (GENERAL_IGNORED.includes(k)) ignored.push(`eval.general.${k}`);
      else err(`eval.general.${k}`, "unknown key; expected output_dir, max_concurrency, dataset or output");
    }
    if (general.output_dir !== undefined) out.outputDir = general.output_dir;
    if (isObj(general.output)) {
      for (const k of Object.keys(general.output)) {
        if (k === "dir") out.outputDir = general.output.dir;
        else if (OUTPUT_IGNORED.includes(k)) ignored.push(`eval.general.output.${k}`);
        else err(`eval.general.output.${k}`, "unknown key");
      }
    }
    if (general.max_concurrency !== undefined) out.concurrency = general.max_concurrency;
    readDataset(general.dataset, out, err, ignored);
  }

  const evaluators = ev.evaluators;
  if (!isObj(evaluators)) err("eval.evaluators", evaluators === undefined ? "missing: at least one evaluator" : `expected a mapping of evaluator names, found ${describeType(evaluators)}`);
  else {
    const built: Obj = {};
    for (const [name, e] of Object.entries(evaluators)) {
      const key = `eval.evaluators.${name}`;
      const judgeOf = (llmKey: string, llmName: unknown) => judgeFromLlm(llmName, llms, `${key}.${llmKey}`, err, ignored);
      const translated = translateNatEvaluator(e, key, err, ignored, judgeOf);
      if (!translated) continue;
      if (translated.type === "report" && typeof translated.objectStoreName === "string") {
        const storeName = translated.objectStoreName;
        delete translated.objectStoreName;
        translated.objectStore = storeFolder(storeName, stores[storeName], `object_stores.${storeName}`, err, ignored);
      }
      built[name] = translated;
    }
    out.evaluators = built;
  }
  if (ext.compat) out.compat = ext.compat;
  if (ext.outputs) out.outputs = ext.outputs;
  return errors.length ? { ok: false, errors, ignored } : { ok: true, config: out, ignored };
}

function readExtension(raw: unknown, err: (k: string, m: string) => void): { compat?: string; outputs?: string } {
  if (raw === undefined) return {};
  if (!isObj(raw)) {
    err("agentboard", `expected a mapping (compat, workflow_output), found ${describeType(raw)}`);
    return {};
  }
  const out: { compat?: string; outputs?: string } = {};
  for (const [k, v] of Object.entries(raw)) {
    if (k === "compat") {
      if (v === "nat") out.compat = "nat";
      else if (v !== null && v !== "none") err("agentboard.compat", `expected "nat" or "none", found ${JSON.stringify(v)}`);
    } else if (k === "workflow_output") {
      if (typeof v === "string" && v.trim()) out.outputs = v;
      else err("agentboard.workflow_output", "expected the path of a workflow_output.json");
    } else err(`agentboard.${k}`, "unknown key; expected compat or workflow_output");
  }
  return out;
}

function readDataset(d: unknown, out: Obj, err: (k: string, m: string) => void, ignored: string[]): void {
  const key = "eval.general.dataset";
  if (d === undefined) return err(key, "missing: {_type: json, file_path, structure}");
  if (!isObj(d)) return err(key, `expected a mapping, found ${describeType(d)}`);
  for (const k of Object.keys(d)) {
    if (["_type", "file_path", "structure", "id_key"].includes(k)) continue;
    if (DATASET_IGNORED.includes(k)) ignored.push(`${key}.${k}`);
    else if (k === "filter") err(`${key}.filter`, "dataset allowlist/denylist filters are not supported; use DATASET_FILTER or --only");
    else err(`${key}.${k}`, "unknown key; expected _type, file_path, structure or id_key");
  }
  const type = d._type ?? "json";
  if (type !== "json" && type !== "jsonl") err(`${key}._type`, `${JSON.stringify(type)} datasets are not supported; expected json or jsonl`);
  else out.datasetFormat = type;
  out.dataset = d.file_path;
  if (d.file_path === undefined) err(`${key}.file_path`, "missing: the dataset file");
  // NAT's defaults, unlike eval.yaml's (query / ground_truth).
  const structure: Obj = { questionKey: "question", answerKey: "answer" };
  if (d.id_key !== undefined) structure.idKey = d.id_key;
  if (d.structure !== undefined) {
    if (!isObj(d.structure)) err(`${key}.structure`, `expected a mapping, found ${describeType(d.structure)}`);
    else {
      const map: Record<string, string> = { question_key: "questionKey", answer_key: "answerKey", generated_answer_key: "generatedAnswerKey", trajectory_key: "trajectoryKey" };
      for (const [k, v] of Object.entries(d.structure)) {
        if (k in map) {
          if (typeof v !== "string" || v.trim() === "") err(`${key}.structure.${k}`, `expected a key name, found ${describeType(v)}`);
          else structure[map[k]!] = v;
        } else if (k === "expected_trajectory_key") ignored.push(`${key}.structure.${k}`);
        else if (k === "disable") {
          if (v === true) err(`${key}.structure.disable`, "unstructured datasets (disable: true) are not supported");
        } else err(`${key}.structure.${k}`, "unknown key; expected question_key, answer_key, generated_answer_key, trajectory_key, expected_trajectory_key or disable");
      }
    }
  }
  out.structure = structure;
}

function judgeFromLlm(name: unknown, llms: Obj, key: string, err: (k: string, m: string) => void, ignored: string[]): Obj | undefined {
  if (name === undefined) return undefined;
  if (typeof name !== "string" || !name) {
    err(key, `expected the name of an entry of llms, found ${describeType(name)}`);
    return undefined;
  }
  const llm = llms[name];
  if (!isObj(llm)) {
    err(key, `names no entry of llms (${Object.keys(llms).join(", ") || "llms is empty"})`);
    return undefined;
  }
  const at = `llms.${name}`;
  for (const k of Object.keys(llm)) {
    if (["_type", "model_name", "model", "base_url", "max_tokens", "temperature"].includes(k)) continue;
    if (LLM_IGNORED.includes(k)) {
      if (!ignored.includes(`${at}.${k}`)) ignored.push(`${at}.${k}`);
    } else err(`${at}.${k}`, "unknown key; expected _type, model_name, base_url, max_tokens, temperature");
  }
  const type = llm._type;
  if (type !== "nim" && type !== "openai") {
    err(`${at}._type`, `expected nim or openai (an OpenAI-compatible endpoint), found ${JSON.stringify(type)}`);
    return undefined;
  }
  const model = llm.model_name ?? llm.model;
  if (typeof model !== "string" || !model) {
    err(`${at}.model_name`, "missing: the judge model");
    return undefined;
  }
  const judge: Obj = { kind: "openai", baseUrl: llm.base_url ?? DEFAULT_BASE_URL[type], model };
  if (llm.temperature !== undefined) judge.temperature = llm.temperature;
  if (llm.max_tokens !== undefined) judge.maxTokens = llm.max_tokens;
  return judge;
}

function storeFolder(name: string, store: unknown, key: string, err: (k: string, m: string) => void, ignored: string[]): string {
  if (store === undefined) return name;
  if (!isObj(store)) {
    err(key, `expected a mapping, found ${describeType(store)}`);
    return name;
  }
  if (store._type === "local" || store._type === "file") {
    if (typeof store.path !== "string" || !store.path) err(`${key}.path`, "missing: the folder holding the reports");
    return typeof store.path === "string" ? store.path : name;
  }
  // A live store (s3, minio, redis…): offline, its objects are expected in a folder of its name.
  ignored.push(`${key} (read from the folder ./${name})`);
  return name;
}

/**
 * One NAT evaluator block in Agentboard's shape, or undefined (errors recorded). `judgeOf`
 * turns an `llm_name` into a judge; without one the judge is left to the caller's default.
 */
export function translateNatEvaluator(e: unknown, key: string, err: (k: string, m: string) => void, ignored: string[], judgeOf?: (llmKey: string, llmName: unknown) => Obj | undefined): Obj | undefined {
  if (!isObj(e)) {
    err(key, `expected a mapping with _type, found ${describeType(e)}`);
    return undefined;
  }
  const type = e._type;
  if (typeof type !== "string" || !(type in NAT_EVALUATOR_TYPES)) {
    err(`${key}._type`, `${type === undefined ? "missing" : JSON.stringify(type) + " is not supported"}; expected one of ${Object.keys(NAT_EVALUATOR_TYPES).join(", ")}`);
    return undefined;
  }
  const kind = NAT_EVALUATOR_TYPES[type as NatEvaluatorType];
  const out: Obj = { type: kind };
  const allowed: Record<string, string | null> = { _type: null, evaluation_method_id: "methodId" };
  if (kind !== "report") Object.assign(allowed, { llm_name: null, max_retries: "maxRetries", llm_judge_reasoning: "judgeReasoning" });
  if (kind === "qa") allowed.custom_prompt_template = null;
  if (kind === "trajectory") Object.assign(allowed, { track_agent_selected_tools_only: "agentSelectedToolsOnly", custom_prompt_template_with_reference: null, custom_prompt_template_without_reference: null, tool_schemas_file: "toolSchemas" });
  if (kind === "report") Object.assign(allowed, { eval_metrics_config_path: "metrics", reference_base_dir: "referenceBaseDir", object_store: null, report_url_pattern: "reportUrlPattern", include_vlm_output: "includeVlmOutput", vlm_related_fields: "vlmFields", metric_configs: null });
  for (const [k, v] of Object.entries(e)) {
    if (!(k in allowed)) {
      err(`${key}.${k}`, `unknown key for ${type}; expected ${Object.keys(allowed).filter((a) => a !== "_type").join(", ")}`);
      continue;
    }
    const to = allowed[k];
    if (to) out[to] = v;
  }
  if (kind === "qa" && e.custom_prompt_template !== undefined) out.prompt = e.custom_prompt_template;
  if (kind === "trajectory") {
    const prompts: Obj = {};
    if (e.custom_prompt_template_with_reference !== undefined) prompts.withReference = e.custom_prompt_template_with_reference;
    if (e.custom_prompt_template_without_reference !== undefined) prompts.withoutReference = e.custom_prompt_template_without_reference;
    out.prompts = prompts;
  }
  if (kind !== "report" && judgeOf) {
    const judge = judgeOf("llm_name", e.llm_name);
    if (judge) out.judge = judge;
  }
  if (kind === "report") {
    if (e.vlm_related_fields === null) delete out.vlmFields;
    if (e.object_store !== undefined) {
      if (typeof e.object_store !== "string" || !e.object_store) err(`${key}.object_store`, `expected the name of an object store, found ${describeType(e.object_store)}`);
      else out.objectStoreName = e.object_store;
    }
    readMetricConfigs(e.metric_configs, out, `${key}.metric_configs`, err, ignored, judgeOf);
  }
  return out;
}

function readMetricConfigs(raw: unknown, out: Obj, key: string, err: (k: string, m: string) => void, ignored: string[], judgeOf?: (llmKey: string, llmName: unknown) => Obj | undefined): void {
  if (raw === undefined) return;
  if (!isObj(raw)) return err(key, `expected a mapping of metric names, found ${describeType(raw)}`);
  for (const [metric, cfg] of Object.entries(raw)) {
    if (metric !== "llm_judge") {
      if (["exact_match", "f1", "regex", "non_empty"].includes(metric)) ignored.push(`${key}.${metric}`);
      else err(`${key}.${metric}`, "unknown metric; expected llm_judge (exact_match, f1, regex and non_empty take no settings)");
      continue;
    }
    if (!isObj(cfg)) {
      err(`${key}.llm_judge`, `expected a mapping, found ${describeType(cfg)}`);
      continue;
    }
    const prompts: Obj = {};
    for (const [k, v] of Object.entries(cfg)) {
      if (k === "llm_name") continue;
      if (k === "max_retries") out.maxRetries = v;
      else if (k === "llm_judge_reasoning") out.judgeReasoning = v;
      else if (k === "single_field_comparison_prompt") prompts.field = v;
      else if (k === "multi_field_discovery_prompt") prompts.discovery = v;
      else err(`${key}.llm_judge.${k}`, "unknown key; expected llm_name, max_retries, llm_judge_reasoning, single_field_comparison_prompt, multi_field_discovery_prompt");
    }
    out.prompts = prompts;
    if (judgeOf) {
      const judge = judgeOf("metric_configs.llm_judge.llm_name", cfg.llm_name);
      if (judge) out.judge = judge;
    }
  }
}

/** Zod's view of a NAT evaluator block: translated first, so one schema checks both shapes. */
export function natEvaluatorPreprocess(v: unknown, ctx: z.RefinementCtx): unknown {
  if (!isObj(v) || !("_type" in v)) return v;
  const errors: string[] = [];
  const out = translateNatEvaluator(v, "", (k, m) => errors.push(`${k.replace(/^\./, "")}: ${m}`), []);
  // Outside a NAT config there is no `llms:` section for llm_name to name: running the rules
  // judge in its place would score with another judge than the one asked for, without a word.
  const judge = isObj(v.metric_configs) && isObj(v.metric_configs.llm_judge) ? v.metric_configs.llm_judge : {};
  for (const [key, name] of [["llm_name", v.llm_name], ["metric_configs.llm_judge.llm_name", judge.llm_name]] as const) {
    if (name !== undefined) errors.push(`${key}: ${JSON.stringify(name)} names an entry of a NAT config's llms:, which this file has none of; remove it and give the judge with type: ${NAT_EVALUATOR_TYPES[v._type as NatEvaluatorType] ?? "qa"} and judge: {kind: openai, baseUrl, model} (or AGENTBOARD_JUDGE_BASE_URL and AGENTBOARD_JUDGE_MODEL), or evaluate the whole NAT config`);
  }
  for (const e of errors) ctx.addIssue({ code: "custom", message: e });
  if (!out) return z.NEVER;
  delete out.objectStoreName;
  return out;
}
