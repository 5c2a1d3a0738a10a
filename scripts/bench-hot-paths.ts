/**
 * `npm run bench:hot-paths`: wall times that unit tests deliberately do not bound (a time
 * bound in a unit test fails on a slow machine and proves nothing on a fast one). The tests
 * check the behaviour behind each number (keys read once, an oversized body left unread);
 * this prints the numbers themselves, median of several runs:
 *   1. sorting 5,000 leaderboard entries by overall score (`applyView`; goal ≤ 100 ms);
 *   2. refusing a 1 MB issue body, and parsing at-cap hostile bodies (`parseIssueForm`);
 *   3. the demo MCP server's cold start: building its databases and answering listTools.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { applyView, DEFAULT_VIEW } from "../components/leaderboard/view-state";
import { DEFAULT_MAX_BODY_CHARS, parseIssueForm, renderIssueFormBody, type IssueFormValues } from "../lib/github/issue-form";
import type { LeaderboardEntry } from "../lib/queries/types";

const RUNS = Number(process.env.BENCH_RUNS ?? 7);

async function median(fn: () => unknown | Promise<unknown>, runs = RUNS): Promise<number> {
  const ms: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    await fn();
    ms.push(performance.now() - t);
  }
  ms.sort((a, b) => a - b);
  return ms[Math.floor(ms.length / 2)]!;
}

const report = (label: string, ms: number) => process.stdout.write(`${label.padEnd(62)} ${ms.toFixed(1).padStart(8)} ms\n`);

function entries(n: number): LeaderboardEntry[] {
  return Array.from({ length: n }, (_, i) => {
    const score = ((i * 7919) % 100) + (i % 7) / 10;
    return {
      id: i + 1,
      rank: i + 1,
      agent: `agent-${i + 1}`,
      models: ["model-x"],
      maintainer: "Lab",
      overall: { score, ciLow: score - 2, ciHigh: score + 2, submitted: true, complete: true },
      capabilities: {},
      coverage: 1,
      date: "2026-01-10T00:00:00.000Z",
      badges: { verified: true, partial: false, demo: false, flagged: false },
      flags: [],
      cost: { latencyMedianS: null, latencyP95S: null, totalTokens: null, costUsd: null },
      trials: 1,
      passK: null,
    };
  });
}

const many = entries(5000);
report("applyView: sort 5,000 entries by overall", await median(() => applyView(many, { ...DEFAULT_VIEW, sort: "overall", dir: "desc" })));
report("applyView: search + sort 5,000 entries by agent", await median(() => applyView(many, { ...DEFAULT_VIEW, sort: "agent", q: "agent 1" })));

const values: IssueFormValues = { agentName: "bench-agent", maintainer: "Bench", models: ["model-x"], description: "x", zipUrl: "https://example.org/b.zip" };
const oneMb = renderIssueFormBody({ ...values, description: "a".repeat(1_048_576) });
report("parseIssueForm: refuse a 1 MB body", await median(() => parseIssueForm(oneMb)));
const hostileJson = renderIssueFormBody({ ...values, metadata: '{"a":' + " ".repeat(DEFAULT_MAX_BODY_CHARS - 3_000) + "1}" });
report("parseIssueForm: at-cap body, whitespace-padded metadata JSON", await median(() => parseIssueForm(hostileJson)));
const headings = renderIssueFormBody({ ...values, description: "### x\n".repeat(40_000) });
report("parseIssueForm: 40,000 headings", await median(() => parseIssueForm(headings)));

// Each run starts a fresh server on an empty data directory, so it builds the databases too.
const repo = path.resolve(import.meta.dirname, "..");
report(
  "demo MCP server: cold start (build databases) + listTools",
  await median(async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), "agentboard-bench-demo-"));
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: ["--import", "tsx", "benchmarks/demo/environment/server.ts", "--domain", "harbor", "--capability", "capability_2_dashboard_apis", "--data-dir", dataDir],
      cwd: repo,
      env: getDefaultEnvironment(),
      stderr: "ignore",
    });
    const client = new Client({ name: "bench-hot-paths", version: "1.0.0" });
    try {
      await client.connect(transport);
      await client.listTools();
    } finally {
      await client.close().catch(() => {});
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 3),
);
