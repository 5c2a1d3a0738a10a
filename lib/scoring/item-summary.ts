/**
 * An item as a run that only prints figures keeps it. Aggregation, the manifest's digests and
 * the integrity checks read scores, statuses, stages, the verdicts' outcomes, the grades'
 * outcomes and the last turn's calls; the texts beside them (queries, answers, tool responses,
 * judges' words, the trajectory diagnostic) are for pages and exported files. Dropping those as
 * each item completes keeps a 5,187-dialogue run's items at a few MB instead of 17.
 */
import type { GradeUse } from "../judges/grade-log";
import type { ItemResult } from "./item-result";

/** `full`: every item as pages and files show it (the default). `summary`: only what decides figures. */
export type ItemDetail = "full" | "summary";

export function summarizeItem(item: ItemResult): ItemResult {
  const common = {
    detail: null,
    // The calls stay: the unsupported-answer check counts them; the texts and responses go.
    trace: item.trace.map((t) => ({ turnId: t.turnId, query: "", answer: null, calls: t.calls, responses: [] })),
    ...(item.grades ? { grades: item.grades.map(summarizeGrade) } : {}),
  };
  const { question: _question, ...rest } = item;
  if (rest.scorer === "waterfall") {
    return {
      ...rest,
      ...common,
      verdicts: rest.verdicts.map((v) => ({ ...v, reason: "", detail: null })),
      trajectory: null,
    };
  }
  return { ...rest, ...common, evaluation: rest.evaluation && { ...rest.evaluation, reasoning: "", details: null } };
}

/** What the grades' digest reads: the key, outcome, score and matched fields. */
function summarizeGrade(g: GradeUse): GradeUse {
  return { key: g.key, kind: g.kind, outcome: g.outcome, score: g.score, reason: "", detail: null, ...(g.matches ? { matches: g.matches } : {}) };
}
