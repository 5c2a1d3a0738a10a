/**
 * What an agent spent on a dialogue (or, in the bundle's metadata, on the whole run): tokens
 * and cost. Read from a `usage` object in either of the two spellings agents log:
 * `input_tokens`/`output_tokens` or OpenAI's `prompt_tokens`/`completion_tokens`, with
 * `total_tokens` when only the sum is known, and `cost_usd` (or `cost`) in US dollars.
 * Other keys are ignored: usage never changes a score, so a bad value is a warning, not an error.
 */
import { childPath, describeType, preview } from "./diagnostic";
import { numberValue } from "./lossless-json";

export interface Usage {
  inputTokens: number | null;
  outputTokens: number | null;
  /** input + output when both are known, else `total_tokens` as written. */
  totalTokens: number | null;
  costUsd: number | null;
}

/**
 * Bounds of one usage object: far above any real dialogue or run, low enough that the sum over
 * a bundle's 100,000 records stays an exact integer (below 2^53) and a page never shows 1e308.
 */
export const MAX_USAGE_TOKENS = 10_000_000_000;
export const MAX_USAGE_COST_USD = 1_000_000;

const FIELDS: { field: keyof Usage; keys: readonly string[]; tokens: boolean }[] = [
  { field: "inputTokens", keys: ["input_tokens", "prompt_tokens"], tokens: true },
  { field: "outputTokens", keys: ["output_tokens", "completion_tokens"], tokens: true },
  { field: "totalTokens", keys: ["total_tokens"], tokens: true },
  { field: "costUsd", keys: ["cost_usd", "cost"], tokens: false },
];

export type UsageWarning = { path: string; message: string };

/**
 * A usage object, or null when there is none or it is not an object (with a warning). A field
 * that is present but not a number within its bounds (tokens: a whole number) is left out with
 * a warning naming its JSON path; the first of a field's spellings present is the one read.
 */
export function readUsage(raw: unknown, path: string, warn: (w: UsageWarning) => void): Usage | null {
  if (raw === undefined || raw === null) return null;
  if (typeof raw !== "object" || Array.isArray(raw)) {
    warn({ path, message: `expected a usage object ({input_tokens, output_tokens, total_tokens, cost_usd}), found ${describeType(raw)}; ignored` });
    return null;
  }
  const obj = raw as Record<string, unknown>;
  const out: Usage = { inputTokens: null, outputTokens: null, totalTokens: null, costUsd: null };
  for (const { field, keys, tokens } of FIELDS) {
    const key = keys.find((k) => Object.hasOwn(obj, k));
    if (key === undefined || obj[key] === null) continue;
    const at = childPath(path, key);
    const n = numberValue(obj[key]);
    const max = tokens ? MAX_USAGE_TOKENS : MAX_USAGE_COST_USD;
    if (n === undefined || !Number.isFinite(n) || n < 0) {
      const found = n === undefined ? describeType(obj[key]) : preview(n);
      warn({ path: at, message: `expected a non-negative ${tokens ? "whole number of tokens" : "number of US dollars"}, found ${found}; ignored` });
    } else if (tokens && !Number.isInteger(n)) warn({ path: at, message: `expected a whole number of tokens, found ${preview(n)}; ignored` });
    else if (n > max) warn({ path: at, message: `${preview(n)} is above the ${tokens ? "token" : "dollar"} bound of one usage object (${max.toLocaleString("en-US")}); ignored` });
    else out[field] = n;
  }
  if (out.inputTokens !== null && out.outputTokens !== null) {
    const sum = out.inputTokens + out.outputTokens;
    if (out.totalTokens !== null && out.totalTokens !== sum) {
      warn({ path: childPath(path, "total_tokens"), message: `total_tokens (${out.totalTokens}) is not input + output tokens (${sum}); the sum is used` });
    }
    out.totalTokens = sum;
  }
  return Object.values(out).every((v) => v === null) ? null : out;
}
