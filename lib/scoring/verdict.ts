/** One verdict shape for every stage and every judge. */
export type StageName = "policy" | "exact" | "correctness" | "groundedness";

export type Outcome =
  /** The stage passed (score 1 for judges). */
  | "pass"
  /** The stage failed (score 0 for judges). */
  | "fail"
  /** The stage did not run: not applicable or not reached. */
  | "skipped"
  /** A policy text that maps to no rule: counted, never treated as a pass. */
  | "unchecked"
  /** The judge failed after its retries. */
  | "error";

export interface Verdict {
  stage: StageName;
  turnId: number;
  outcome: Outcome;
  /** 0..1 where the stage produces a score, null otherwise. */
  score: number | null;
  explanation: string;
  /** `program` for deterministic stages, else the judge id (`rules`, `openai:<model>`). */
  judge: string;
  promptHash: string | null;
  cacheHit: boolean;
  latencyMs: number;
}

export function verdict(v: Omit<Verdict, "promptHash" | "cacheHit" | "latencyMs"> & Partial<Pick<Verdict, "promptHash" | "cacheHit" | "latencyMs">>): Verdict {
  return { promptHash: null, cacheHit: false, latencyMs: 0, ...v };
}
