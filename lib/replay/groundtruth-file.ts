/**
 * Ground-truth replay results on disk. They depend only on the benchmark version and its
 * environment, so they are computed once (`replay-gt`) and reused by every submission; a
 * file made for another version or environment is ignored, never trusted.
 */
import { createHash } from "node:crypto";
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import path from "node:path";
import type { Benchmark } from "../benchmark/load-benchmark";
import { createMemoryGroundTruthStore, type GroundTruthStore } from "./mcp-replay";
import type { ReplayedTurn } from "./replay-port";

interface GroundTruthFile {
  schema: "agentboard.groundtruth-replay/1";
  benchmark: { slug: string; version: string };
  environmentHash: string;
  dialogues: Record<string, Record<string, ReplayedTurn[]>>;
}

export function groundTruthFilePath(benchmark: Benchmark): string {
  return path.join(benchmark.root, ".replay", `groundtruth-${benchmark.spec.slug}-${benchmark.spec.version}.json`);
}

export function environmentHash(benchmark: Benchmark): string {
  const envs = benchmark.capabilities.map((c) => [c.spec.id, c.spec.environment ?? null]);
  return createHash("sha256").update(JSON.stringify({ envs, retrievers: benchmark.spec.retrieverTools })).digest("hex");
}

/** The stored results, or an empty store (with the reason) when there is no usable file. */
export async function loadGroundTruthStore(benchmark: Benchmark, file = groundTruthFilePath(benchmark)) {
  const store = createMemoryGroundTruthStore();
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch {
    return { store, loaded: 0, note: `no stored ground-truth replay at ${file}; ground truth is replayed live` };
  }
  let data: GroundTruthFile;
  try {
    data = JSON.parse(text) as GroundTruthFile;
  } catch {
    return { store, loaded: 0, note: `${file} is not valid JSON; ground truth is replayed live` };
  }
  if (data.schema !== "agentboard.groundtruth-replay/1" || data.benchmark?.slug !== benchmark.spec.slug || data.benchmark?.version !== benchmark.spec.version || data.environmentHash !== environmentHash(benchmark)) {
    return { store, loaded: 0, note: `${file} was made for another benchmark version or environment; ground truth is replayed live` };
  }
  let loaded = 0;
  for (const [cap, byUuid] of Object.entries(data.dialogues)) {
    for (const [uuid, turns] of Object.entries(byUuid)) {
      store.set(cap, uuid, turns);
      loaded++;
    }
  }
  return { store, loaded, note: `${loaded} ground-truth replays loaded from ${file}` };
}

export async function saveGroundTruthStore(benchmark: Benchmark, store: ReturnType<typeof createMemoryGroundTruthStore>, file = groundTruthFilePath(benchmark)): Promise<void> {
  const dialogues: GroundTruthFile["dialogues"] = {};
  for (const [cap, uuid, turns] of store.entries()) (dialogues[cap] ??= {})[uuid] = turns;
  const doc: GroundTruthFile = { schema: "agentboard.groundtruth-replay/1", benchmark: { slug: benchmark.spec.slug, version: benchmark.spec.version }, environmentHash: environmentHash(benchmark), dialogues };
  await mkdir(path.dirname(file), { recursive: true });
  // Write then rename, so a crash never leaves a half-written file behind.
  await writeFile(`${file}.tmp`, JSON.stringify(doc));
  await rename(`${file}.tmp`, file);
}
