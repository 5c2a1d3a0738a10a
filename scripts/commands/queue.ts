/**
 * `submit <bundle> --benchmark <dir>`: registers the benchmark and ingests a local bundle
 * (validated, then queued for scoring). `worker`: scores queued jobs; a job of a worker that
 * died resumes. Both use the database in AGENTBOARD_DB (or --db).
 */
import path from "node:path";
import { openDatabase } from "../../db/client";
import { BenchmarkError } from "../../lib/benchmark/load-benchmark";
import { registerBenchmark } from "../../lib/submissions/benchmarks";
import { ingestBundle } from "../../lib/submissions/ingest";
import { createScoringDeps } from "../../lib/submissions/scoring-deps";
import { runWorker } from "../../lib/submissions/worker";
import { CliError, usageError } from "./cli-errors";
import { githubIntake, startStatusMirror } from "./github";

export interface SubmitFlags {
  benchmark: string;
  db?: string;
  agent?: string;
  judge?: string;
  judgeModel?: string;
  replay?: string;
}

export async function submitCommand(bundle: string, flags: SubmitFlags): Promise<number> {
  const db = openDatabase(flags.db);
  try {
    const { versionId } = await registerBenchmark(db, path.resolve(flags.benchmark), { now: new Date() }).catch((err: unknown) => {
      throw err instanceof BenchmarkError ? new CliError(err.message, 2) : err;
    });
    if (flags.judge && flags.judge !== "rules" && flags.judge !== "openai") throw usageError(`--judge must be "rules" or "openai"`);
    if (flags.replay && !["mcp", "recorded", "none"].includes(flags.replay)) throw usageError(`--replay must be "mcp", "recorded" or "none"`);
    const run = {
      ...(flags.judge ? { judgeKind: flags.judge as "rules" | "openai" } : {}),
      ...(flags.judgeModel ? { judgeModel: flags.judgeModel } : {}),
      ...(flags.replay ? { replayMode: flags.replay as "mcp" | "recorded" | "none" } : {}),
    };
    const out = await ingestBundle(db, { versionId, bundlePath: path.resolve(bundle), source: "local", sourceRef: path.resolve(bundle), actor: "cli", run, ...(flags.agent ? { metadata: { agentName: flags.agent } } : {}) }, () => new Date());
    process.stdout.write(`${JSON.stringify(out)}\n`);
    return out.state === "invalid" ? 1 : 0;
  } finally {
    db.$client.close();
  }
}

export interface WorkerFlags {
  db?: string;
  untilIdle?: boolean;
}

export async function workerCommand(flags: WorkerFlags): Promise<number> {
  const db = openDatabase(flags.db);
  const deps = createScoringDeps(db, {
    judge: { ...(process.env.AGENTBOARD_JUDGE_BASE_URL ? { baseUrl: process.env.AGENTBOARD_JUDGE_BASE_URL } : {}), ...(process.env.AGENTBOARD_JUDGE_API_KEY ? { apiKey: process.env.AGENTBOARD_JUDGE_API_KEY } : {}) },
  });
  const stop = new AbortController();
  process.once("SIGINT", () => stop.abort());
  process.once("SIGTERM", () => stop.abort());
  const log = (l: string) => process.stderr.write(`${l}\n`);
  // With GitHub configured, submission issues follow the scoring as it goes.
  const github = await githubIntake(db, log).catch(() => null);
  const stopMirror = github?.repo ? startStatusMirror(github.intake, github.repo, 10_000, log) : async () => {};
  try {
    const n = await runWorker(db, deps, { untilIdle: flags.untilIdle ?? false, signal: stop.signal, log });
    process.stderr.write(`worker stopped after ${n} job(s)\n`);
    return 0;
  } finally {
    await stopMirror();
    await deps.close();
    db.$client.close();
  }
}
