/** The CLI's side of the one judge factory: its errors are usage errors (exit 2). */
import type { Grader } from "../../lib/judges/grader";
import { checkJudgeEnvironment, createGrader, JudgeSettingsError, resolveJudgeSettings, type JudgeSettings, type JudgeSources } from "../../lib/judges/judge-settings";
import { usageError } from "./cli-errors";

export function judgeSettingsOrFail(sources: JudgeSources, prefix = ""): JudgeSettings {
  try {
    return resolveJudgeSettings(sources);
  } catch (err) {
    if (err instanceof JudgeSettingsError) throw usageError(`${prefix}${err.message}`);
    throw err;
  }
}

/** The judge built from its settings; a verdict file that cannot be used is a usage error too. */
export function graderOrFail(settings: JudgeSettings, deps: Parameters<typeof createGrader>[1]): Grader {
  try {
    return createGrader(settings, deps);
  } catch (err) {
    if (err instanceof JudgeSettingsError) throw usageError(err.message);
    throw err;
  }
}

/** The judge settings a worker reads from its environment, checked when it starts (each job's judge is built later). */
export function judgeEnvironmentOrFail(env: Readonly<Record<string, string | undefined>> = process.env): void {
  try {
    checkJudgeEnvironment(env);
  } catch (err) {
    if (err instanceof JudgeSettingsError) throw usageError(err.message);
    throw err;
  }
}
