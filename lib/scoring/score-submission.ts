/**
 * Scores every ground-truth item of a benchmark against a validated submission, each by its
 * capability's scorer (the registry). Missing predictions and agent errors are items with
 * score 0 and a status that says so; a judge fault is `judge_error`, never a silent 0.
 */
import type { Benchmark } from "../benchmark/load-benchmark";
import type { ReplayPort } from "../replay/replay-port";
import type { Submission } from "../validate/validate-bundle";
import type { ItemTask } from "./capability-scorers/capability-scorer";
import { scorerOf } from "./capability-scorers/registry";
import type { Grader } from "../judges/grader";
import { loggingGrader, withGradeLog } from "../judges/grade-log";
import { withPanelLog } from "../judges/panel-grader";
import type { ItemResult } from "./item-result";
import { itemKey, trialItemKey } from "../benchmark/item-key";
import { mapPool } from "../judges/limit";
import type { ScoreThreads } from "./score-threads";
import { createHeapGrowthBound } from "../validate/heap-bound";
import { summarizeItem, type ItemDetail } from "./item-summary";

export interface ScoreOptions {
  grader: Grader;
  replay: ReplayPort;
  /** Items scored at once; the judge bounds its own calls separately. */
  concurrency?: number;
  now?: () => number;
  onProgress?: (done: number, total: number) => void;
  /** Which trial of the bundle the submission's predictions are (1-based, default 1): each item carries it. */
  trial?: number;
  /** Results a resumed run already holds, keyed by trialItemKey (capability, uuid, trial): not scored again. */
  done?: ReadonlyMap<string, ItemResult>;
  /** Called as each item is scored (to store it before the run completes). */
  onItem?: (item: ItemResult) => void;
  /**
   * Worker threads that score shards too (score-threads.ts, started with the same judge and
   * replay): this thread takes the shards they have not. Not with `done` or `onItem`, whose
   * items must all pass through here.
   */
  threads?: ScoreThreads;
  /** Collect garbage as items complete once the heap has grown (heap-bound.ts), for a caller that enabled a collector. */
  boundHeap?: boolean;
  /** What each item keeps (item-summary.ts); `full` by default. */
  detail?: ItemDetail;
}

export async function scoreSubmission(benchmark: Benchmark, submission: Submission, opts: ScoreOptions): Promise<ItemResult[]> {
  const trial = opts.trial ?? 1;
  // Each item keeps the keyed grades it asked for (judges/grade-log.ts), to export its verdicts.
  const grader = loggingGrader(opts.grader, benchmark.content?.keySalt ?? "");
  const ctx = { benchmark, submission, trial, grader, replay: opts.replay, now: opts.now ?? (() => performance.now()) };
  const keep = opts.detail === "summary" ? summarizeItem : (item: ItemResult) => item;
  const runTask = async (task: ItemTask) => keep(await scoreTask(task));
  const tasks = benchmark.capabilities.flatMap((cap) => scorerOf(cap.spec.scorer).tasks(cap, ctx));
  let done = 0;
  const bound = opts.boundHeap ? createHeapGrowthBound() : undefined;
  const progress = (n: number) => {
    bound?.();
    opts.onProgress?.(n, tasks.length);
  };
  opts.onProgress?.(0, tasks.length);
  if (opts.threads && !opts.done && !opts.onItem) {
    const threads = opts.threads;
    const out = new Array<ItemResult>(tasks.length);
    const here = async (indexes: number[]) => {
      const items = await mapPool(indexes, opts.concurrency ?? 64, async (i) => {
        const item = await runTask(tasks[i]!);
        progress(++done);
        return item;
      });
      indexes.forEach((i, k) => (out[i] = items[k]!));
    };
    const shards = new Map<string, number[]>();
    const unsharded: number[] = [];
    tasks.forEach((t, i) => {
      if (t.shard === undefined) return unsharded.push(i);
      const k = itemKey(t.capability, t.shard);
      const list = shards.get(k);
      if (list) list.push(i);
      else shards.set(k, [i]);
    });
    const elsewhere: Promise<void>[] = [];
    for (const indexes of shards.values()) {
      const first = tasks[indexes[0]!]!;
      const taken = threads.take(first.capability, first.shard!);
      if (!taken) {
        await here(indexes);
        continue;
      }
      elsewhere.push(
        taken.then(async (items) => {
          // A shard whose worker failed, or answered for other items, is scored here.
          if (!items || items.length !== indexes.length || items.some((it, k) => it.uuid !== tasks[indexes[k]!]!.uuid)) return here(indexes);
          indexes.forEach((i, k) => (out[i] = keep(items[k]!)));
          progress((done += indexes.length));
        }),
      );
    }
    // Items no worker can take are scored while the workers finish theirs, not after.
    await here(unsharded);
    await Promise.all(elsewhere);
    return out;
  }
  return mapPool(tasks, opts.concurrency ?? 64, async (task) => {
    const stored = opts.done?.get(trialItemKey(task.capability, task.uuid, trial));
    const result = stored ?? (await runTask(task));
    if (!stored) opts.onItem?.(result);
    progress(++done);
    return result;
  });
}

/** One item, with the keyed grades it used (none for the rules judge: its grades have no prompt). */
async function scoreTask(task: ItemTask): Promise<ItemResult> {
  // A panel's grades are kept with the item too: each member's, and whether they disagreed (panel-grader.ts).
  const { value: { value, grades }, panel } = await withPanelLog(() => withGradeLog(() => task.run()));
  return { ...value, ...(grades.length > 0 ? { grades } : {}), ...(panel.length > 0 ? { panel } : {}) };
}
