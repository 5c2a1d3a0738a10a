/**
 * The main job, as far as it is built: make the example benchmark and sample submissions,
 * validate and score each (rules judge, recorded replay), and print the leaderboard.
 * Running it again gives the same output: every input is generated from fixed seeds.
 */
import { rm } from "node:fs/promises";
import path from "node:path";
import { orderByRank } from "../lib/aggregate/rank";
import { createRecordedReplay } from "../lib/replay/recorded-replay";
import { createRulesJudge } from "../lib/scoring/judges/rules-judge";
import type { ScoreResults } from "../lib/scoring/score-results";
import { renderCapabilityTable } from "./commands/capability-table";
import { loadBenchmarkOrFail } from "./commands/load";
import { scoreBundle } from "./commands/score";
import { exampleSized, writeAgentBundle, writeSyntheticBenchmark, type AgentProfile } from "./synthetic/generate";

const root = path.resolve(".agentboard/example");
const agents: AgentProfile[] = [
  { name: "oracle", accuracy: 1 },
  { name: "strong-agent", accuracy: 0.8, errorRate: 0.03 },
  { name: "weak-agent", accuracy: 0.4, errorRate: 0.1, missRate: 0.05 },
  { name: "policy-breaker", accuracy: 0.9, breaksPolicy: true },
  { name: "partial-entry", accuracy: 0.85, capabilities: [0, 1] },
];

await rm(root, { recursive: true, force: true });
const synthetic = await writeSyntheticBenchmark(path.join(root, "benchmark"), exampleSized);
const benchmark = await loadBenchmarkOrFail(synthetic.root);
const entries: { name: string; results: ScoreResults }[] = [];
for (const [i, agent] of agents.entries()) {
  const bundle = path.join(root, "submissions", agent.name);
  await writeAgentBundle(synthetic, bundle, agent, 100 + i);
  const run = await scoreBundle(benchmark, bundle, { judge: createRulesJudge(), replay: createRecordedReplay() });
  if (!run.results) throw new Error(`${agent.name}: the example bundle is invalid`);
  process.stdout.write(`\n## ${agent.name}\n${renderCapabilityTable(run.results)}`);
  entries.push({ name: agent.name, results: run.results });
}

const ranked = orderByRank(entries.map((e) => ({ id: e.name, score: e.results.overall.score, ciLow: e.results.overall.ciLow, ciHigh: e.results.overall.ciHigh })));
const ids = benchmark.capabilities.map((c) => c.spec.id);
const header = ["Rank", "Agent", "Overall", ...ids];
const lines = ranked.map((r) => {
  const res = entries.find((e) => e.name === r.id)!.results;
  return [String(r.rank), r.id + (res.overall.complete ? "" : " (partial)"), `${r.score.toFixed(1)} ±${((r.ciHigh - r.ciLow) / 2).toFixed(1)}`, ...ids.map((id) => (res.capabilities[id]!.submitted ? res.capabilities[id]!.score.toFixed(1) : "—"))];
});
const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
const fmt = (row: string[]) => row.map((c, i) => (i === 1 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join("  ");
process.stdout.write(`\n# Leaderboard: ${benchmark.spec.title}\n${fmt(header)}\n${widths.map((w) => "-".repeat(w)).join("  ")}\n${lines.map(fmt).join("\n")}\n`);
process.stdout.write(`\nBenchmark and bundles are in ${path.relative(process.cwd(), root)}/ (try: npm run cli -- validate ${path.relative(process.cwd(), path.join(root, "submissions", "weak-agent"))} --benchmark ${path.relative(process.cwd(), synthetic.root)})\n`);
