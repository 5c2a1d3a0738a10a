/**
 * The exact messages an LLM grader sends for a request, and their hash: the OpenAI grader asks
 * with them, and the verdicts grader rebuilds them to find the grade a run exported.
 */
import { sha256 } from "../formats/sha256";
import type { GradeRequest } from "./grader";
import { buildPrompt, type ChatMessage } from "./prompts";
import { thinkingTag } from "./thinking";

/**
 * The messages a request sends to `model`: our prompts for the waterfall's verdicts, the
 * evaluator's own messages otherwise (with the model's thinking switch). The verdicts grader
 * builds them the same way to find an exported grade.
 */
export function gradePrompt(req: GradeRequest, model: string): ChatMessage[] {
  return req.kind === "correctness" || req.kind === "groundedness" ? buildPrompt(req) : withTag(req.messages, req.thinking, model);
}

export const promptHashOf = (messages: ChatMessage[]): string => sha256(JSON.stringify(messages));

/** The model's thinking switch first, when the request says whether to think and the model has one. */
function withTag(messages: ChatMessage[], thinking: boolean | undefined, model: string): ChatMessage[] {
  const tag = thinking === undefined ? null : thinkingTag(model, thinking);
  return tag ? [{ role: "system", content: tag }, ...messages] : messages;
}

