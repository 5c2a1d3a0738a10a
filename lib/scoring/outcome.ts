/**
 * One vocabulary for what happened to an item, used by every page, export and the README's
 * glossary: an item was missing, failed on the agent's, the environment's or the judge's side,
 * or was scored, in which case the stage (or evaluator) that decided it names the outcome.
 */
import type { ItemStage, ItemStatus } from "./item-result";

export type OutcomeId = Exclude<ItemStatus, "scored"> | Exclude<ItemStage, "none"> | "unscored";

export interface OutcomeTerm {
  id: OutcomeId;
  /** Short label for tables and badges. */
  label: string;
  /** What it means and what it counts as. */
  meaning: string;
  /** "its score", or "0" for outcomes that count zero. */
  countsAs: "its score" | "0";
}

const TERMS: Record<OutcomeId, Omit<OutcomeTerm, "id">> = {
  missing: { label: "Missing", meaning: "The bundle has no prediction for this item.", countsAs: "0" },
  agent_error: { label: "Agent error", meaning: "The agent reported an error (its record's status is \"error\") or its output lacks what is scored.", countsAs: "0" },
  replay_error: { label: "Replay error", meaning: "The benchmark's environment failed while replaying the agent's tool calls; the entry waits for a rescore before it can be published.", countsAs: "0" },
  judge_error: { label: "Judge error", meaning: "The judge could not give a verdict; the entry waits for a rescore before it can be published.", countsAs: "0" },
  policy: { label: "Policy", meaning: "Decided by the policy stage: the agent used a tool the item's policy forbids.", countsAs: "its score" },
  exact: { label: "Exact tool response", meaning: "Decided by the exact stage: the agent's tool responses hold the expected answer.", countsAs: "its score" },
  correctness: { label: "LLM correctness", meaning: "Decided by the correctness judge comparing the answer with the expected one.", countsAs: "its score" },
  groundedness: { label: "Groundedness", meaning: "Decided by the groundedness judge: is the answer supported by the agent's own tool responses.", countsAs: "its score" },
  qa: { label: "QA evaluator", meaning: "Scored by the question-answering evaluator.", countsAs: "its score" },
  trajectory: { label: "Trajectory evaluator", meaning: "Scored by the trajectory evaluator.", countsAs: "its score" },
  report: { label: "Report evaluator", meaning: "Scored by the report evaluator, field by field.", countsAs: "its score" },
  unscored: { label: "Not decided", meaning: "Scored, but no stage decided it (no turn to score).", countsAs: "0" },
};

/** Every term in the order the glossary lists them. */
export const OUTCOME_TERMS: readonly OutcomeTerm[] = (Object.keys(TERMS) as OutcomeId[]).map((id) => ({ id, ...TERMS[id] }));

export function outcomeOf(item: { status: ItemStatus; stage: ItemStage }): OutcomeTerm {
  const id: OutcomeId = item.status !== "scored" ? item.status : item.stage === "none" ? "unscored" : item.stage;
  return { id, ...TERMS[id] };
}

/** The label of a status count key (`missing`, `agent_error`, …) for "3 agent errors"-style lists. */
export function countLabel(status: Exclude<ItemStatus, "scored">, n: number): string {
  const label = TERMS[status].label.toLowerCase();
  return `${n} ${label}${n === 1 ? "" : "s"}`;
}
