/** Scoring runs and their durable jobs. A rescore is a new run; old runs are kept. */
import type { Benchmark } from "../benchmark/load-benchmark";
import type { ReplayMode } from "../replay/replay-port";
import { jobs, scoringRuns } from "../../db/schema";
import type { Tx } from "./transitions";

export interface RunSpec {
  judgeKind: "rules" | "openai";
  judgeModel?: string;
  replayMode: ReplayMode;
}

/** The default run: the benchmark's judge, MCP replay where tool servers are declared. */
export function defaultRunSpec(benchmark: Benchmark): RunSpec {
  const replayMode: ReplayMode = benchmark.capabilities.some((c) => c.spec.environment) ? "mcp" : "recorded";
  return { judgeKind: benchmark.spec.judge.kind, ...(benchmark.spec.judge.model ? { judgeModel: benchmark.spec.judge.model } : {}), replayMode };
}

export function queueRun(tx: Tx, submissionId: number, benchmark: Benchmark, spec: Partial<RunSpec>, at: Date): number {
  const s = { ...defaultRunSpec(benchmark), ...spec };
  const run = tx
    .insert(scoringRuns)
    .values({ submissionId, judgeKind: s.judgeKind, judgeModel: s.judgeModel ?? null, replayMode: s.replayMode, verified: s.replayMode === "mcp", status: "queued", createdAt: at })
    .returning()
    .get();
  tx.insert(jobs).values({ kind: "score", runId: run.id, state: "queued", createdAt: at, updatedAt: at }).run();
  return run.id;
}
