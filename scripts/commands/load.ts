import { stat } from "node:fs/promises";
import { availableParallelism } from "node:os";
import path from "node:path";
import { loadGroundTruthIndex, type LoadedIndex } from "../../lib/benchmark/ground-truth-index";
import { BenchmarkError, loadBenchmark, type Benchmark } from "../../lib/benchmark/load-benchmark";
import type { FileThreadOptions } from "../../lib/validate/file-threads";
import { bundled, bundledWorker } from "./build-info";
import { CliError, usageError } from "./cli-errors";

/** A missing or broken benchmark is a usage problem: exit 2 with the precise reasons. */
export async function loadBenchmarkOrFail(dir: string): Promise<Benchmark> {
  return benchmarkOrFail(() => loadBenchmark(dir));
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

async function benchmarkOrFail<T>(load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (err) {
    if (err instanceof BenchmarkError) throw new CliError(err.message, 2);
    throw err;
  }
}

/** A bundle path that does not exist is a usage error (exit 2), not an invalid bundle. */
export async function bundleOrFail(bundle: string): Promise<void> {
  if (!(await stat(bundle).catch(() => undefined))) throw usageError(`bundle not found: ${bundle} (expected a folder or a .zip file)`);
}

/** Files of a bundle this large are read on worker threads (one per core); smaller ones on the main thread. */
export const THREADS_MIN_BYTES = 24 * 1024 ** 2;

/**
 * Threads for reading a bundle's files: this one and a worker per further core, from the
 * bundle's worker entry. AGENTBOARD_THREADS sets how many in all (1: this thread alone).
 */
export function fileThreads(env: NodeJS.ProcessEnv = process.env): FileThreadOptions | undefined {
  const entry = bundledWorker("validate-worker");
  const asked = env.AGENTBOARD_THREADS === undefined || env.AGENTBOARD_THREADS === "" ? undefined : Number(env.AGENTBOARD_THREADS);
  if (asked !== undefined && !(Number.isInteger(asked) && asked >= 1)) throw usageError(`AGENTBOARD_THREADS must be a whole number of threads (1 or more), got "${env.AGENTBOARD_THREADS}"`);
  const workers = (asked ?? availableParallelism()) - 1;
  return entry && workers > 0 ? { entry, count: workers, minBytes: THREADS_MIN_BYTES } : undefined;
}
