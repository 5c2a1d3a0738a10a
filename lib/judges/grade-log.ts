/**
 * Which grades each item asked its LLM judge for, so a run can export the verdicts it used and
 * be re-scored from them without a model (verdict-export.ts, verdicts-grader.ts). The engine
 * scores each item inside `withGradeLog`, and the grader it hands the scorers is wrapped by
 * `loggingGrader`, which files every keyed grade under the item being scored (async context:
 * an evaluator is built once per capability, so the item cannot be passed down to it). Grades
 * of the rules judge have no prompt and no key: a rules run is re-scored by running rules again.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { gradeKey } from "./grade-cache";
import { sha256 } from "../formats/sha256";
import type { FieldMatch, GradeKind, GradeOutcome, Grader } from "./grader";

/** One grade an item used, as it is stored with the item and exported. */
export interface GradeUse {
  /** `verdictKey`: the grade-cache key (kind, model, prompt hash), salted with the benchmark's key salt. */
  key: string;
  kind: GradeKind;
  outcome: GradeOutcome;
  score: number | null;
  /** Public: never quotes the ground truth. */
  reason: string;
  /** Private: the judge's own words; exported only where ground truth is public. */
  detail: string | null;
  /** Field discovery: each unlisted field's match (reference field names are ground truth). */
  matches?: FieldMatch[];
}

/**
 * The key of a grade in exported verdicts. A prompt holds the reference answer, so its bare hash
 * could be tested against guessed answers; salted with a secret derived from the ground-truth
 * files (content-hash.ts `keySalt`), only someone holding the ground truth can compute it, and
 * that is who can re-score anyway.
 */
export const verdictKey = (salt: string, kind: GradeKind, model: string, promptHash: string): string => sha256(`${salt}\n${gradeKey(kind, model, promptHash)}`);

const current = new AsyncLocalStorage<GradeUse[]>();

/** The grader, filing each keyed grade under the item being scored; graders without a model (rules) are returned as they are. */
export function loggingGrader(inner: Grader, salt: string): Grader {
  const model = inner.model;
  if (model === undefined) return inner;
  return {
    id: inner.id,
    readsPrompts: inner.readsPrompts,
    model,
    async grade(req) {
      const g = await inner.grade(req);
      const log = current.getStore();
      if (log && g.promptHash) {
        log.push({ key: verdictKey(salt, req.kind, model, g.promptHash), kind: req.kind, outcome: g.outcome, score: g.score, reason: g.reason, detail: g.detail, ...(g.matches ? { matches: g.matches } : {}) });
      }
      return g;
    },
  };
}

/** Runs one item's scoring and returns the keyed grades it asked for (each key once, in the order first asked). */
export async function withGradeLog<T>(run: () => Promise<T>): Promise<{ value: T; grades: GradeUse[] }> {
  const log: GradeUse[] = [];
  const value = await current.run(log, run);
  const seen = new Set<string>();
  return { value, grades: log.filter((g) => !seen.has(g.key) && seen.add(g.key)) };
}
