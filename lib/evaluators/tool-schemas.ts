/**
 * The agent's tool schemas, for trajectories without a reference: read from a JSON list of
 * `{name, description, parameters}` or OpenAI's `{type: "function", function: {...}}`;
 * shown to an LLM judge, or checked call by call by the offline one.
 */
import type { ToolCallStep } from "../formats/eval-tool-calls";
import { pythonJsonDumps } from "../formats/python-str";

export interface ToolSchema {
  name: string;
  description: string;
  /** JSON Schema of the parameters. */
  parameters: { properties?: Record<string, unknown>; required?: string[]; additionalProperties?: unknown } | null;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

export type ToolSchemasResult = { ok: true; tools: ToolSchema[] } | { ok: false; errors: string[] };

export function readToolSchemas(value: unknown): ToolSchemasResult {
  const list = Array.isArray(value) ? value : isObj(value) && Array.isArray(value.tools) ? value.tools : undefined;
  if (!list) return { ok: false, errors: ["$: expected a list of tools (or {\"tools\": [...]}), each {name, description, parameters}"] };
  const tools: ToolSchema[] = [];
  const errors: string[] = [];
  list.forEach((t: unknown, i: number) => {
    const fn = isObj(t) && isObj(t.function) ? t.function : t;
    if (!isObj(fn) || typeof fn.name !== "string" || fn.name === "") {
      errors.push(`$[${i}]: a tool needs a non-empty "name"`);
      return;
    }
    const params = fn.parameters ?? fn.input_schema ?? fn.inputSchema ?? null;
    if (params !== null && !isObj(params)) {
      errors.push(`$[${i}].parameters: expected a JSON Schema object`);
      return;
    }
    const required = isObj(params) && Array.isArray(params.required) ? params.required.filter((r): r is string => typeof r === "string") : undefined;
    tools.push({
      name: fn.name,
      description: typeof fn.description === "string" ? fn.description : "",
      parameters: isObj(params) ? { ...(isObj(params.properties) ? { properties: params.properties } : {}), ...(required ? { required } : {}), additionalProperties: params.additionalProperties } : null,
    });
  });
  return errors.length ? { ok: false, errors } : { ok: true, tools };
}

/** The tools as NAT lists them for its judge: `Tool i: name`, description, parameters as JSON. */
export function formatToolSchemas(tools: readonly ToolSchema[]): string {
  if (tools.length === 0) return "No tools available for the agent.";
  return tools.map((t, i) => `Tool ${i + 1}: ${t.name}\nDescription: ${t.description}\nParameters: ${pythonJsonDumps(t.parameters ?? {})}`).join("\n\n");
}

export interface SchemaCheck {
  score: number;
  problems: string[];
  checked: number;
}

/**
 * Each call conforms when its tool exists, its required parameters are present, and it passes
 * no parameter the schema does not declare (unless the schema allows extra ones).
 */
export function checkCallsAgainstSchemas(calls: readonly ToolCallStep[], tools: readonly ToolSchema[]): SchemaCheck {
  const byName = new Map(tools.map((t) => [t.name, t]));
  const problems: string[] = [];
  let conforming = 0;
  calls.forEach((c, i) => {
    const at = `call ${i + 1} (${c.name}, step ${c.step})`;
    const tool = byName.get(c.name);
    if (!tool) {
      problems.push(`${at}: no such tool`);
      return;
    }
    const own: string[] = [];
    const props = tool.parameters?.properties;
    for (const r of tool.parameters?.required ?? []) if (!(r in c.params)) own.push(`missing required parameter "${r}"`);
    if (props && tool.parameters?.additionalProperties !== true) for (const k of Object.keys(c.params)) if (!(k in props)) own.push(`unknown parameter "${k}"`);
    if (own.length) problems.push(`${at}: ${own.join(", ")}`);
    else conforming++;
  });
  // No calls is not a sound trajectory: an item routed to trajectory evaluation expects tool use.
  return { score: calls.length ? conforming / calls.length : 0, problems, checked: calls.length };
}
