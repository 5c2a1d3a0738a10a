/**
 * Scoring on worker threads, so a large bundle uses every core. A shard is one ground-truth
 * file of a capability scored as records (the waterfall's `<domain>.json`): a worker
 * (score-worker.ts) loads that file and the bundle's file for the domain itself, scores the
 * items with the same scorer and sends back their results. Workers start before the calling
 * thread has loaded the ground truth and validated the bundle, taking shards from the end of
 * the list; the calling thread then takes them from the front (score-submission.ts), so the
 * two meet in the middle. Only offline judges and replays (rules; recorded or none) score on
 * threads: an MCP replay's servers and an OpenAI judge's limits and cache belong to one process.
 *
 * Results come back as JSON, as results.json holds them: a value the lossless reader kept as a
 * JsonNumber arrives as its number, which renders the same. A shard whose worker fails is
 * scored on the calling thread.
 */
import { Worker } from "node:worker_threads";
import { groundTruthFiles } from "../validate/ground-truth-index";
import { loadBenchmarkSpec } from "../benchmark/load-benchmark";
import type { ValidationLimits } from "../validate/limits";
import { readerOf } from "../validate/outputs-readers/registry";
import type { ItemResult } from "./item-result";
import type { JudgeSettings } from "../judges/judge-settings";

export interface ScoreThreadOptions {
  /** The worker's entry module: score-worker.ts (through a TypeScript loader) or its bundled .mjs. */
  entry: URL;
  execArgv?: string[];
  /** Worker threads besides the calling thread. */
  count: number;
  /** The benchmark folder and the bundle (folder or ZIP), as the calling thread reads them. */
  benchmark: string;
  bundle: string;
  limits?: Partial<ValidationLimits>;
  /** An offline judge: rules. */
  judge: JudgeSettings;
  replay: "recorded" | "none";
}

/** What a worker is given (workerData): where to read, how to judge, the shards and their claims. */
export interface ScoreWorkerData {
  benchmark: string;
  bundle: string;
  limits?: Partial<ValidationLimits>;
  judge: JudgeSettings;
  replay: "recorded" | "none";
  shards: { capability: string; domain: string }[];
  /** One Int32 per shard over shared memory: 0 waiting, 1 taken by the calling thread, 2 by a worker. */
  claims: SharedArrayBuffer;
}

/** A shard's results, as a worker sends them; `drained` when it finds no shard left to claim. */
export type ShardReply = { shard: number; items: string } | { shard: number; error: string } | { drained: true };

export interface ScoreThreads {
  /**
   * The shard's results when a worker has taken it; null when it was still waiting, in which
   * case it is the caller's now (to score on its thread), or when its worker failed.
   */
  take(capability: string, domain: string): Promise<ItemResult[] | null> | null;
  /** Settles when every worker has found no shard left to claim (or has stopped). */
  drained(): Promise<void>;
  close(): Promise<void>;
}

export const WAITING = 0;
export const TAKEN_HERE = 1;
export const TAKEN_BY_WORKER = 2;

/**
 * Starts the workers. Shards are claimed through shared memory (compare-and-swap), never by
 * message: the calling thread scores without yielding to its event loop, and workers must not
 * wait for it to hand them work. Workers claim from the last shard down, this thread from
 * the first up.
 */
export async function startScoreThreads(opts: ScoreThreadOptions): Promise<ScoreThreads> {
  const { spec } = await loadBenchmarkSpec(opts.benchmark);
  const files = groundTruthFiles(opts.benchmark, spec.capabilities.filter((c) => readerOf(c.scorer).records)) ?? [];
  const shards = files.map((f) => ({ capability: f.capability.id, domain: f.domain }));
  const claims = new Int32Array(new SharedArrayBuffer(4 * Math.max(1, shards.length)));
  const indexOf = new Map(shards.map((sh, i) => [`${sh.capability}\0${sh.domain}`, i]));
  const data: ScoreWorkerData = { benchmark: opts.benchmark, bundle: opts.bundle, judge: opts.judge, replay: opts.replay, shards, claims: claims.buffer as SharedArrayBuffer, ...(opts.limits ? { limits: opts.limits } : {}) };
  /** Results by shard, settled when a worker sends them (null: it failed). */
  const results = new Map<number, { promise: Promise<ItemResult[] | null>; settle: (items: ItemResult[] | null) => void }>();
  const resultOf = (i: number) => {
    let r = results.get(i);
    if (!r) {
      let settle!: (items: ItemResult[] | null) => void;
      const promise = new Promise<ItemResult[] | null>((resolve) => (settle = resolve));
      results.set(i, (r = { promise, settle }));
    }
    return r;
  };
  const drains: Promise<void>[] = [];
  const workers = Array.from({ length: shards.length > 0 ? Math.max(0, opts.count) : 0 }, () => {
    const worker = new Worker(opts.entry, { workerData: data, ...(opts.execArgv ? { execArgv: opts.execArgv } : {}) });
    let alive = true;
    let drained!: () => void;
    drains.push(new Promise<void>((resolve) => (drained = resolve)));
    worker.on("message", (reply: ShardReply) => {
      if ("drained" in reply) drained();
      else resultOf(reply.shard).settle("items" in reply ? (JSON.parse(reply.items) as ItemResult[]) : null);
    });
    const fail = () => {
      drained();
      if (!alive) return;
      alive = false;
      // Shards a dead worker claimed but never sent become this thread's; which worker holds
      // which is not tracked, so every unsent claim does (a settled result stays settled).
      for (let i = 0; i < shards.length; i++) if (Atomics.load(claims, i) === TAKEN_BY_WORKER) resultOf(i).settle(null);
    };
    worker.on("error", fail);
    worker.on("exit", fail);
    return worker;
  });

  return {
    take(capability, domain) {
      const i = indexOf.get(`${capability}\0${domain}`);
      if (i === undefined) return null;
      if (Atomics.compareExchange(claims, i, WAITING, TAKEN_HERE) === WAITING) return null;
      return Atomics.load(claims, i) === TAKEN_BY_WORKER ? resultOf(i).promise : null;
    },
    async drained() {
      await Promise.all(drains);
    },
    async close() {
      // Whatever is still waiting stays unscored: the workers stop claiming.
      for (let i = 0; i < shards.length; i++) Atomics.compareExchange(claims, i, WAITING, TAKEN_HERE);
      await Promise.all(workers.map((w) => w.terminate()));
    },
  };
}
