/**
 * `replay-gt --benchmark <dir>`: replays every ground-truth dialogue against the benchmark's
 * environment once and stores the responses for all later scoring runs. Reports responses
 * that differ from those stored in the ground-truth files (environment drift).
 */
import { dialogueCapability, type Benchmark } from "../../lib/benchmark/load-benchmark";
import { groundTruthFilePath, saveGroundTruthStore } from "../../lib/replay/groundtruth-file";
import { createMcpReplay, createMemoryGroundTruthStore, type McpReplayPort } from "../../lib/replay/mcp-replay";
import { canonicalJson } from "../../lib/formats/canonical-json";
import { mapPool } from "../../lib/judges/limit";
import { CliError } from "./cli-errors";
import { loadBenchmarkOrFail } from "./load";
import { createProgress } from "./progress";

export interface ReplayGtFlags {
  benchmark: string;
  concurrency?: string;
  out?: string;
  quiet?: boolean;
}

/** Replays all ground truth through `replay` (which stores it); returns drift and failures. */
export async function replayAllGroundTruth(benchmark: Benchmark, replay: McpReplayPort, concurrency: number, onProgress?: (done: number, total: number) => void) {
  // Only waterfall capabilities declare an environment (benchmark.yaml refuses it elsewhere).
  const work = benchmark.capabilities.filter((c) => c.spec.environment).map(dialogueCapability).flatMap((c) => [...c.byUuid.values()].map((gt) => ({ cap: c, gt })));
  let done = 0;
  let drift = 0;
  const failures: string[] = [];
  await mapPool(work, concurrency * 2, async ({ cap, gt }) => {
    try {
      const turns = await replay.replayGroundTruth(cap.spec, gt.uuid);
      const stored = replay.storedGroundTruth(cap.spec, gt.turns);
      turns.forEach((t, i) => {
        if (gt.turns[i]?.responses && canonicalJson(stored[i]?.responses) !== canonicalJson(t.responses)) drift++;
      });
    } catch (err) {
      failures.push(`${cap.spec.id}/${gt.domain}/${gt.uuid}: ${err instanceof Error ? err.message : String(err)}`);
    }
    onProgress?.(++done, work.length);
  });
  return { dialogues: work.length, drift, failures };
}

export async function replayGtCommand(flags: ReplayGtFlags): Promise<number> {
  const benchmark = await loadBenchmarkOrFail(flags.benchmark);
  if (!benchmark.capabilities.some((c) => c.spec.environment)) throw new CliError("this benchmark declares no environment (capabilities[].environment in benchmark.yaml)", 2);
  const store = createMemoryGroundTruthStore();
  const concurrency = Number(flags.concurrency ?? 16);
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new CliError("--concurrency must be a positive integer", 2);
  const replay = createMcpReplay(benchmark, { concurrency, groundTruth: store });
  let result: Awaited<ReturnType<typeof replayAllGroundTruth>>;
  try {
    result = await replayAllGroundTruth(benchmark, replay, concurrency, flags.quiet ? undefined : createProgress("replaying ground truth"));
  } finally {
    await replay.close();
  }
  if (result.failures.length) {
    process.stderr.write(`${result.failures.length} ground-truth dialogue(s) could not be replayed:\n  ${result.failures.slice(0, 10).join("\n  ")}\n`);
    throw new CliError("ground-truth replay incomplete; nothing was stored", 1);
  }
  const file = flags.out ?? groundTruthFilePath(benchmark);
  await saveGroundTruthStore(benchmark, store, file);
  const s = replay.stats();
  process.stdout.write(`replayed ${result.dialogues} ground-truth dialogues (${s.calls} tool calls, ${s.sessionsStarted} server sessions) → ${file}\n`);
  if (result.drift) process.stdout.write(`note: ${result.drift} turn(s) replay differently from the tool_response stored in the ground-truth files; scoring uses the replayed responses\n`);
  return 0;
}
