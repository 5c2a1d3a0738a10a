/**
 * The waterfall for one scored turn: policy → exact tool response → correctness →
 * groundedness. Every stage leaves a verdict (skipped ones say why), so a result explains
 * itself. A judge failure is `judge_error`, never a silent 0.
 */
import type { ResolvedPolicy } from "../benchmark/policy";
import type { AnswerValue, Turn } from "../formats/dialogue";
import { pythonStr } from "../formats/python-str";
import { answerText } from "../judges/answer-values";
import { gradeSafely, type GradeRequest, type Grader } from "../judges/grader";
import { checkExactMatch } from "./stages/exact-match-stage";
import { checkPolicy } from "./stages/policy-stage";
import { vakraAnswerString, vakraNormalise, vakraPredictionString } from "./vakra-strings";
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
  /** Strict mode: the most evidence characters a groundedness judge reads (compat: vakra never cuts). */
  evidenceMaxChars: number;
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

/** What of a turn its two judges read. */
export type VerdictInput = Pick<WaterfallInput, "question" | "reference" | "predictedResponses" | "compat" | "window" | "evidenceMaxChars"> & { prediction: Pick<Turn, "answer"> };

type CorrectnessRequest = Extract<GradeRequest, { kind: "correctness" }>;
type GroundednessRequest = Extract<GradeRequest, { kind: "groundedness" }>;

/**
 * The requests a turn's correctness and groundedness stages send, in the benchmark's mode: one
 * construction for the waterfall and for a calibration case, so a case is asked exactly what
 * the scorer would ask (same prompt, same grade-cache key).
 */
export function verdictRequests(input: VerdictInput): { correctness: CorrectnessRequest; groundedness: GroundednessRequest; cut?: JudgeTexts["cut"]; bothEmpty: boolean } {
  const texts = judgeTexts(input);
  const base = { question: texts.question, answer: texts.answer, answerValue: input.prediction.answer };
  return {
    correctness: { kind: "correctness", ...base, reference: texts.reference, referenceValue: input.reference },
    groundedness: { kind: "groundedness", ...base, question: input.compat === "vakra" ? input.question : texts.question, evidence: texts.evidence },
    ...(texts.cut ? { cut: texts.cut } : {}),
    // VAKRA passes correctness without a judge when both are empty (compat: vakra only).
    bothEmpty: input.compat === "vakra" && texts.answer === "" && texts.reference === "",
  };
}

/** What the judges read of a turn, in the benchmark's mode. */
interface JudgeTexts {
  question: string;
  reference: string;
  answer: string;
  evidence: string[];
  /** Set when strict mode cut the evidence to its limit. */
  cut?: { kept: number; total: number };
}

/**
 * Strict: the answer and reference as a person reads them, the newest evidence up to the
 * limit. VAKRA: its stringified, lower-cased forms, every one of the last `window`
 * responses as `str()`, uncut.
 */
function judgeTexts(input: VerdictInput): JudgeTexts {
  const recent = input.predictedResponses.slice(-input.window);
  if (input.compat === "vakra") {
    return {
      question: vakraNormalise(input.question),
      reference: vakraNormalise(vakraAnswerString(input.reference)),
      answer: vakraNormalise(vakraPredictionString(input.prediction.answer)),
      // Groundedness reads `str(x)` of each response, so None is "none" here (but "" in exact match).
      evidence: recent.map((r) => vakraNormalise(pythonStr(r))),
    };
  }
  const texts = { question: input.question, reference: answerText(input.reference), answer: answerText(input.prediction.answer) };
  return { ...texts, ...clipEvidence(recent.map(responseText), input.evidenceMaxChars) };
}

/** Keeps the newest evidence within `max` characters: the answer is usually built from it. */
export function clipEvidence(items: readonly string[], max: number): { evidence: string[]; cut?: { kept: number; total: number } } {
  const total = items.reduce((n, e) => n + e.length, 0);
  if (total <= max) return { evidence: [...items] };
  const kept: string[] = [];
  let room = max;
  for (let i = items.length - 1; i >= 0 && room > 0; i--) {
    const e = items[i]!;
    kept.unshift(e.length <= room ? e : `[… ${e.length - room} earlier characters omitted …]${e.slice(e.length - room)}`);
    room -= e.length;
  }
  return { evidence: kept, cut: { kept: max, total } };
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

  const requests = verdictRequests(input);

  let decidedBy: TurnScore["stage"] = "exact";
  if (exact.outcome !== "pass") {
    const correctness = requests.bothEmpty
      ? verdict({ stage: "correctness", turnId, outcome: "pass", score: 1, reason: "the answer and the reference are both empty (compat: vakra)", judge: "program" })
      : await ask(deps, turnId, requests.correctness);
    verdicts.push(correctness);
    if (correctness.outcome === "error" || correctness.outcome === "fail") {
      // A panel's disputed correctness grade may be decided a pass later: groundedness is asked
      // ahead, so the decision settles the turn from its stored verdicts (apply-decisions.ts).
      if (correctness.panel?.disputed && input.hasResponses) verdicts.push(aside(await askGroundedness(deps, turnId, requests)));
      else verdicts.push(skipped("groundedness", turnId, correctness.outcome === "error" ? "not reached: the correctness judge failed" : "not reached: the answer is not correct"));
      return correctness.outcome === "error" ? done(0, "correctness", "judge_error") : done(0, "correctness");
    }
    decidedBy = "correctness";
  } else {
    verdicts.push(skipped("correctness", turnId, "not needed: the exact tool responses were reproduced"));
  }

  if (!input.hasResponses) {
    verdicts.push(skipped("groundedness", turnId, "no tool responses to ground the answer in (replay: none)"));
    return done(1, decidedBy);
  }
  const grounded = await askGroundedness(deps, turnId, requests);
  verdicts.push(grounded);
  if (grounded.outcome === "error") return done(0, "groundedness", "judge_error");
  return done(grounded.score ?? 0, "groundedness");
}

/** What a groundedness verdict asked ahead says: it did not decide the turn (yet). */
export const ASKED_AHEAD = "asked ahead: the correctness grade is disputed";

function aside(v: Verdict): Verdict {
  return { ...v, reason: `${v.reason} (${ASKED_AHEAD})` };
}

async function askGroundedness(deps: WaterfallDeps, turnId: number, requests: ReturnType<typeof verdictRequests>): Promise<Verdict> {
  const asked = await ask(deps, turnId, requests.groundedness);
  // A cut is part of the verdict: the judge did not see everything the agent saw.
  const cut = requests.cut;
  return cut ? { ...asked, reason: `${asked.reason} (evidence truncated: the judge read the newest ${cut.kept} of ${cut.total} characters; evidenceMaxChars)` } : asked;
}

/**
 * A turn's score from its verdicts, as runWaterfall decided it: for a turn whose verdicts a
 * maintainer's decision changed (apply-decisions.ts). A groundedness verdict asked ahead counts
 * once correctness passes.
 */
export function settleTurn(verdicts: readonly Verdict[]): { score: number; stage: StageName | "none"; status: TurnStatus } {
  const of = (stage: StageName) => verdicts.find((v) => v.stage === stage);
  if (of("policy")?.outcome === "fail") return { score: 0, stage: "policy", status: "scored" };
  let decidedBy: StageName = "exact";
  if (of("exact")?.outcome !== "pass") {
    const c = of("correctness");
    if (!c || c.outcome === "error") return { score: 0, stage: "correctness", status: "judge_error" };
    if (c.outcome === "fail") return { score: 0, stage: "correctness", status: "scored" };
    decidedBy = "correctness";
  }
  const g = of("groundedness");
  if (!g || g.outcome === "skipped") return { score: 1, stage: decidedBy, status: "scored" };
  if (g.outcome === "error") return { score: 0, stage: "groundedness", status: "judge_error" };
  return { score: g.score ?? 0, stage: "groundedness", status: "scored" };
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
    ...(g.panel ? { panel: g.panel } : {}),
  });
}
