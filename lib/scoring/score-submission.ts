/**
 * Scores every ground-truth item of a benchmark against a validated submission, each by its
 * capability's scorer (the registry). Missing predictions and agent errors are items with
 * score 0 and a status that says so; a judge fault is `judge_error`, never a silent 0.
 */
import type { Benchmark } from "../benchmark/load-benchmark";
import type { ReplayPort } from "../replay/replay-port";
import type { Submission } from "../validate/validate-bundle";
import { scorerOf } from "./capability-scorers/registry";
import type { Grader } from "./judges/grader";
import { itemKey, type ItemResult } from "./item-result";
import { mapPool } from "./limit";

export interface ScoreOptions {
  grader: Grader;
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

export async function scoreSubmission(benchmark: Benchmark, submission: Submission, opts: ScoreOptions): Promise<ItemResult[]> {
  const ctx = { benchmark, submission, grader: opts.grader, replay: opts.replay, now: opts.now ?? (() => performance.now()) };
  const tasks = benchmark.capabilities.flatMap((cap) => scorerOf(cap.spec.scorer).tasks(cap, ctx));
  let done = 0;
  opts.onProgress?.(0, tasks.length);
  return mapPool(tasks, opts.concurrency ?? 64, async (task) => {
    const stored = opts.done?.get(itemKey(task.capability, task.uuid));
    const result = stored ?? (await task.run());
    if (!stored) opts.onItem?.(result);
    opts.onProgress?.(++done, tasks.length);
    return result;
  });
}
