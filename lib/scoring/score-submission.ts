/**
 * Scores every ground-truth item of a benchmark against a validated submission. Waterfall
 * capabilities: replay, waterfall per scored turn, dialogue score = mean of its scored
 * turns. Evaluator capabilities: the capability's evaluator (qa, trajectory, report) on
 * each routed item, conversation turns with their history. Missing predictions and agent
 * errors are items with score 0 and a status that says so.
 */
import { compareToolCalls, sequentialSteps } from "./evaluators/trajectory-compare";
import type { Benchmark, DatasetCapability, DatasetItem, DialogueCapability } from "../benchmark/load-benchmark";
import type { EvalItem, EvalKind } from "../formats/eval-dataset";
import { attachHistory } from "../formats/eval-load";
import { evaluateItem, outputGap, type Evaluator } from "./evaluators/evaluator";
import type { EvalItemResult } from "./evaluators/result";
import type { ScoreJudge } from "./judges/score-judge";
import { itemWeight, type SourceKind } from "../benchmark/item-weight";
import { resolvePolicy } from "../benchmark/policy";
import type { GroundTruthDialogue, PredictedDialogue, Turn } from "../formats/dialogue";
import type { ReplayMode, ReplayOutcome, ReplayPort } from "../replay/replay-port";
import type { Submission } from "../validate/validate-bundle";
import type { Judge } from "./judges/judge";
import { mapPool } from "./limit";
import type { StageName, Verdict } from "./verdict";
import { runWaterfall, type TurnScore } from "./waterfall";

export type ItemStatus = "scored" | "missing" | "agent_error" | "judge_error" | "replay_error";

export interface ItemResult {
  capability: string;
  domain: string;
  uuid: string;
  weight: number;
  sources: SourceKind;
  /** 0..1 */
  score: number;
  status: ItemStatus;
  /** The stage that decided the score of the last scored turn; the evaluator for evaluator capabilities. */
  stage: StageName | EvalKind | "none";
  /** pass / fail / unchecked / skipped: the policy verdict of the last scored turn. */
  policy: Verdict["outcome"];
  turns: { turnId: number; score: number; stage: StageName | "none"; status: TurnScore["status"] }[];
  verdicts: Verdict[];
  replay: ReplayMode;
  verified: boolean;
  /** Why the item has no score of its own: the agent's error, the replay failure. */
  detail?: string;
  /** What was scored, per scored turn: the agent's turn and the responses it was judged on. */
  trace?: TurnTrace[];
  /**
   * A diagnostic, not part of the score: the last scored turn's tool calls against the ground
   * truth's, compared deterministically (tool names, parameters, order).
   */
  trajectory?: TrajectoryDiagnostic;
  /** Evaluator capabilities: the evaluator's result (reasoning, sub-scores, evidence). */
  evaluation?: EvalItemResult;
}

export interface TrajectoryDiagnostic {
  score: number;
  toolNamesF1: number;
  paramsF1: number | null;
  order: number | null;
  exact: boolean;
  summary: string;
}

function trajectoryDiagnostic(predicted: Turn["calls"], expected: Turn["calls"]): TrajectoryDiagnostic {
  const c = compareToolCalls(sequentialSteps(predicted), sequentialSteps(expected));
  return { score: c.score, toolNamesF1: c.toolNames.f1, paramsF1: c.params?.f1 ?? null, order: c.order?.score ?? null, exact: c.exact, summary: c.summary };
}

export interface TurnTrace {
  turnId: number;
  query: string;
  answer: Turn["answer"];
  calls: Turn["calls"];
  responses: unknown[];
}

export interface ScoreOptions {
  /** The judge of waterfall capabilities; required when the benchmark has any. */
  judge?: Judge;
  /** The graded judge of evaluator capabilities; required when the benchmark has any. */
  scoreJudge?: ScoreJudge;
  replay: ReplayPort;
  /** Items scored at once; the judge bounds its own calls separately. */
  concurrency?: number;
  now?: () => number;
  onProgress?: (done: number, total: number) => void;
  /** Results a resumed run already holds, keyed `capability\0uuid`: not scored again. */
  done?: ReadonlyMap<string, ItemResult>;
  /** Called as each item is scored (to store it before the run completes). */
  onItem?: (item: ItemResult) => void;
}

export const itemKey = (capability: string, uuid: string) => `${capability}\0${uuid}`;

type Task =
  | { kind: "dialogue"; cap: DialogueCapability; judge: Judge; gt: GroundTruthDialogue; prediction: PredictedDialogue | undefined }
  | { kind: "dataset"; cap: DatasetCapability; evaluator: Evaluator; gt: DatasetItem; item: EvalItem };

export async function scoreSubmission(benchmark: Benchmark, submission: Submission, opts: ScoreOptions): Promise<ItemResult[]> {
  const tasks: Task[] = [];
  for (const cap of benchmark.capabilities) {
    if (cap.kind === "dataset") {
      tasks.push(...datasetTasks(cap, submission, opts));
      continue;
    }
    const judge = opts.judge;
    if (!judge) throw new Error(`capability ${cap.spec.id} is scored by the waterfall: scoring needs a judge`);
    const predicted = submission.capabilities.get(cap.spec.id);
    for (const gts of cap.domains.values()) for (const gt of gts) tasks.push({ kind: "dialogue", cap, judge, gt, prediction: predicted?.get(gt.uuid) });
  }
  let done = 0;
  opts.onProgress?.(0, tasks.length);
  return mapPool(tasks, opts.concurrency ?? 64, async (task) => {
    const stored = opts.done?.get(itemKey(task.cap.spec.id, task.gt.uuid));
    const result = stored ?? (task.kind === "dataset" ? await scoreDatasetItem(task, opts) : await scoreItem(benchmark, task, opts));
    if (!stored) opts.onItem?.(result);
    opts.onProgress?.(++done, tasks.length);
    return result;
  });
}

/** The capability's routed items, each with the agent's output and its conversation's history. */
function datasetTasks(cap: DatasetCapability, submission: Submission, opts: ScoreOptions): Task[] {
  if (!opts.scoreJudge) throw new Error(`capability ${cap.spec.id} is scored by ${cap.spec.scorer}: scoring needs a score judge`);
  const evaluator = cap.evaluator(opts.scoreJudge);
  const outputs = submission.outputs.get(cap.spec.id);
  const tasks: Task[] = [];
  for (const entries of cap.entries.values()) {
    const items = entries.map((gt): EvalItem => {
      const { uuid: _uuid, domain: _domain, ...item } = gt;
      return { ...item, history: [], output: outputs?.get(gt.uuid) ?? null };
    });
    attachHistory(items);
    entries.forEach((gt, i) => {
      if (cap.byUuid.get(gt.uuid) === gt) tasks.push({ kind: "dataset", cap, evaluator, gt, item: items[i]! });
    });
  }
  return tasks;
}

async function scoreDatasetItem({ cap, evaluator, gt, item }: Extract<Task, { kind: "dataset" }>, opts: ScoreOptions): Promise<ItemResult> {
  const kind = evaluator.kind;
  const base = { capability: cap.spec.id, domain: gt.domain, uuid: gt.uuid, weight: 1, sources: "none" as const, replay: "none" as const, verified: false, policy: "skipped" as const, turns: [], verdicts: [] };
  const output = item.output;
  if (!output) return { ...base, score: 0, status: "missing", stage: "none", detail: "no output for this item" };
  const trace: TurnTrace[] = [
    {
      turnId: (item.conversation?.index ?? 0) + 1,
      query: item.query,
      answer: output.answer,
      calls: (output.toolCalls ?? []).map((c) => ({ name: c.name, arguments: c.params })),
      responses: [],
    },
  ];
  const gap = outputGap(kind, output);
  if (gap) return { ...base, score: 0, status: "agent_error", stage: kind, detail: `the output has ${gap}`, trace };
  const evaluation = await evaluateItem(evaluator, item, opts.now);
  if (evaluation.status === "scored") return { ...base, score: evaluation.score!, status: "scored", stage: kind, trace, evaluation };
  // Routed items are never skipped; an error is the evaluator's or its judge's: rescore, never a silent 0.
  return { ...base, score: 0, status: "judge_error", stage: kind, detail: evaluation.error ?? evaluation.reasoning, trace, evaluation };
}

async function scoreItem(benchmark: Benchmark, { cap, judge, gt, prediction }: Extract<Task, { kind: "dialogue" }>, opts: ScoreOptions): Promise<ItemResult> {
  const { weight, sources } = itemWeight(cap.spec, gt, benchmark.spec.retrieverTools);
  const base = {
    capability: cap.spec.id,
    domain: gt.domain,
    uuid: gt.uuid,
    weight,
    sources,
    replay: opts.replay.mode,
    verified: opts.replay.verified,
  };
  const unscored = (status: ItemStatus, detail: string): ItemResult => ({ ...base, score: 0, status, stage: "none", policy: "skipped", turns: [], verdicts: [], detail });

  if (!prediction) return unscored("missing", "no prediction for this item");
  if (prediction.status === "error") return unscored("agent_error", prediction.error || "the agent reported an error");

  let replayed: ReplayOutcome;
  try {
    replayed = await opts.replay.replay({ capability: cap.spec, groundTruth: gt, prediction });
  } catch (err) {
    return unscored("replay_error", `replay failed: ${err instanceof Error ? err.message : String(err)}`);
  }

  const policy = cap.spec.policies ? resolvePolicy(gt, benchmark.policyTable) : undefined;
  const scoredTurns = cap.spec.scoredTurns === "all" ? gt.turns : gt.turns.slice(-1);
  const now = opts.now ?? (() => performance.now());
  const turns: TurnScore[] = [];
  const trace: TurnTrace[] = [];
  let lastPair: { predicted: Turn; expected: Turn } | undefined;
  for (const gtTurn of scoredTurns) {
    const predTurn = pairTurn(prediction, gtTurn, cap.spec.scoredTurns);
    if (!predTurn) {
      lastPair = undefined;
      turns.push({ turnId: gtTurn.turnId, score: 0, stage: "none", status: "missing_turn", verdicts: [] });
      continue;
    }
    lastPair = { predicted: predTurn, expected: gtTurn };
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
          hasResponses: opts.replay.providesResponses,
        },
        { judge, now },
      ),
    );
  }
  const last = turns[turns.length - 1]!;
  const score = turns.reduce((s, t) => s + t.score, 0) / turns.length;
  const judgeError = turns.some((t) => t.status === "judge_error");
  return {
    ...base,
    score,
    status: judgeError ? "judge_error" : "scored",
    stage: last.stage,
    policy: last.verdicts.find((v) => v.stage === "policy")?.outcome ?? "skipped",
    turns: turns.map(({ turnId, score, stage, status }) => ({ turnId, score, stage, status })),
    verdicts: turns.flatMap((t) => t.verdicts),
    trace,
    ...(lastPair ? { trajectory: trajectoryDiagnostic(lastPair.predicted.calls, lastPair.expected.calls) } : {}),
    ...(last.status === "missing_turn" ? { detail: `no predicted turn with turn_id ${last.turnId}` } : {}),
  };
}

/** The predicted turn for a ground-truth turn; a lone predicted turn stands for the last one. */
function pairTurn(prediction: PredictedDialogue, gtTurn: Turn, mode: "last" | "all"): Turn | undefined {
  const exact = prediction.turns.find((t) => t.turnId === gtTurn.turnId);
  if (exact) return exact;
  return mode === "last" && prediction.turns.length === 1 ? prediction.turns[0] : undefined;
}
