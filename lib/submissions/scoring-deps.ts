/**
 * What a worker scores with: one warm replay port per benchmark and mode, the run's judge
 * from the one judge factory (the run's recorded kind and model, then the worker's
 * environment, then benchmark.yaml), the grade cache in the database, and the stored
 * ground-truth replays.
 */
import type { Db } from "../../db/client";
import type { Benchmark } from "../benchmark/load-benchmark";
import { loadGroundTruthStore } from "../replay/groundtruth-file";
import { createMcpReplay } from "../replay/mcp-replay";
import { createNoReplay, createRecordedReplay } from "../replay/recorded-replay";
import type { ReplayPort } from "../replay/replay-port";
import { createGrader, recordedJudge, resolveJudgeSettings, type GraderTransport } from "../judges/judge-settings";
import type { AgentboardVersion } from "../scoring/manifest";
import pkg from "../../package.json";
import { validationLimitsFromEnv } from "../validate/limit-settings";
import { createDbGradeCache } from "./db-grade-cache";
import { createDbDecisions } from "./grade-disputes";
import type { ScoringDeps } from "./score-job";
import type { HostedStorage } from "./storage-settings";

export interface ScoringDepsOptions {
  now?: () => Date;
  /** The environment the judge's settings and key come from (the worker's own, usually). */
  env?: Readonly<Record<string, string | undefined>>;
  /** Test seams for the judge's transport. */
  transport?: GraderTransport;
  replayConcurrency?: number;
  /** The worker's stop signal: judges stop waiting, and a job in hand goes back to the queue. */
  signal?: AbortSignal;
  /** How often a running job renews its heartbeat (default DEFAULT_HEARTBEAT_MS, 30 s). */
  heartbeatMs?: number;
  /** What Agentboard is, for run manifests: the CLI passes its build; default package.json's version, commit unknown. */
  agentboard?: AgentboardVersion;
  /** Where bundles and benchmarks are read back by content (ScoringDeps.storage); default: the recorded paths only. */
  storage?: HostedStorage;
}

export function createScoringDeps(db: Db, opts: ScoringDepsOptions = {}): ScoringDeps & { close(): Promise<void> } {
  const now = opts.now ?? (() => new Date());
  const ports = new Map<string, Promise<ReplayPort>>();
  const cache = createDbGradeCache(db, now);
  const decisions = createDbDecisions(db);
  const transport: GraderTransport | undefined = opts.signal ? { ...opts.transport, signal: opts.signal } : opts.transport;
  return {
    now,
    ...(opts.signal ? { signal: opts.signal } : {}),
    ...(opts.heartbeatMs ? { heartbeatMs: opts.heartbeatMs } : {}),
    ...(opts.storage ? { storage: opts.storage } : {}),
    agentboard: opts.agentboard ?? { version: pkg.version, commit: null },
    // The budgets intake validated the bundle with (ingest.ts reads the same environment), so a
    // bundle accepted at intake is not refused when the worker validates it again.
    validationLimits: validationLimitsFromEnv(process.env),
    replayFor(benchmark: Benchmark, mode) {
      const key = `${benchmark.root}\0${benchmark.spec.version}\0${mode}`;
      let p = ports.get(key);
      if (!p) {
        p = (async (): Promise<ReplayPort> => {
          if (mode === "recorded") return createRecordedReplay();
          if (mode === "none") return createNoReplay();
          const { store } = await loadGroundTruthStore(benchmark);
          return createMcpReplay(benchmark, { groundTruth: store, ...(opts.replayConcurrency ? { concurrency: opts.replayConcurrency } : {}) });
        })();
        ports.set(key, p);
      }
      return p;
    },
    graderFor(benchmark, spec) {
      // The run chose its kind and model when it was queued: they come first, like flags.
      const settings = resolveJudgeSettings({ flags: { judge: spec.judgeKind, ...(spec.judgeModel ? { judgeModel: spec.judgeModel } : {}) }, env: opts.env ?? {}, config: benchmark.spec.judge });
      // A panel takes a maintainer's decision on a grade before asking its judges (grade-disputes.ts).
      return { grader: createGrader(settings, { cache, decisions, ...(transport ? { transport } : {}) }), judge: recordedJudge(settings) };
    },
    async close() {
      await Promise.all([...ports.values()].map(async (p) => (await p).close()));
    },
  };
}
