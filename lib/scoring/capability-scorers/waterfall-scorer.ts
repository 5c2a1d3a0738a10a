/**
 * The waterfall scorer: VAKRA-style dialogues. Each item is replayed, then each scored turn
 * goes through policy → exact tool response → correctness → groundedness, and the dialogue
 * scores the mean of its scored turns. (Its ground truth is loaded by
 * benchmark/capability-loaders/dialogue-loader.ts, its outputs read by
 * validate/outputs-readers/dialogue-records.ts.)
 */
import { dialogueCapability, type DialogueCapability } from "../../benchmark/load-benchmark";
import { itemWeight } from "../../benchmark/item-weight";
import { leadingCallsDropped } from "../../benchmark/spec";
import { resolvePolicy } from "../../benchmark/policy";
import type { PredictedDialogue, Turn } from "../../formats/dialogue";
import type { ReplayOutcome } from "../../replay/replay-port";
import { canonicalJson } from "../../formats/canonical-json";
import { sha256 } from "../../formats/sha256";
import { compareToolCalls, sequentialSteps } from "../../evaluators/trajectory-compare";
import { dialogueFingerprint } from "../item-fingerprint";
import { waterfallBucket, type ItemStatus, type TrajectoryDiagnostic, type TurnTrace, type WaterfallItemResult } from "../item-result";
import { runWaterfall, type TurnScore } from "../waterfall";
import type { CapabilityScorer, ScoreContext } from "./capability-scorer";

export const waterfallScorer: CapabilityScorer = {
  name: "waterfall",

  tasks(anyCap, ctx) {
    const cap = dialogueCapability(anyCap);
    const predicted = ctx.submission.capabilities.get(cap.spec.id);
    const tasks = [];
    for (const [domain, gts] of cap.domains) {
      for (const gt of gts) tasks.push({ capability: cap.spec.id, uuid: gt.uuid, shard: domain, run: () => scoreDialogue(cap, gt.uuid, predicted?.get(gt.uuid), ctx) });
    }
    return tasks;
  },
};

function trajectoryDiagnostic(predicted: Turn["calls"], expected: Turn["calls"]): TrajectoryDiagnostic {
  const c = compareToolCalls(sequentialSteps(predicted), sequentialSteps(expected));
  return { score: c.score, toolNamesF1: c.toolNames.f1, paramsF1: c.params?.f1 ?? null, order: c.order?.score ?? null, exact: c.exact, summary: c.summary, pairs: c.pairs };
}

async function scoreDialogue(cap: DialogueCapability, uuid: string, prediction: PredictedDialogue | undefined, ctx: ScoreContext): Promise<WaterfallItemResult> {
  const { benchmark, replay } = ctx;
  const gt = cap.byUuid.get(uuid)!;
  const { weight, sources } = itemWeight(cap.spec, gt, benchmark.spec.retrieverTools);
  const fingerprint = dialogueFingerprint(cap.spec.id, uuid, prediction);
  const base = { scorer: "waterfall" as const, capability: cap.spec.id, domain: gt.domain, uuid, trial: ctx.trial, weight, sources, replay: replay.mode, verified: replay.verified, fingerprint };
  const unscored = (status: Exclude<ItemStatus, "scored" | "judge_error">, reason: string): WaterfallItemResult => ({
    ...base,
    score: 0,
    status,
    bucket: "not_scored",
    stage: "none",
    policy: "skipped",
    exactPassed: false,
    turns: [],
    verdicts: [],
    trace: [],
    question: gt.turns.at(-1)!.query,
    trajectory: null,
    reason,
    detail: null,
  });

  if (!prediction) return unscored("missing", "no prediction for this item");
  // VAKRA never reads `status`: under compat an errored record with a turn is scored like any other.
  const scoresErrored = benchmark.spec.compat === "vakra" && prediction.turns.length > 0;
  if (prediction.status === "error" && !scoresErrored) return unscored("agent_error", prediction.error || "the agent reported an error");

  let replayed: ReplayOutcome;
  try {
    replayed = await replay.replay({ capability: cap.spec, groundTruth: gt, prediction });
  } catch (err) {
    return unscored("replay_error", `replay failed: ${err instanceof Error ? err.message : String(err)}`);
  }

  const policy = cap.spec.policies ? resolvePolicy(gt, benchmark.policyTable) : undefined;
  const scoredTurns = cap.spec.scoredTurns === "all" ? gt.turns : gt.turns.slice(-1);
  const turns: TurnScore[] = [];
  const trace: TurnTrace[] = [];
  let lastPair: { predicted: Turn["calls"]; expected: Turn["calls"] } | undefined;
  for (const gtTurn of scoredTurns) {
    const predTurn = pairTurn(prediction, gtTurn, cap.spec.scoredTurns);
    if (!predTurn) {
      lastPair = undefined;
      turns.push({ turnId: gtTurn.turnId, score: 0, stage: "none", status: "missing_turn", verdicts: [] });
      continue;
    }
    // The environment's own leading calls (VAKRA: initialize_active_data) are no call the agent owes.
    const expectedCalls = gtTurn.calls.slice(leadingCallsDropped(cap.spec.environment, gtTurn.calls, gt.turns.indexOf(gtTurn)));
    lastPair = { predicted: predTurn.calls, expected: expectedCalls };
    const predictedResponses = replayed.prediction.find((t) => t.turnId === predTurn.turnId)?.responses ?? [];
    trace.push({ turnId: gtTurn.turnId, query: predTurn.query, answer: predTurn.answer, calls: predTurn.calls, responses: predictedResponses });
    turns.push(
      await runWaterfall(
        {
          turnId: gtTurn.turnId,
          question: gtTurn.query,
          reference: gtTurn.answer,
          prediction: predTurn,
          predictedResponses,
          groundTruthResponses: replayed.groundTruth.find((t) => t.turnId === gtTurn.turnId)?.responses ?? [],
          policy,
          compat: benchmark.spec.compat,
          window: benchmark.spec.exactMatchWindow,
          evidenceMaxChars: benchmark.spec.evidenceMaxChars,
          hasResponses: replay.providesResponses,
        },
        { grader: ctx.grader, now: ctx.now },
      ),
    );
  }
  const last = turns[turns.length - 1]!;
  const score = turns.reduce((s, t) => s + t.score, 0) / turns.length;
  const status = turns.some((t) => t.status === "judge_error") ? "judge_error" : "scored";
  const stage = last.stage;
  // The verdict that decided the last scored turn explains the item.
  const deciding = last.verdicts.find((v) => v.stage === stage && v.outcome !== "skipped");
  const result: WaterfallItemResult = {
    ...base,
    score,
    status,
    bucket: "not_scored",
    stage,
    policy: last.verdicts.find((v) => v.stage === "policy")?.outcome ?? "skipped",
    exactPassed: last.verdicts.some((v) => v.stage === "exact" && v.outcome === "pass"),
    turns: turns.map(({ turnId, score, stage, status }) => ({ turnId, score, stage, status })),
    verdicts: turns.flatMap((t) => t.verdicts),
    trace,
    trajectory: lastPair ? trajectoryDiagnostic(lastPair.predicted, lastPair.expected) : null,
    // For the run's manifest: what the expected side was, whichever source the replay took it from.
    ...(replay.providesResponses ? { groundTruthHash: sha256(canonicalJson(replayed.groundTruth)) } : {}),
    reason: last.status === "missing_turn" ? `no predicted turn with turn_id ${last.turnId}` : (deciding?.reason ?? ""),
    detail: last.status === "missing_turn" ? null : (deciding?.detail ?? null),
  };
  return { ...result, bucket: waterfallBucket(result) };
}

/** The predicted turn for a ground-truth turn; a lone predicted turn stands for the last one. */
function pairTurn(prediction: PredictedDialogue, gtTurn: Turn, mode: "last" | "all"): Turn | undefined {
  const exact = prediction.turns.find((t) => t.turnId === gtTurn.turnId);
  if (exact) return exact;
  return mode === "last" && prediction.turns.length === 1 ? prediction.turns[0] : undefined;
}
