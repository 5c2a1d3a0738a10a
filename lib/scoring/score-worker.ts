/**
 * A worker thread of score-threads.ts: for each shard (a capability's `<domain>.json`) it
 * claims, loads that ground-truth file and the bundle's files for the domain, scores the items
 * with the capability's scorer and sends back their results as JSON. The calling thread
 * validates the whole bundle; a bundle it finds invalid is never scored, so nothing here
 * reports diagnostics.
 */
import { parentPort, workerData } from "node:worker_threads";
import { StringPool } from "../formats/string-pool";
import { indexBenchmark } from "../validate/ground-truth-index";
import { loadBenchmark, loadBenchmarkSpec } from "../benchmark/load-benchmark";
import { createNoReplay, createRecordedReplay } from "../replay/recorded-replay";
import { mapLayout } from "../validate/bundle-layout";
import { openBundle } from "../validate/bundle-source";
import { resolveLimits } from "../validate/limits";
import { checkOutputsFile } from "../validate/outputs-file";
import { DiagnosticSink } from "../formats/diagnostic";
import type { Submission } from "../validate/validate-bundle";
import { loaderOf } from "../benchmark/capability-loaders/registry";
import { readerOf } from "../validate/outputs-readers/registry";
import { scorerOf } from "./capability-scorers/registry";
import { createGrader } from "../judges/judge-settings";
import { mapPool } from "../judges/limit";
import { TAKEN_BY_WORKER, WAITING, type ScoreWorkerData, type ShardReply } from "./score-threads";

const port = parentPort;
if (port) {
  const data = workerData as ScoreWorkerData;
  const limits = resolveLimits(undefined, data.limits);
  const grader = createGrader(data.judge);
  const replay = data.replay === "recorded" ? createRecordedReplay() : createNoReplay();
  // Read once: the spec, the bundle's files and their layout; each shard then reads only its own files.
  const ready = (async () => {
    const { spec } = await loadBenchmarkSpec(data.benchmark);
    const opened = await openBundle(data.bundle, limits);
    if (!opened.ok) throw new Error("the bundle cannot be opened");
    return { spec, source: opened.source, layout: mapLayout(opened.source.files.map((f) => f.path), spec.capabilities, { maxTrials: limits.maxTrials }) };
  })();

  // Claims shards from the last one down until none is left waiting (score-threads.ts); a
  // worker that cannot read the benchmark or the bundle claims none.
  const claims = new Int32Array(data.claims);
  void (async () => {
    const state = await ready.catch(() => null);
    for (let i = data.shards.length - 1; state && i >= 0; i--) {
      if (Atomics.compareExchange(claims, i, WAITING, TAKEN_BY_WORKER) !== WAITING) continue;
      let reply: ShardReply;
      try {
        reply = { shard: i, items: JSON.stringify(await scoreShard(state, data.shards[i]!)) };
      } catch (err) {
        reply = { shard: i, error: err instanceof Error ? err.message : String(err) };
      }
      port.postMessage(reply);
    }
    port.postMessage({ drained: true } satisfies ShardReply);
  })();

  async function scoreShard({ spec, source, layout }: Awaited<typeof ready>, m: { capability: string; domain: string }) {
    const capSpec = spec.capabilities.find((c) => c.id === m.capability);
    const benchmark = await loadBenchmark(data.benchmark, { spec, select: (dir, file) => dir === capSpec?.directory && file === `${m.domain}.json` });
    const cap = benchmark.capabilities.find((c) => c.spec.id === m.capability);
    if (!cap) throw new Error(`no ground truth for ${m.capability}/${m.domain}`);
    const index = indexBenchmark(benchmark).capabilities.find((c) => c.spec.id === m.capability)!;
    const scorer = scorerOf(cap.spec.scorer);
    const reader = readerOf(cap.spec.scorer).records!;
    const submission: Submission = { sha256: "", capabilities: new Map(), outputs: new Map(), origins: new Map(), metadata: null };
    const byPath = new Map(source.files.map((f) => [f.path, f]));
    const strings = new StringPool();
    for (const ref of layout.domainFiles) {
      // Shards are trial 1's: the calling thread scores a bundle's other trials itself (score-bundle.ts).
      if (ref.capability.id !== m.capability || ref.domain !== m.domain || ref.trial !== 1) continue;
      const job = { path: ref.path, domain: ref.domain, domainKnown: true, pythonValues: loaderOf(cap.spec.scorer).readsPythonValues, keep: true };
      const checked = await checkOutputsFile(byPath.get(ref.path)!, job, reader, limits);
      if (checked.outcome === "read") reader.admit({ cap: index, domain: ref.domain, file: ref.path, reads: checked.reads, sink: new DiagnosticSink(ref.path), submission, ids: new Set(), strings });
    }
    const ctx = { benchmark, submission, trial: 1, grader, replay, now: () => performance.now() };
    return mapPool(
      scorer.tasks(cap, ctx).filter((t) => t.shard === m.domain),
      64,
      (t) => t.run(),
    );
  }
}
