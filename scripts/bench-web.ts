/**
 * `npm run bench:web`: the web app under load. Seeds 200 published entries through the real
 * pipeline (a synthetic benchmark, recorded replay, rules judge), serves the production build
 * with `next start`, and drives `/` and `/api/leaderboard` with autocannon at 32 connections
 * for 10 s each. Also reports the gzipped first-load JavaScript of `/` (the scripts the page
 * loads). Needs `next build` first (npm run build).
 */
import { existsSync } from "node:fs";
import { rm } from "node:fs/promises";
import path from "node:path";
import { gzipSync } from "node:zlib";
import autocannon from "autocannon";
import { openDatabase } from "../db/client";
import { registerBenchmark } from "../lib/submissions/benchmarks";
import { ingestBundle } from "../lib/submissions/ingest";
import { approve } from "../lib/submissions/review";
import { createScoringDeps } from "../lib/submissions/scoring-deps";
import { runWorker } from "../lib/submissions/worker";
import { spawnServer, waitForServer } from "./server/spawn-server";
import { exampleSized, writeAgentBundle, writeSyntheticBenchmark } from "./synthetic/generate";

const ENTRIES = Number(process.env.BENCH_ENTRIES ?? 200);
const root = path.resolve(".agentboard/bench-web");
const port = 3300;

export async function seedEntries(dir: string, n: number, log: (s: string) => void = () => {}) {
  await rm(dir, { recursive: true, force: true });
  const bench = await writeSyntheticBenchmark(path.join(dir, "benchmark"), exampleSized);
  const db = openDatabase(path.join(dir, "bench.db"));
  const { versionId } = await registerBenchmark(db, bench.root, { isDefault: true, now: new Date() });
  for (let i = 0; i < n; i++) {
    const bundle = path.join(dir, "bundles", `agent-${i}`);
    await writeAgentBundle(bench, bundle, { name: `agent-${String(i).padStart(4, "0")}`, accuracy: 0.2 + (0.8 * ((i * 37) % n)) / n, errorRate: 0.02, ...(i % 9 === 0 ? { capabilities: [0, 1] } : {}) }, 1000 + i);
    await ingestBundle(db, { versionId, bundlePath: bundle, source: "local", sourceRef: bundle, actor: "bench", run: { replayMode: "recorded" } }, () => new Date());
    if ((i + 1) % 50 === 0) log(`  ingested ${i + 1}/${n}`);
  }
  const deps = createScoringDeps(db);
  await runWorker(db, deps, { untilIdle: true });
  await deps.close();
  const ids = db.$client.prepare("SELECT id FROM submissions WHERE state = 'scored'").all() as { id: number }[];
  for (const { id } of ids) approve(db, id, { actor: "bench", at: new Date() });
  db.$client.close();
  return ids.length;
}

async function load(url: string, duration = 10, headers: Record<string, string> = {}) {
  const r = await autocannon({ url, connections: 32, duration, headers });
  return { rps: r.requests.average, p99: r.latency.p99, errors: r.errors + r.non2xx + r.timeouts, total: r.requests.total };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  if (!existsSync(".next/BUILD_ID")) {
    process.stderr.write("no production build: run `npm run build` first\n");
    process.exit(2);
  }
  process.stdout.write(`seeding ${ENTRIES} published entries…\n`);
  const published = await seedEntries(root, ENTRIES, (s) => process.stdout.write(`${s}\n`));
  const server = spawnServer({ port, cwd: process.cwd(), env: { AGENTBOARD_DB: path.join(root, "bench.db") }, detached: true });
  try {
    const base = `http://127.0.0.1:${port}`;
    if (!(await waitForServer(base))) throw new Error(`the server did not answer on ${base}`);
    const html = await (await fetch(base)).text();
    const rows = (html.match(/agent-\d{4}/g) ?? []).length;
    const scripts = [...new Set([...html.matchAll(/<script[^>]+src="([^"]+)"/g)].map((m) => m[1]!))];
    let gz = 0;
    for (const s of scripts) gz += gzipSync(Buffer.from(await (await fetch(new URL(s, base))).arrayBuffer())).length;
    process.stdout.write(`published entries: ${published}; agent names in the HTML of /: ${rows}\n`);
    process.stdout.write(`first-load JS of /: ${(gz / 1024).toFixed(1)} KB gzipped in ${scripts.length} scripts (target ≤ 200 KB)\n`);
    // Autocannon sends no Accept-Encoding, so the first two pass the bodies uncompressed
    // (411 KB for `/`); the last asks for gzip as browsers do.
    const runs = [
      ["/", base + "/", 300, {}],
      ["/api/leaderboard", base + "/api/leaderboard", 1500, {}],
      ["/ with gzip", base + "/", 300, { "accept-encoding": "gzip" }],
    ] as const;
    for (const [name, url, target, headers] of runs) {
      await load(url, 3, headers); // a warm-up pass, discarded
      const r = await load(url, 10, headers);
      process.stdout.write(`${name}: ${Math.round(r.rps)} req/s, p99 ${r.p99} ms, ${r.errors} errors, ${r.total} requests (target ≥ ${target} req/s, 0 errors)\n`);
    }
  } finally {
    process.kill(-server.pid!, "SIGTERM");
  }
}
