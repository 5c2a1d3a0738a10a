/**
 * `replay-gt --benchmark <dir>`: replays every ground-truth dialogue against the benchmark's
 * environment once and stores the responses for all later scoring runs. Reports responses
 * that differ from those stored in the ground-truth files (environment drift).
 */
import { canonicalJson } from "../../lib/scoring/canonical-json";
import { groundTruthFilePath, saveGroundTruthStore } from "../../lib/replay/groundtruth-file";
import { createMcpReplay, createMemoryGroundTruthStore } from "../../lib/replay/mcp-replay";
import { mapPool } from "../../lib/scoring/limit";
import { CliError } from "./cli-errors";
import { loadBenchmarkOrFail } from "./load";
import { createProgress } from "./progress";

export interface ReplayGtFlags {
  benchmark: string;
  concurrency?: string;
  out?: string;
  quiet?: boolean;
}

export async function replayGtCommand(flags: ReplayGtFlags): Promise<number> {
  const benchmark = await loadBenchmarkOrFail(flags.benchmark);
  const caps = benchmark.capabilities.filter((c) => c.spec.environment);
  if (caps.length === 0) throw new CliError("this benchmark declares no environment (capabilities[].environment in benchmark.yaml)", 2);
  const store = createMemoryGroundTruthStore();
  const concurrency = Number(flags.concurrency ?? 16);
  const replay = createMcpReplay(benchmark, { concurrency, groundTruth: store });
  const work = caps.flatMap((c) => [...c.byUuid.values()].map((gt) => ({ cap: c, gt })));
  const progress = flags.quiet ? undefined : createProgress("replaying ground truth");
  let done = 0;
  let drift = 0;
  const failures: string[] = [];
  try {
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
      progress?.(++done, work.length);
    });
  } finally {
    await replay.close();
  }
  if (failures.length) {
    process.stderr.write(`${failures.length} ground-truth dialogue(s) could not be replayed:\n  ${failures.slice(0, 10).join("\n  ")}\n`);
    throw new CliError("ground-truth replay incomplete; nothing was stored", 1);
  }
  const file = flags.out ?? groundTruthFilePath(benchmark);
  await saveGroundTruthStore(benchmark, store, file);
  const s = replay.stats();
  process.stdout.write(`replayed ${work.length} ground-truth dialogues (${s.calls} tool calls, ${s.sessionsStarted} server sessions) → ${file}\n`);
  if (drift) process.stdout.write(`note: ${drift} turn(s) replay differently from the tool_response stored in the ground-truth files; scoring uses the replayed responses\n`);
  return 0;
}
