/**
 * What a worker scores with: one warm replay port per benchmark and mode, judges built from
 * the run's spec, the verdict cache in the database, and the stored ground-truth replays.
 */
import type { Db } from "../../db/client";
import type { Benchmark } from "../benchmark/load-benchmark";
import { loadGroundTruthStore } from "../replay/groundtruth-file";
import { createMcpReplay } from "../replay/mcp-replay";
import { createNoReplay, createRecordedReplay } from "../replay/recorded-replay";
import type { ReplayPort } from "../replay/replay-port";
import { createOpenAiJudge } from "../scoring/judges/openai-judge";
import { createOpenAiScoreJudge } from "../scoring/judges/openai-score-judge";
import { createRulesJudge } from "../scoring/judges/rules-judge";
import { createRulesScoreJudge } from "../scoring/judges/rules-score-judge";
import { createDbVerdictCache } from "./db-verdict-cache";
import type { ScoringDeps } from "./score-job";

export interface JudgeEndpoint {
  baseUrl?: string;
  apiKey?: string;
  concurrency?: number;
}

export function createScoringDeps(db: Db, opts: { now?: () => Date; judge?: JudgeEndpoint; replayConcurrency?: number } = {}): ScoringDeps & { close(): Promise<void> } {
  const now = opts.now ?? (() => new Date());
  const ports = new Map<string, Promise<ReplayPort>>();
  const cache = createDbVerdictCache(db, now);
  const endpoint = (spec: Parameters<ScoringDeps["judgeFor"]>[0]) => {
    const baseUrl = opts.judge?.baseUrl;
    if (!baseUrl || !spec.judgeModel) throw new Error("the openai judge needs a base URL and a model (AGENTBOARD_JUDGE_BASE_URL, benchmark.yaml judge.model)");
    return { baseUrl, model: spec.judgeModel, ...(opts.judge?.apiKey ? { apiKey: opts.judge.apiKey } : {}), concurrency: opts.judge?.concurrency ?? 16 };
  };
  return {
    now,
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
    judgeFor(spec) {
      if (spec.judgeKind === "rules") return createRulesJudge();
      return createOpenAiJudge({ ...endpoint(spec), cache });
    },
    scoreJudgeFor(spec) {
      if (spec.judgeKind === "rules") return createRulesScoreJudge();
      return createOpenAiScoreJudge({ ...endpoint(spec), cache });
    },
    async close() {
      await Promise.all([...ports.values()].map(async (p) => (await p).close()));
    },
  };
}
