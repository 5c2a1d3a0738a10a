/**
 * What an agent spent on a dialogue (or, in the bundle's metadata, on the whole run): tokens
 * and cost. Read from a `usage` object in either of the two spellings agents log:
 * `input_tokens`/`output_tokens` or OpenAI's `prompt_tokens`/`completion_tokens`, with
 * `total_tokens` when only the sum is known, and `cost_usd` (or `cost`) in US dollars.
 * Unknown keys are ignored: usage never changes a score.
 */
import { describeType } from "./diagnostic";
import { numberValue } from "./lossless-json";

export interface Usage {
  inputTokens: number | null;
  outputTokens: number | null;
  /** input + output when both are known, else `total_tokens` as written. */
  totalTokens: number | null;
  costUsd: number | null;
}

const FIELDS = {
  inputTokens: ["input_tokens", "prompt_tokens"],
  outputTokens: ["output_tokens", "completion_tokens"],
  totalTokens: ["total_tokens"],
  costUsd: ["cost_usd", "cost"],
} as const;

export type UsageWarning = { path: string; message: string };

/**
 * A usage object, or null with the reason when it is not one. A field that is present but not
 * a finite non-negative number is left out with a warning naming its JSON path.
 */
export function readUsage(raw: unknown, path: string, warn: (w: UsageWarning) => void): Usage | null {
  if (raw === undefined || raw === null) return null;
  if (typeof raw !== "object" || Array.isArray(raw)) {
    warn({ path, message: `expected a usage object ({input_tokens, output_tokens, cost_usd}), found ${describeType(raw)}; ignored` });
    return null;
  }
  const obj = raw as Record<string, unknown>;
  const out: Usage = { inputTokens: null, outputTokens: null, totalTokens: null, costUsd: null };
  for (const [field, keys] of Object.entries(FIELDS) as [keyof Usage, readonly string[]][]) {
    const key = keys.find((k) => k in obj);
    if (key === undefined || obj[key] === null) continue;
    const n = numberValue(obj[key]);
    if (n !== undefined && Number.isFinite(n) && n >= 0) out[field] = n;
    else warn({ path: `${path}.${key}`, message: `expected a non-negative number, found ${describeType(obj[key])}; ignored` });
  }
  if (out.inputTokens !== null && out.outputTokens !== null) out.totalTokens = out.inputTokens + out.outputTokens;
  const empty = Object.values(out).every((v) => v === null);
  return empty ? null : out;
}
