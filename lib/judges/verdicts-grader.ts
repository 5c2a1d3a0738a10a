/**
 * The verdicts grader: answers only from a run's exported verdicts (verdict-export.ts), with no
 * model and no network. It builds each request's prompt as the run's LLM judge did
 * (grade-prompt.ts, the run's model), keys it as the run did (grade-log.ts `verdictKey`, with
 * the benchmark's key salt) and returns the grade filed under that key. A key the export does
 * not hold is `unjudged` ("not in the exported verdicts"), never a guess; so is a grade the
 * export withheld.
 */
import type { VerdictExport } from "./verdict-file";
import { verdictKey } from "./grade-log";
import { gradePrompt, promptHashOf } from "./grade-prompt";
import { unjudged, type Grader } from "./grader";

export interface VerdictsGraderOptions {
  verdicts: VerdictExport;
  /** The benchmark's key salt (content-hash.ts): keys are salted with it. */
  salt: string;
}

export function createVerdictsGrader({ verdicts, salt }: VerdictsGraderOptions): Grader {
  const model = verdicts.judge.model;
  if (model === null) throw new Error(`the verdicts of a ${verdicts.judge.id} run name no model: re-score it with that judge (rules runs are re-run with rules)`);
  const id = `verdicts:${verdicts.judge.id}`;
  return {
    id,
    readsPrompts: true,
    model,
    async grade(req) {
      const promptHash = promptHashOf(gradePrompt(req, model));
      const key = verdictKey(salt, req.kind, model, promptHash);
      const g = Object.hasOwn(verdicts.grades, key) ? verdicts.grades[key] : undefined;
      if (!g) return { ...unjudged("not in the exported verdicts"), promptHash };
      if (g.withheld) return { ...unjudged("withheld from this export: the grade names reference fields (private ground truth)"), promptHash };
      return { outcome: g.outcome, score: g.score, reason: g.reason, detail: g.detail ?? null, promptHash, cacheHit: true, ...(g.matches ? { matches: g.matches } : {}) };
    },
  };
}
