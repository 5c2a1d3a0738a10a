import { readdirSync, statSync } from "node:fs";
import { stat } from "node:fs/promises";
import { availableParallelism } from "node:os";
import path from "node:path";
import { loadGroundTruthIndex, type LoadedIndex } from "../../lib/validate/ground-truth-index";
import { BenchmarkError, loadBenchmark, loadBenchmarkSpec, type Benchmark } from "../../lib/benchmark/load-benchmark";
import type { BenchmarkSpec } from "../../lib/benchmark/spec";
import type { JudgeSettings } from "../../lib/judges/judge-settings";
import { startScoreThreads, type ScoreThreads } from "../../lib/scoring/score-threads";
import { hostedStorageFromEnv, StorageSettingsError, type HostedStorage } from "../../lib/submissions/storage-settings";
import type { FileThreadOptions } from "../../lib/validate/file-threads";
import { bundled, bundledWorker } from "./build-info";
import { CliError, usageError } from "./cli-errors";

/** A missing or broken benchmark is a usage problem: exit 2 with the precise reasons. */
export async function loadBenchmarkOrFail(dir: string): Promise<Benchmark> {
  return benchmarkOrFail(() => loadBenchmark(dir));
}

/** The benchmark's benchmark.yaml alone (or VAKRA's defaults), before its ground truth is read. */
export async function loadSpecOrFail(dir: string): Promise<{ spec: BenchmarkSpec }> {
  return benchmarkOrFail(() => loadBenchmarkSpec(dir));
}

/**
 * The benchmark's ground-truth index for validation, cached in `<benchmark>/.agentboard-cache/`
 * by the bundle's build id (ground-truth-index.ts). Run from source there is no build id to
 * key it by, so the ground truth is read whole.
 */
export async function loadIndexOrFail(dir: string, useCache: boolean): Promise<LoadedIndex> {
  const cache = useCache && bundled ? { dir: path.join(dir, ".agentboard-cache"), salt: bundled.id } : undefined;
  return benchmarkOrFail(() => loadGroundTruthIndex(dir, cache));
}

/** Runs `load`; a BenchmarkError it throws becomes a usage error (exit 2). */
export async function benchmarkOrFail<T>(load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (err) {
    if (err instanceof BenchmarkError) throw new CliError(err.message, 2);
    throw err;
  }
}

/** The process's storage and cache from the environment; a wrong setting is a usage error (exit 2). */
export function storageOrFail(env: Readonly<Record<string, string | undefined>> = process.env): HostedStorage {
  try {
    return hostedStorageFromEnv(env);
  } catch (err) {
    throw err instanceof StorageSettingsError ? usageError(err.message) : err;
  }
}

/** A bundle path that does not exist is a usage error (exit 2), not an invalid bundle. */
export async function bundleOrFail(bundle: string): Promise<void> {
  if (!(await stat(bundle).catch(() => undefined))) throw usageError(`bundle not found: ${bundle} (expected a folder or a .zip file)`);
}

/** Files of a bundle this large are read on worker threads (one per core); smaller ones on the main thread. */
const THREADS_MIN_BYTES = 24 * 1024 ** 2;

/**
 * Bundles this large are scored on worker threads too. Below it a second thread does not pay
 * on a 2-core machine: it parses its shards' files again and warms up its own JIT (measured:
 * 5,187 dialogues score no faster on two threads; 51,870 about 11% faster).
 */
const SCORE_THREADS_MIN_BYTES = 24 * 1024 ** 2;

/**
 * Worker threads that score beside this one (score-threads.ts), for an offline judge and
 * replay, when the bundle is large enough and the CLI runs from its bundle; else undefined.
 * AGENTBOARD_THREADS sets how many threads in all.
 */
export async function scoreThreads(benchmark: string, bundle: string, judge: JudgeSettings, replay: "recorded" | "none", env: NodeJS.ProcessEnv = process.env): Promise<ScoreThreads | undefined> {
  const entry = bundledWorker("score-worker");
  const count = threadCount(env) - 1;
  if (!entry || count < 1 || bytesUnder(bundle) < SCORE_THREADS_MIN_BYTES) return undefined;
  return startScoreThreads({ entry, count, benchmark, bundle, judge, replay });
}

/** Size of a file, or of the files under a folder (stopping once past the threshold that matters). */
function bytesUnder(p: string, enough = SCORE_THREADS_MIN_BYTES): number {
  const s = statSync(p, { throwIfNoEntry: false });
  if (!s) return 0;
  if (!s.isDirectory()) return s.size;
  let total = 0;
  for (const e of readdirSync(p, { withFileTypes: true })) {
    if (e.isSymbolicLink()) continue;
    total += bytesUnder(path.join(p, e.name), enough - total);
    if (total >= enough) break;
  }
  return total;
}

/** Threads to use in all: AGENTBOARD_THREADS, else one per core. */
function threadCount(env: NodeJS.ProcessEnv): number {
  const asked = env.AGENTBOARD_THREADS === undefined || env.AGENTBOARD_THREADS === "" ? undefined : Number(env.AGENTBOARD_THREADS);
  if (asked !== undefined && !(Number.isInteger(asked) && asked >= 1)) throw usageError(`AGENTBOARD_THREADS must be a whole number of threads (1 or more), got "${env.AGENTBOARD_THREADS}"`);
  return asked ?? availableParallelism();
}

/**
 * Threads for reading a bundle's files: this one and a worker per further core, from the
 * bundle's worker entry. AGENTBOARD_THREADS sets how many in all (1: this thread alone).
 */
export function fileThreads(env: NodeJS.ProcessEnv = process.env): FileThreadOptions | undefined {
  const entry = bundledWorker("validate-worker");
  const workers = threadCount(env) - 1;
  return entry && workers > 0 ? { entry, count: workers, minBytes: THREADS_MIN_BYTES } : undefined;
}

/** `--replay`, defaulting to MCP replay wherever the benchmark declares tool servers. */
export function replayModeOf(mode: string | undefined, spec: BenchmarkSpec): "mcp" | "recorded" | "none" {
  const declared = spec.capabilities.some((c) => c.environment);
  const chosen = mode ?? (declared ? "mcp" : "recorded");
  if (chosen !== "mcp" && chosen !== "recorded" && chosen !== "none") throw usageError(`--replay must be "mcp", "recorded" or "none", got "${chosen}"`);
  if (chosen === "mcp" && !declared) throw usageError("--replay mcp needs tool servers: this benchmark declares no capabilities[].environment");
  return chosen;
}
