/**
 * One vocabulary for what happened to an item, used by every page, the CLI and the README's
 * glossary: an item was missing, failed on the agent's, the environment's or the judge's side,
 * or was scored, in which case the stage (or evaluator) that decided it names the outcome.
 */
import type { ItemStage, ItemStatus } from "./item-result";

/** A status other than `scored`, a deciding stage or evaluator, or `missing_turn` (scored, but its last turn had no prediction). */
export type OutcomeId = Exclude<ItemStatus, "scored"> | Exclude<ItemStage, "none"> | "missing_turn";

export interface OutcomeTerm {
  id: OutcomeId;
  /** Short label for tables, filters and badges. */
  label: string;
  /** Decided by a stage or evaluator: the name "Lost at …" and "Passed · …" use. */
  stage: string | null;
  /** Singular and plural for counts ("1 agent error", "3 missing"). */
  noun: readonly [string, string];
  /** What it means. */
  meaning: string;
  /** "its score", or "0" for outcomes that count zero whatever happened. */
  countsAs: "its score" | "0";
}

type TermText = Omit<OutcomeTerm, "id">;
const counted = (label: string, stage: string, meaning: string): TermText => ({ label, stage, noun: [`item decided at ${stage}`, `items decided at ${stage}`], meaning, countsAs: "its score" });
const zero = (label: string, noun: readonly [string, string], meaning: string): TermText => ({ label, stage: null, noun, meaning, countsAs: "0" });

const TERMS: Record<OutcomeId, TermText> = {
  missing: zero("Missing", ["missing", "missing"], "The bundle has no prediction for this item."),
  agent_error: zero("Agent error", ["agent error", "agent errors"], 'The agent reported an error (its record\'s status is "error"), or its output lacks what the evaluator scores.'),
  replay_error: zero("Replay error", ["replay error", "replay errors"], "The benchmark's environment failed while replaying the agent's tool calls; the entry waits for a rescore before it can be published."),
  judge_error: zero("Judge error", ["judge error", "judge errors"], "The judge (or evaluator) gave no usable verdict after its retries; the entry waits for a rescore before it can be published."),
  missing_turn: { ...counted("Missing turn", "the missing turn", "The prediction has no turn to pair with the last scored ground-truth turn, which scores 0 (with `scoredTurns: all` the item scores the mean of its turns)."), noun: ["missing turn", "missing turns"] },
  policy: counted("Policy", "policy", "Decided by the policy stage: the agent used a tool the item's policy forbids (scores 0)."),
  exact: counted("Exact tool response", "exact tool response", "Decided by the exact stage: the agent's tool responses hold every ground-truth response."),
  correctness: counted("Correctness", "correctness", "Decided by the correctness judge: the answer is not the reference answer (scores 0)."),
  groundedness: counted("Groundedness", "groundedness", "Decided by the groundedness judge: is the answer supported by the agent's own tool responses."),
  qa: counted("QA evaluator", "QA evaluator", "Scored by the question-answering evaluator."),
  trajectory: counted("Trajectory evaluator", "trajectory evaluator", "Scored by the trajectory evaluator (the agent's tool calls against the reference calls)."),
  report: counted("Report evaluator", "report evaluator", "Scored by the report evaluator, field by field."),
};

/** Every term in the order the glossary, filters and the outcome sort list them. */
export const OUTCOME_TERMS: readonly OutcomeTerm[] = (Object.keys(TERMS) as OutcomeId[]).map((id) => ({ id, ...TERMS[id] }));
export const OUTCOME_IDS: readonly OutcomeId[] = OUTCOME_TERMS.map((t) => t.id);

export function outcomeTerm(id: OutcomeId): OutcomeTerm {
  return { id, ...TERMS[id] };
}

export function outcomeIdOf(item: { status: ItemStatus; stage: ItemStage }): OutcomeId {
  if (item.status !== "scored") return item.status;
  return item.stage === "none" ? "missing_turn" : item.stage;
}

/** Whether an item kept all its points, some of them, or none. */
export type OutcomeVerdict = "passed" | "partial" | "lost";

export interface Outcome {
  term: OutcomeTerm;
  verdict: OutcomeVerdict;
  /** What the item counts as in its capability's score, 0–1. */
  counts: number;
  /** "Passed · groundedness", "Lost at correctness", "Partial · report evaluator", "Agent error · counts 0". */
  text: string;
}

/**
 * Full marks, the one definition: an outcome's "passed", a pass in /compare and pass^k, and what
 * the item table's "lost points" leaves out (the SQL compares with this too). Within 1e-9 of 1,
 * so a fractional evaluator score that sums to 1 in floating point still counts.
 */
export const FULL_MARKS = 1 - 1e-9;
export const passes = (score: number): boolean => score >= FULL_MARKS;

export function outcomeOf(item: { status: ItemStatus; stage: ItemStage; score: number }): Outcome {
  const term = outcomeTerm(outcomeIdOf(item));
  const counts = term.countsAs === "0" ? 0 : item.score;
  const verdict: OutcomeVerdict = passes(counts) ? "passed" : counts > 0 ? "partial" : "lost";
  if (term.stage === null) return { term, verdict, counts, text: `${term.label} · counts 0` };
  const text = verdict === "passed" ? `Passed · ${term.stage}` : verdict === "partial" ? `Partial · ${term.stage}` : `Lost at ${term.stage}`;
  return { term, verdict, counts, text };
}

/** "1 agent error", "3 missing". */
export function countLabel(id: OutcomeId, n: number): string {
  const [one, many] = TERMS[id].noun;
  return `${n.toLocaleString("en-US")} ${n === 1 ? one : many}`;
}

/** The statuses that count 0, in glossary order: what a capability's status counts are listed by. */
export const UNSCORED_STATUSES: readonly Exclude<ItemStatus, "scored">[] = ["missing", "agent_error", "replay_error", "judge_error"];

/** "2 missing · 4 agent errors" from per-status counts; statuses with no item are left out. */
export function statusCountParts(counts: Partial<Record<ItemStatus, number>>): string[] {
  return UNSCORED_STATUSES.flatMap((s) => (counts[s] ? [countLabel(s, counts[s])] : []));
}

/** The README's glossary table, generated from the terms (a unit test keeps the README in step). */
export function outcomeGlossary(): string {
  const rows = OUTCOME_TERMS.map((t) => `| ${t.label} | \`${t.id}\` | ${t.meaning} | ${t.countsAs} |`);
  return ["| Outcome | Id (filter `outcome=`) | What it means | Counts as |", "|---|---|---|---|", ...rows].join("\n");
}
