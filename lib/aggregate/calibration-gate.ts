/**
 * `judge.minKappa`: a run graded by an LLM judge is published only when that judge (the same
 * id and the same prompt templates) has a stored calibration on the benchmark version whose
 * pooled pass/fail κ is at least the bar. The reason a run is held says what is missing, for
 * /admin and the audit log. One rule, read by the writer (lib/submissions, which holds and
 * releases) and the read side (lib/queries, which shows why an entry waits).
 */
import { promptHashesDigest } from "./calibration-report";

export interface StoredCalibrationHeadline {
  id: number;
  judgeId: string;
  promptDigest: string;
  n: number;
  kappa: number | null;
}

export interface GatedRun {
  /** The run's judge kind: `rules` is no LLM and is never held; a `panel` is held as one judge (its own calibration). */
  judgeKind: string;
  /** Where the judge asks (the manifest's endpoint class): a panel of deterministic members asks nowhere and is never held. */
  endpoint?: "none" | "local" | "remote";
  judgeId: string | null;
  /** The prompt-template hashes its manifest records; null for a run without a manifest. */
  promptHashes: Readonly<Record<string, string>> | null;
}

const fmt = (k: number) => (Math.round(k * 100) / 100).toFixed(2);

/** A panel grades as one judge (its rule over its members' grades), so its calibration is the panel's own. */
const asksAnLlm = (run: GatedRun) => run.judgeKind === "openai" || (run.judgeKind === "panel" && run.endpoint !== "none");

/** Why the run may not be published yet, or null when it may. */
export function calibrationHold(minKappa: number | undefined, run: GatedRun, calibrations: readonly StoredCalibrationHeadline[]): string | null {
  if (minKappa === undefined || !asksAnLlm(run)) return null;
  const judge = run.judgeId ?? "the run's";
  const digest = run.promptHashes ? promptHashesDigest(run.promptHashes) : null;
  const found = calibrations.find((c) => c.judgeId === run.judgeId && c.promptDigest === digest);
  if (!found) return `the ${judge} judge has no stored calibration for this benchmark version and its prompts; judge.minKappa asks for κ ≥ ${fmt(minKappa)} (agentboard calibrate --store)`;
  if (found.kappa === null) return `the ${judge} judge's calibration has no κ (no judged pass/fail cases, or a single class on both sides); judge.minKappa asks for κ ≥ ${fmt(minKappa)}`;
  if (found.kappa < minKappa) {
    // Two decimals, unless they would print the bar itself.
    const shown = fmt(found.kappa) === fmt(minKappa) ? found.kappa.toFixed(4) : fmt(found.kappa);
    return `the ${judge} judge's calibration shows κ ${shown} on ${found.n} labelled cases, below judge.minKappa ${fmt(minKappa)}`;
  }
  return null;
}
