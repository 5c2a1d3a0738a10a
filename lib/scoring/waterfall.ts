/**
 * The waterfall for one scored turn: policy → exact tool response → correctness →
 * groundedness. Every stage leaves a verdict (skipped ones say why), so a result explains
 * itself. A judge failure is `judge_error`, never a silent 0.
 */
import type { ResolvedPolicy } from "../benchmark/policy";
import type { AnswerValue, Turn } from "../formats/dialogue";
import { answerText } from "./answer-values";
import { gradeSafely, type GradeRequest, type Grader } from "./judges/grader";
import { checkExactMatch } from "./stages/exact-match-stage";
import { checkPolicy } from "./stages/policy-stage";
import { verdict, type StageName, type Verdict } from "./verdict";

export type TurnStatus = "scored" | "judge_error" | "missing_turn";

export interface TurnScore {
  turnId: number;
  score: number;
  /** The stage that decided the score. */
  stage: StageName | "none";
  status: TurnStatus;
  verdicts: Verdict[];
}

export interface WaterfallInput {
  turnId: number;
  question: string;
  reference: AnswerValue;
  prediction: Turn;
  predictedResponses: readonly unknown[];
  groundTruthResponses: readonly unknown[];
  /** Undefined when the capability carries no policies. */
  policy: ResolvedPolicy | undefined;
  compat: "strict" | "vakra";
  window: number;
  /** False under `replay: none`: exact match and groundedness cannot run. */
  hasResponses: boolean;
}

export interface WaterfallDeps {
  grader: Grader;
  now: () => number;
}

const skipped = (stage: StageName, turnId: number, reason: string): Verdict =>
  verdict({ stage, turnId, outcome: "skipped", score: null, reason, judge: "program" });

export function responseText(r: unknown): string {
  return typeof r === "string" ? r : JSON.stringify(r) ?? "null";
}

export async function runWaterfall(input: WaterfallInput, deps: WaterfallDeps): Promise<TurnScore> {
  const { turnId } = input;
  const verdicts: Verdict[] = [];
  const done = (score: number, stage: TurnScore["stage"], status: TurnStatus = "scored"): TurnScore => ({ turnId, score, stage, status, verdicts });

  const policy = input.policy ? checkPolicy(input.policy, input.prediction.calls, turnId) : skipped("policy", turnId, "this capability carries no tool-use policies");
  verdicts.push(policy);
  if (policy.outcome === "fail") {
    verdicts.push(...(["exact", "correctness", "groundedness"] as const).map((s) => skipped(s, turnId, "not reached: the policy was violated")));
    return done(0, "policy");
  }

  const exact = input.hasResponses
    ? checkExactMatch({ turnId, groundTruth: input.groundTruthResponses, predicted: input.predictedResponses, window: input.window, compat: input.compat })
    : skipped("exact", turnId, "no tool responses to compare (replay: none)");
  verdicts.push(exact);

  const answer = answerText(input.prediction.answer);
  const base = { question: input.question, answer, answerValue: input.prediction.answer };

  let decidedBy: TurnScore["stage"] = "exact";
  if (exact.outcome !== "pass") {
    const correctness = await ask(deps, turnId, { kind: "correctness", ...base, reference: answerText(input.reference), referenceValue: input.reference });
    verdicts.push(correctness);
    if (correctness.outcome === "error") {
      verdicts.push(skipped("groundedness", turnId, "not reached: the correctness judge failed"));
      return done(0, "correctness", "judge_error");
    }
    if (correctness.outcome === "fail") {
      verdicts.push(skipped("groundedness", turnId, "not reached: the answer is not correct"));
      return done(0, "correctness");
    }
    decidedBy = "correctness";
  } else {
    verdicts.push(skipped("correctness", turnId, "not needed: the exact tool responses were reproduced"));
  }

  if (!input.hasResponses) {
    verdicts.push(skipped("groundedness", turnId, "no tool responses to ground the answer in (replay: none)"));
    return done(1, decidedBy);
  }
  const evidence = input.predictedResponses.slice(-input.window).map(responseText);
  const grounded = await ask(deps, turnId, { kind: "groundedness", ...base, evidence });
  verdicts.push(grounded);
  if (grounded.outcome === "error") return done(0, "groundedness", "judge_error");
  return done(grounded.score ?? 0, "groundedness");
}

async function ask(deps: WaterfallDeps, turnId: number, req: Extract<GradeRequest, { kind: "correctness" | "groundedness" }>): Promise<Verdict> {
  const started = deps.now();
  const g = await gradeSafely(deps.grader, req);
  return verdict({
    stage: req.kind,
    turnId,
    outcome: g.outcome === "unjudged" ? "error" : g.outcome === "pass" ? "pass" : "fail",
    score: g.score,
    reason: g.reason,
    detail: g.detail,
    judge: deps.grader.id,
    promptHash: g.promptHash,
    cacheHit: g.cacheHit,
    latencyMs: Math.round(deps.now() - started),
  });
}
