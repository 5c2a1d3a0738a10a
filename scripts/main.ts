/**
 * The main job, as far as it is built: build the demo benchmark (databases, ground truth,
 * sample submissions), replay its ground truth once, validate and score every sample
 * submission with MCP replay and the rules judge, and print the leaderboard.
 * Running it again changes nothing: everything is generated from fixed seeds.
 */
import { readdir } from "node:fs/promises";
import path from "node:path";
import { orderByRank } from "../lib/aggregate/rank";
import { loadGroundTruthStore, saveGroundTruthStore } from "../lib/replay/groundtruth-file";
import { createMcpReplay, createMemoryGroundTruthStore } from "../lib/replay/mcp-replay";
import { createRulesJudge } from "../lib/scoring/judges/rules-judge";
import type { ScoreResults } from "../lib/scoring/score-results";
import { renderCapabilityTable } from "./commands/capability-table";
import { loadBenchmarkOrFail } from "./commands/load";
import { createProgress } from "./commands/progress";
import { replayAllGroundTruth } from "./commands/replay-gt";
import { scoreBundle } from "./commands/score";
import { buildDemo, DEMO_DIR } from "./demo/build-demo";

const say = (s: string) => process.stdout.write(`${s}\n`);
const started = performance.now();

say("Building the demo benchmark (databases, ground truth executed over MCP, sample submissions)…");
const built = await buildDemo({ log: (l) => process.stderr.write(`  ${l}\n`) });
say(`  ${built.dialogues} dialogues in ${path.relative(process.cwd(), DEMO_DIR)}/`);

const benchmark = await loadBenchmarkOrFail(DEMO_DIR);
const stored = await loadGroundTruthStore(benchmark);
const store = stored.loaded > 0 ? stored.store : createMemoryGroundTruthStore();
const replay = createMcpReplay(benchmark, { groundTruth: store });
const entries: { name: string; results: ScoreResults }[] = [];
try {
  if (stored.loaded === 0) {
    say("Replaying the ground truth once…");
    const gt = await replayAllGroundTruth(benchmark, replay, 16, createProgress("  ground truth"));
    if (gt.failures.length) throw new Error(`ground-truth replay failed:\n${gt.failures.slice(0, 5).join("\n")}`);
    await saveGroundTruthStore(benchmark, store);
  } else say(`  ${stored.note}`);

  const bundles = (await readdir(path.join(DEMO_DIR, "submissions"))).sort();
  for (const name of bundles) {
    const run = await scoreBundle(benchmark, path.join(DEMO_DIR, "submissions", name), { judge: createRulesJudge(), replay, onProgress: createProgress(`  scoring ${name}`) });
    if (!run.results) {
      const codes = [...new Set(run.report.errors.map((e) => e.code))].join(", ");
      say(`\n## ${name}: rejected by the validator (${run.report.summary.errors} errors: ${codes})`);
      continue;
    }
    say(`\n## ${name}\n${renderCapabilityTable(run.results).trimEnd()}`);
    entries.push({ name, results: run.results });
  }
} finally {
  await replay.close();
}

const ranked = orderByRank(entries.map((e) => ({ id: e.name, score: e.results.overall.score, ciLow: e.results.overall.ciLow, ciHigh: e.results.overall.ciHigh })));
const caps = benchmark.capabilities.map((c) => c.spec);
const header = ["Rank", "Agent", "Overall ± CI", ...caps.map((c) => c.label)];
const rows = ranked.map((r) => {
  const res = entries.find((e) => e.name === r.id)!.results;
  const cell = (id: string) => (res.capabilities[id]!.submitted ? res.capabilities[id]!.score.toFixed(1) : "—");
  return [String(r.rank), r.id + (res.overall.complete ? "" : " (partial)"), `${r.score.toFixed(1)} ±${((r.ciHigh - r.ciLow) / 2).toFixed(1)}`, ...caps.map((c) => cell(c.id))];
});
const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
const fmt = (row: string[]) => row.map((c, i) => (i === 1 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join("  ");
say(`\n# Leaderboard: ${benchmark.spec.title} v${benchmark.spec.version} (MCP replay, verified; rules judge)`);
say(fmt(header));
say(widths.map((w) => "-".repeat(w)).join("  "));
for (const r of rows) say(fmt(r));
say(`\nDone in ${((performance.now() - started) / 1000).toFixed(1)} s. The web leaderboard arrives with the web-app issue; until then this table is the product.`);
