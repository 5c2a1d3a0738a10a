/**
 * Runs evaluators over items: every (evaluator, item) pair under one concurrency bound,
 * results kept in dataset order, with the latency summary of the same items. Pure: the
 * judges inside the evaluators bring their own HTTP, and the clock is passed in.
 */
import type { EvalItem, EvalKind } from "../formats/eval-dataset";
import { mapPool } from "../judges/limit";
import { evaluateItem, type Evaluator } from "./evaluator";
import { summarizeLatency, type LatencySummary } from "./latency";
import { summarize, type EvalItemResult, type EvalSummary } from "./result";
import { filterItemsByMethods } from "./routing";

export interface EvaluatorRun {
  name: string;
  kind: EvalKind;
  methodId: string;
  judge: string;
  summary: EvalSummary;
  items: EvalItemResult[];
}

export interface EvalRun {
  evaluators: EvaluatorRun[];
  latency: LatencySummary;
  nItems: number;
  /** Error items over all evaluators: the run is incomplete when this is above 0. */
  nErrors: number;
}

export interface EvalRunInput {
  items: readonly EvalItem[];
  evaluators: readonly Evaluator[];
  /** (evaluator, item) pairs evaluated at once; judges may limit their own calls further. */
  concurrency?: number;
  onProgress?: (done: number, total: number) => void;
  now?: () => number;
}

export async function runEvaluation(input: EvalRunInput): Promise<EvalRun> {
  const tasks = input.evaluators.flatMap((evaluator) => input.items.map((item) => ({ evaluator, item })));
  let done = 0;
  const results = await mapPool(tasks, input.concurrency ?? 8, async ({ evaluator, item }) => {
    const r = await evaluateItem(evaluator, item, input.now);
    input.onProgress?.(++done, tasks.length);
    return r;
  });
  const evaluators = input.evaluators.map((e, i): EvaluatorRun => {
    const items = results.slice(i * input.items.length, (i + 1) * input.items.length);
    return { name: e.name, kind: e.kind, methodId: e.methodId, judge: e.judgeId, summary: summarize(items), items };
  });
  return {
    evaluators,
    latency: summarizeLatency(input.items),
    nItems: input.items.length,
    nErrors: evaluators.reduce((n, e) => n + e.summary.nError, 0),
  };
}

/**
 * DATASET_FILTER as VSS applies it: items narrowed to the chosen `evaluation_method` ids
 * (single-turn items left with none dropped, conversations kept whole when any turn matches);
 * every evaluator still runs, so the others skip what is left. `all` keeps everything.
 */
export function selectByKinds(items: readonly EvalItem[], evaluators: readonly Evaluator[], kinds: readonly EvalKind[] | "all"): { items: EvalItem[]; evaluators: Evaluator[] } {
  if (kinds === "all") return { items: [...items], evaluators: [...evaluators] };
  return { items: filterItemsByMethods(items, new Set<string>(kinds)), evaluators: [...evaluators] };
}
