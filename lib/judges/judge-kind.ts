/** The judges a benchmark, a flag or the environment can name (docs/judges.md). */
export type JudgeKind = "rules" | "literal" | "openai" | "verdicts" | "panel";

/** The judges that ask no model: offline, free, the same on every run, never reading a prompt. */
export const DETERMINISTIC_JUDGES: readonly JudgeKind[] = ["rules", "literal"];

export const isDeterministicJudge = (kind: string): boolean => (DETERMINISTIC_JUDGES as readonly string[]).includes(kind);
