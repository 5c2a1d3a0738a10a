/**
 * What scoring stores per ground-truth item: one discriminated union by scorer. A waterfall
 * item carries its turns, verdicts and replay; an evaluator item carries its evaluator's
 * evidence. Both carry the funnel bucket, computed here once, and the two halves of their
 * evidence: a public `reason` and a private `detail` (see lib/judges/grader.ts).
 */
import type { SourceKind } from "../benchmark/item-weight";
import type { EvalKind } from "../formats/eval-dataset";
import type { Turn } from "../formats/dialogue";
import type { ReplayMode } from "../replay/replay-port";
import type { EvalItemResult } from "../evaluators/result";
import type { GradeUse } from "../judges/grade-log";
import type { PanelRecord } from "../judges/panel-grader";
import type { CallPairing } from "../evaluators/trajectory-compare";
import type { TurnStatus } from "./waterfall";
import type { PolicyOutcome, StageName, Verdict } from "./verdict";

/**
 * - `scored`: the item has a score of its own (possibly 0).
 * - `missing`: no prediction; counts 0.
 * - `agent_error`: the agent reported an error, or its output lacks what is scored; counts 0.
 * - `judge_error`: the judge could not judge; holds the run at `error` until a rescore.
 * - `replay_error`: the environment failed while replaying; holds the run likewise.
 */
export type ItemStatus = "scored" | "missing" | "agent_error" | "judge_error" | "replay_error";
export const ITEM_STATUSES: readonly ItemStatus[] = ["scored", "missing", "agent_error", "judge_error", "replay_error"];

/** Where an item ended in the waterfall's funnel; evaluator items are `evaluated` or `not_scored`. */
export type FunnelBucket = "not_scored" | "policy" | "correctness_failed" | "groundedness_failed" | "passed" | "evaluated";

/** The stage that decided a waterfall item, or its evaluator. */
export type ItemStage = StageName | EvalKind | "none";
export const ITEM_STAGES: readonly ItemStage[] = ["policy", "exact", "correctness", "groundedness", "qa", "trajectory", "report", "none"];

/** A closed-union member from untrusted text (a URL parameter), else undefined. */
export function oneOf<T extends string>(values: readonly T[], raw: string | undefined): T | undefined {
  return values.find((v) => v === raw);
}

export interface TurnTrace {
  turnId: number;
  query: string;
  answer: Turn["answer"];
  calls: Turn["calls"];
  responses: unknown[];
}

/**
 * A diagnostic, not part of the score: the last scored turn's tool calls against the ground
 * truth's, compared deterministically (tool names, parameters, order). Its `summary` and the
 * expected side of `pairs` name the expected calls and values, so they are private; the
 * query layer splits them (`getItem`).
 */
export interface TrajectoryDiagnostic {
  score: number;
  toolNamesF1: number;
  paramsF1: number | null;
  order: number | null;
  exact: boolean;
  summary: string;
  /** Each expected call with the agent call paired to it, then the agent's unpaired calls. Absent in rows scored before it was kept. */
  pairs?: CallPairing[];
}

interface ItemCommon {
  capability: string;
  domain: string;
  uuid: string;
  /** Which trial of the bundle (1-based; a plain bundle is trial 1 of 1). Stored results from before trials read as 1. */
  trial: number;
  weight: number;
  /** 0..1; 0 for every item that is not `scored`. */
  score: number;
  status: ItemStatus;
  bucket: FunnelBucket;
  /** Public: why this score, without quoting the ground truth. */
  reason: string;
  /** Private: the same with the compared values; shown only where ground truth is public. */
  detail: string | null;
  /** What was scored, per scored turn: the agent's turn and the responses it was judged on. */
  trace: TurnTrace[];
  /** The benchmark's question of the last scored turn, for an item with no trace (missing, errors): what the agent was asked. */
  question?: string;
  /**
   * A hash of the agent's normalised answers and tool calls (item-fingerprint.ts), for finding
   * resubmitted outputs; null without a prediction. Absent on items scored before it was kept.
   */
  fingerprint?: string | null;
  /** The LLM judge's grades this item used (none for the rules judge), for the run's verdict export. */
  grades?: GradeUse[];
  /** A panel's grades (panel-grader.ts): each member's grade, disagreement, a maintainer's decision. Private: the members' details and a disputed request quote the reference. */
  panel?: PanelRecord[];
}

export interface WaterfallTurn {
  turnId: number;
  score: number;
  stage: StageName | "none";
  status: TurnStatus;
}

export interface WaterfallItemResult extends ItemCommon {
  scorer: "waterfall";
  sources: SourceKind;
  stage: StageName | "none";
  /** The policy verdict of the last scored turn. */
  policy: PolicyOutcome;
  /** Whether the exact-match stage passed on the last scored turn. */
  exactPassed: boolean;
  turns: WaterfallTurn[];
  verdicts: Verdict[];
  replay: ReplayMode;
  verified: boolean;
  trajectory: TrajectoryDiagnostic | null;
  /** sha256 of the ground-truth responses the item was compared against (canonical JSON); absent without responses (replay none, or not replayed). */
  groundTruthHash?: string;
}

/** An evaluator's result as the leaderboard keeps it (NAT's full output is `EvalItemResult`). */
export type EvaluatorEvidence = Pick<EvalItemResult, "kind" | "status" | "score" | "reasoning" | "reason" | "error" | "judge" | "latencyMs" | "subScores" | "details">;

export interface EvaluatorItemResult extends ItemCommon {
  scorer: EvalKind;
  stage: EvalKind | "none";
  /** Null when the evaluator did not run (no output, or an output it cannot read). */
  evaluation: EvaluatorEvidence | null;
}

export type ItemResult = WaterfallItemResult | EvaluatorItemResult;

/** Items that hold a run back: the judge or the environment failed on them. */
export const isUnjudged = (i: Pick<ItemResult, "status">) => i.status === "judge_error" || i.status === "replay_error";

export function waterfallBucket(i: Pick<WaterfallItemResult, "status" | "stage" | "score">): FunnelBucket {
  // A last turn with no prediction (stage none) ended nowhere: with the items not scored.
  if (i.status !== "scored" || i.stage === "none") return "not_scored";
  if (i.stage === "policy") return "policy";
  if (i.stage === "correctness" && i.score === 0) return "correctness_failed";
  return i.score > 0 ? "passed" : "groundedness_failed";
}
