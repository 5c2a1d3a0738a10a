/**
 * The waterfall for one scored turn: policy → exact tool response → correctness →
 * groundedness. Every stage leaves a verdict (skipped ones say why), so a result explains
 * itself. A judge failure is `judge_error`, never a silent 0.
 */
import type { ResolvedPolicy } from "../benchmark/policy";
import type { AnswerValue, Turn } from "../formats/dialogue";
import { answerText } from "./answer-values";
import { JudgeError, type Judge, type JudgeRequest } from "./judges/judge";
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
  judge: Judge;
  now: () => number;
}

const skipped = (stage: StageName, turnId: number, explanation: string): Verdict =>
  verdict({ stage, turnId, outcome: "skipped", score: null, explanation, judge: "program" });

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
    const correctness = await ask(deps, "correctness", turnId, { task: "correctness", ...base, reference: answerText(input.reference), referenceValue: input.reference });
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
  const grounded = await ask(deps, "groundedness", turnId, { task: "groundedness", ...base, evidence });
  verdicts.push(grounded);
  if (grounded.outcome === "error") return done(0, "groundedness", "judge_error");
  return done(grounded.score ?? 0, "groundedness");
}

async function ask(deps: WaterfallDeps, stage: "correctness" | "groundedness", turnId: number, req: JudgeRequest): Promise<Verdict> {
  const started = deps.now();
  try {
    const d = await deps.judge.decide(req);
    return verdict({
      stage,
      turnId,
      outcome: d.pass ? "pass" : "fail",
      score: d.score,
      explanation: d.explanation,
      judge: deps.judge.id,
      promptHash: d.promptHash,
      cacheHit: d.cacheHit,
      latencyMs: Math.round(deps.now() - started),
    });
  } catch (err) {
    const message = err instanceof JudgeError ? err.message : `judge crashed: ${err instanceof Error ? err.message : String(err)}`;
    return verdict({ stage, turnId, outcome: "error", score: null, explanation: message, judge: deps.judge.id, latencyMs: Math.round(deps.now() - started) });
  }
}
