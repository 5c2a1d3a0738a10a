/**
 * Agentboard's own prompts for the graded evaluators (NAT's defaults are not reused: a config
 * without templates gets these), and the template rules. A template is
 * the user message: `{name}` is a placeholder, `{{` and `}}` are literal braces (as in
 * Python's str.format, so existing templates carry over). The system message fixes the
 * reply format, so a custom template only has to say what to judge. Every placeholder's
 * value goes in as a data block (`judges/data-blocks.ts`), whatever the template: answers,
 * trajectories and report fields are the submitter's text, and the system message says
 * that text inside the blocks is data, never instructions.
 */
import { dataBlocks, dataRule } from "../judges/data-blocks";
import type { JudgeStyle } from "../judges/grader";
import type { ChatMessage } from "../judges/prompts";

export const SCORE_SYSTEM =
  "You are a strict, consistent grader of an AI agent's work. Read the material in the user message and judge only what it asks you to judge. " +
  "Scores run from 0 to 1: 1 means fully right, 0 means wrong or absent, values in between mean partly right; use two decimals at most. " +
  'If the user message asks for a reply format, use it; otherwise reply with one JSON object and nothing else: {"score": <number from 0 to 1>, "reasoning": "<one or two sentences naming what decided the score>"}.';

export const DISCOVERY_SYSTEM =
  "You line up fields of a generated report with the fields of a reference report and grade each one. " +
  "For every generated field, pick the single reference field that holds the same kind of information, or null when none does; never use a reference field twice. " +
  "Grade the generated value against the chosen reference value from 0 to 1 by meaning, not wording; a field with no counterpart gets 0. " +
  'Reply with one JSON object and nothing else: {"<generated field>": {"reference_field": "<reference field name>" | null, "score": <0 to 1>, "reasoning": "<short>"}, ...}, with every generated field as a key.';

export const DEFAULT_QA_TEMPLATE = `Grade the agent's answer to the question against the reference answer.
- Correctness: every fact the answer states must agree with the reference; a contradiction of a key fact means a low score.
- Completeness: the answer must give every fact the reference gives; missing facts lower the score in proportion.
- Equivalence: judge meaning, not form. Paraphrase, word order, units written out and extra harmless detail are fine.
An answer that refuses, hedges between options or says the information is unavailable scores 0.

Question:
{question}

Reference answer:
{reference}

Agent answer:
{answer}`;

export const DEFAULT_TRAJECTORY_REFERENCE_TEMPLATE = `Grade the agent's tool use against the reference tool calls for this question.
Calls sharing a step number ran in parallel, so their order within the step does not matter; steps must follow the reference order where a later call depends on an earlier one.
Judge whether the agent called the right tools with equivalent parameters, in a workable order, without needless or harmful calls. Extra calls that only gather context cost a little; a missing or wrong call the answer depends on costs a lot.

Question:
{question}

Reference tool calls:
{reference}

Agent tool calls:
{agent_trajectory}

Automatic comparison (names, parameters, order):
{comparison}

Agent's final answer:
{answer}`;

export const DEFAULT_TRAJECTORY_FREE_TEMPLATE = `There are no reference tool calls for this question. Grade whether the agent's tool use was sound on its own terms.
Consider: did it pick tools that fit the request, given the tool descriptions below; were the parameters valid and sensible; did it avoid redundant, looping or irrelevant calls; does the final answer follow from what the tools returned; did it take earlier turns of the conversation into account.

Available tools:
{tool_schemas}

Earlier turns of the conversation:
{conversation_history}

Question:
{question}

Agent trajectory (each action, its input and what it returned):
{agent_trajectory}

Agent's final answer:
{answer}`;

export const DEFAULT_FIELD_TEMPLATE = `Grade one field of a generated report against the same field of the reference report.
Judge by meaning: the same facts, counts, times and names in other words score high; missing, extra-but-wrong or contradicting facts lower the score.

{field_context}

Reference value:
{reference}

Generated value:
{actual}`;

export const DEFAULT_DISCOVERY_TEMPLATE = `Reference fields (name: value):
{reference_section}

Generated fields to line up and grade (name: value):
{actual_fields}`;

export interface TemplateSpec {
  /** Placeholders the template may use. */
  allowed: readonly string[];
  /** Placeholders it must use, or it cannot judge anything. */
  required: readonly string[];
}

export const TEMPLATE_SPECS = {
  qa: { allowed: ["question", "answer", "reference"], required: ["answer", "reference"] },
  trajectoryWithReference: { allowed: ["question", "reference", "agent_trajectory", "answer", "comparison"], required: ["reference", "agent_trajectory"] },
  trajectoryWithoutReference: { allowed: ["question", "agent_trajectory", "answer", "tool_schemas", "conversation_history"], required: ["agent_trajectory"] },
  field: { allowed: ["field_context", "reference", "actual"], required: ["reference", "actual"] },
  discovery: { allowed: ["reference_section", "actual_fields"], required: ["reference_section", "actual_fields"] },
} satisfies Record<string, TemplateSpec>;

const PLACEHOLDER = /\{\{|\}\}|\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/** Problems with a template: unknown or missing placeholders. Empty when it is usable. */
export function checkTemplate(template: string, spec: TemplateSpec): string[] {
  const used = new Set<string>();
  for (const m of template.matchAll(PLACEHOLDER)) if (m[1]) used.add(m[1]);
  const problems: string[] = [];
  for (const u of used) if (!spec.allowed.includes(u)) problems.push(`unknown placeholder {${u}}; this template may use ${spec.allowed.map((a) => `{${a}}`).join(", ")}`);
  for (const r of spec.required) if (!used.has(r)) problems.push(`the template never uses {${r}}`);
  return problems;
}

export function renderTemplate(template: string, vars: Record<string, string>): string {
  return template.replace(PLACEHOLDER, (whole, name: string | undefined) => {
    if (whole === "{{") return "{";
    if (whole === "}}") return "}";
    return name !== undefined && name in vars ? vars[name]! : whole;
  });
}

export type { JudgeStyle } from "../judges/grader";

/** A template rendered with every value in a data block, under a system message naming the blocks. */
function fencedMessages(system: string, template: string, vars: Record<string, string>, style: JudgeStyle): ChatMessage[] {
  if (style === "nat") return [{ role: "user", content: renderTemplate(template, vars) }];
  const { nonce, blocks } = dataBlocks(vars);
  return [
    { role: "system", content: `${system} ${dataRule(nonce)}` },
    { role: "user", content: renderTemplate(template, blocks) },
  ];
}

export function scoreMessages(template: string, vars: Record<string, string>, style: JudgeStyle = "agentboard"): ChatMessage[] {
  return fencedMessages(SCORE_SYSTEM, template, vars, style);
}

export function discoveryMessages(template: string, vars: Record<string, string>, style: JudgeStyle = "agentboard"): ChatMessage[] {
  return fencedMessages(DISCOVERY_SYSTEM, template, vars, style);
}
