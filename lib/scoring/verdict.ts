/** One verdict shape for every stage of the waterfall and every judge. */
import type { PanelMark } from "../judges/grader";

export type StageName = "policy" | "exact" | "correctness" | "groundedness";

export type VerdictOutcome =
  /** The stage passed (score 1 for judges). */
  | "pass"
  /** The stage failed (score 0 for judges). */
  | "fail"
  /** The stage did not run: not applicable or not reached. */
  | "skipped"
  /** A policy text that maps to no rule: counted, never treated as a pass. */
  | "unchecked"
  /** The judge could not judge (after its retries). */
  | "error";

/** The policy verdict of an item: what the policy stage of its last scored turn said. */
export type PolicyOutcome = VerdictOutcome;

export interface Verdict {
  stage: StageName;
  turnId: number;
  outcome: VerdictOutcome;
  /** 0..1 where the stage produces a score, null otherwise. */
  score: number | null;
  /** Public: why, without quoting the ground truth. */
  reason: string;
  /** Private: compared values, the judge's own words; shown only where ground truth is public. */
  detail: string | null;
  /** `program` for deterministic stages, else the judge id (`rules`, `openai:<model>`). */
  judge: string;
  promptHash: string | null;
  cacheHit: boolean;
  latencyMs: number;
  /** A panel's grade: its decision key, whether the judges disagreed, whether a maintainer decided it (panel-grader.ts). */
  panel?: PanelMark;
}

type VerdictInput = Omit<Verdict, "promptHash" | "cacheHit" | "latencyMs" | "detail"> & Partial<Pick<Verdict, "promptHash" | "cacheHit" | "latencyMs" | "detail">>;

export function verdict(v: VerdictInput): Verdict {
  return { promptHash: null, cacheHit: false, latencyMs: 0, detail: null, ...v };
}
