import { BenchmarkError, loadBenchmark, type Benchmark } from "../../lib/benchmark/load-benchmark";
import { CliError } from "./cli-errors";

/** A missing or broken benchmark is a usage problem: exit 2 with the precise reasons. */
export async function loadBenchmarkOrFail(dir: string): Promise<Benchmark> {
  try {
    return await loadBenchmark(dir);
  } catch (err) {
    if (err instanceof BenchmarkError) throw new CliError(err.message, 2);
    throw err;
  }
}
