/**
 * Scores a generated benchmark with Agentboard's one entry point (replay: recorded) and the
 * same deterministic stand-in judge as vakra_scores.py, applied to the texts our grader port
 * receives. Usage: tsx agentboard-scores.mts <data_dir> <out.json>
 */
import { writeFileSync } from "node:fs";
import path from "node:path";
import { loadBenchmark } from "../../lib/benchmark/load-benchmark";
import { createRecordedReplay } from "../../lib/replay/recorded-replay";
import { passFail, type Grader } from "../../lib/judges/grader";
import { scoreBundle } from "../../lib/aggregate/score-bundle";

const [root, outFile] = process.argv.slice(2) as [string, string];
const grader: Grader = {
  id: "stand-in",
  readsPrompts: true,
  async grade(req) {
    if (req.kind === "correctness") return { ...passFail(req.answer.includes(req.reference), "rule", null), promptHash: null };
    if (req.kind === "groundedness") {
      // VAKRA's document: the query, then the normalised responses joined by spaces.
      const doc = `QUERY: ${req.question} ${req.evidence.join(" ")}`;
      return { ...passFail(req.answer.split(/\s+/).filter(Boolean).every((t) => doc.includes(t)), "rule", null), promptHash: null };
    }
    throw new Error(`unexpected ${req.kind} request`);
  },
};
const benchmark = await loadBenchmark(path.join(root, "bench"));
const out = await scoreBundle(benchmark, path.join(root, "bundle"), { grader, replay: createRecordedReplay() });
if (out.kind !== "scored") throw new Error(`bundle not scored: ${JSON.stringify(out.report.errors.slice(0, 5))}`);
const directory = new Map(benchmark.capabilities.map((c) => [c.spec.id, c.spec.directory]));
writeFileSync(outFile, JSON.stringify(Object.fromEntries(out.results.items.map((it) => [`${directory.get(it.capability)}|${it.uuid}`, it.score]))));
