/**
 * A question plan: the query, the tool calls that answer it (each built from the responses
 * before it, so handles and ids are the environment's own), and how the answer is read off
 * the responses. Executed through a real MCP session.
 */
import type { AnswerValue } from "../../lib/formats/dialogue";
import type { ToolSession } from "../../lib/replay/mcp-session";

export interface Step {
  name: string;
  args: (prev: unknown[]) => Record<string, unknown>;
}

export interface Plan {
  query: string;
  steps: Step[];
  /** The answer from the responses, or undefined when they do not hold one. */
  answer: (responses: unknown[]) => AnswerValue | undefined;
}

export interface ExecutedTurn {
  calls: { name: string; arguments: Record<string, unknown> }[];
  responses: unknown[];
  answer: AnswerValue | undefined;
}

/** Runs a plan's steps in order; `context` holds responses made before it (the prelude). */
export async function executePlan(session: ToolSession, plan: Plan, context: unknown[] = []): Promise<ExecutedTurn> {
  const calls: ExecutedTurn["calls"] = [];
  const responses: unknown[] = [];
  for (const step of plan.steps) {
    const args = step.args([...context, ...responses]);
    calls.push({ name: step.name, arguments: args });
    responses.push(await session.call(step.name, args, 10_000));
  }
  let answer: AnswerValue | undefined;
  try {
    answer = plan.answer(responses);
  } catch {
    answer = undefined;
  }
  return { calls, responses, answer };
}

// Readers for response shapes of the demo environment.
type Row = Record<string, unknown>;
const asRows = (r: unknown): Row[] => (Array.isArray(r) ? (r as Row[]) : []);
export const last = (prev: unknown[]) => prev[prev.length - 1];
export const handleOf = (r: unknown) => {
  const h = (r as { handle?: unknown })?.handle;
  if (typeof h !== "string") throw new Error(`expected a data handle, got ${JSON.stringify(r)?.slice(0, 120)}`);
  return h;
};
export const firstRow = (r: unknown): Row => {
  if (Array.isArray(r)) return (r[0] ?? {}) as Row;
  return (r ?? {}) as Row;
};
export const field = (r: unknown, key: string): AnswerValue | undefined => {
  const v = (r as Row | null)?.[key];
  return typeof v === "string" || typeof v === "number" ? v : undefined;
};
export const rowCount = (r: unknown) => asRows(r).length;
export const cell = (v: AnswerValue | undefined): AnswerValue | undefined => (v === undefined || v === null ? undefined : [[v]]);
