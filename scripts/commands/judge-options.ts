/** The CLI's side of the one judge factory: its errors are usage errors (exit 2). */
import { JudgeSettingsError, resolveJudgeSettings, type JudgeSettings, type JudgeSources } from "../../lib/scoring/judges/judge-settings";
import { usageError } from "./cli-errors";

export function judgeSettingsOrFail(sources: JudgeSources, prefix = ""): JudgeSettings {
  try {
    return resolveJudgeSettings(sources);
  } catch (err) {
    if (err instanceof JudgeSettingsError) throw usageError(`${prefix}${err.message}`);
    throw err;
  }
}
