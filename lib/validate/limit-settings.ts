/**
 * The validation budgets an operator may change without code: the environment's settings,
 * read by the caller (the CLI, the worker, intake) and checked when it starts, so a wrong
 * value is one clear message rather than a budget silently left at its default. The engine
 * reads no environment itself: the caller passes its environment here and the result on as
 * `ValidateOptions.limits`.
 *
 * - AGENTBOARD_VALIDATE_MAX_ERRORS: the error budget (limits.maxErrors, default 10,000).
 * - AGENTBOARD_VALIDATE_MAX_RECORDS: records in all files of all trials (limits.maxRecords, default 2,000,000).
 */
import type { ValidationLimits } from "./limits";

export class LimitSettingsError extends Error {
  override readonly name = "LimitSettingsError";
}

/** Each setting and the limit it sets. */
export const LIMIT_SETTINGS = {
  AGENTBOARD_VALIDATE_MAX_ERRORS: "maxErrors",
  AGENTBOARD_VALIDATE_MAX_RECORDS: "maxRecords",
} as const satisfies Record<string, keyof ValidationLimits>;

/** The limits the environment sets (only those it sets); a wrong value throws LimitSettingsError naming it. */
export function validationLimitsFromEnv(env: Readonly<Record<string, string | undefined>>): Partial<ValidationLimits> {
  const out: Partial<ValidationLimits> = {};
  for (const [name, limit] of Object.entries(LIMIT_SETTINGS)) {
    const raw = env[name]?.trim();
    if (raw === undefined || raw === "") continue;
    const n = Number(raw);
    if (!(/^\d+$/.test(raw) && Number.isSafeInteger(n) && n >= 1)) throw new LimitSettingsError(`${name} must be a whole number of 1 or more (limits.${limit}), not ${JSON.stringify(raw.slice(0, 40))}`);
    out[limit] = n;
  }
  return out;
}
