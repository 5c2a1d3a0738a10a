/**
 * `npm run bench:web`: the web app under load. Seeds 200 published entries through the real
 * pipeline (a synthetic benchmark, recorded replay, rules judge), starts the production server
 * (scripts/server/serve.ts) and times it to its first answer, then drives `/` and
 * `/api/leaderboard` with autocannon at 32 connections for 10 s each. Also reports the size of
 * `/` and its gzipped first-load JavaScript (the scripts a browser with ES modules loads).
 * Needs `next build` first (npm run build).
 */
import { existsSync } from "node:fs";
import { rm } from "node:fs/promises";
import path from "node:path";
import { gzipSync } from "node:zlib";
import autocannon from "autocannon";
import { eq } from "drizzle-orm";
import { closeDatabase, openDatabase } from "../db/client";
import { submissions } from "../db/schema";
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
  const ids = await db.select({ id: submissions.id }).from(submissions).where(eq(submissions.state, "scored"));
  for (const { id } of ids) await approve(db, id, { actor: "bench", at: new Date() });
  await closeDatabase(db);
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
  // Whole process, as a user meets it: from spawning the production server to its first answer of `/`.
  const started = performance.now();
  const server = spawnServer({ port, cwd: process.cwd(), env: { AGENTBOARD_DB: path.join(root, "bench.db") }, detached: true });
  try {
    const base = `http://127.0.0.1:${port}`;
    if (!(await waitForServer(base, 600, 25))) throw new Error(`the server did not answer on ${base}`);
    const startMs = performance.now() - started;
    const html = await (await fetch(base)).text();
    const rows = (html.match(/agent-\d{4}/g) ?? []).length;
    // What a browser with ES modules loads: `noModule` scripts (Next's legacy polyfills) are skipped by every such browser.
    const tags = [...html.matchAll(/<script\b[^>]*\bsrc="([^"]+)"[^>]*>/g)];
    const gzOf = async (src: string) => gzipSync(Buffer.from(await (await fetch(new URL(src, base))).arrayBuffer())).length;
    let gz = 0;
    let legacyGz = 0;
    for (const src of new Set(tags.filter((t) => !/\bnoModule\b/i.test(t[0])).map((t) => t[1]!))) gz += await gzOf(src);
    for (const src of new Set(tags.filter((t) => /\bnoModule\b/i.test(t[0])).map((t) => t[1]!))) legacyGz += await gzOf(src);
    const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;
    process.stdout.write(`published entries: ${published}; agent names in the HTML of /: ${rows}\n`);
    process.stdout.write(`server start-up (spawn to the first answer of /, whole process): ${(startMs / 1000).toFixed(2)} s\n`);
    process.stdout.write(`HTML of /: ${kb(Buffer.byteLength(html))} uncompressed, ${kb(gzipSync(html).length)} gzipped (target ≤ 150 KB uncompressed)\n`);
    process.stdout.write(`first-load JS of /: ${kb(gz)} gzipped in the scripts a module browser loads (target ≤ 200 KB); ${kb(legacyGz)} more of noModule polyfills only legacy browsers fetch\n`);
    // Autocannon sends no Accept-Encoding, so the first two pass the bodies uncompressed; the last asks for gzip as browsers do.
    const runs = [
      ["/", base + "/", 2000, {}],
      ["/api/leaderboard", base + "/api/leaderboard", 1500, {}],
      ["/ with gzip", base + "/", 2000, { "accept-encoding": "gzip" }],
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
