/**
 * `npm run bench:hosted`: hosted mode at scale, on SQLite and on Postgres (a throwaway
 * cluster this script starts on 127.0.0.1), whole process, as a user runs it.
 *
 * 1. Scoring throughput: S submissions judged by a fake OpenAI-compatible judge that answers
 *    after 200 ms, scored by 1, 2, 4 and 8 workers (`agentboard worker --concurrency k` in two
 *    processes from 2 workers on); each agent's answers are its own, so the grade cache saves
 *    no judge call. Prints items per second, where the time went (first job to last, one job)
 *    and the gain over one worker beside the target (≥ 0.8 × linear at 8).
 * 2. A popular board: one 5,187-item entry scored through the real pipeline, then cloned to
 *    1,000 published entries (5.2 M item rows, each clone with its own lost items and its stored
 *    results without their trace and trajectory detail, to fit the disk), served by
 *    the production server with one process per core: `/` req/s (≥ 1,000), an entry page and
 *    its lost-points item list p99 with one reader per server process at once (≤ 200 ms; then
 *    at twice that, queueing), compare of two entries (≤ 500 ms), and the database's size.
 *
 *   npm run bench:hosted [-- --engines sqlite,postgres] [--entries 1000] [--only throughput|board]
 *     [--reuse] [--pg-url postgres://…/postgres] [--generate-only] [--server-cwd <tree with a build>]
 * Needs `npm run build` first for part 2.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, rmSync, statSync } from "node:fs";
import { availableParallelism } from "node:os";
import path from "node:path";
import autocannon from "autocannon";
import { and, eq, isNull, or, sql } from "drizzle-orm";
import pg from "pg";
import { closeDatabase, dialectOf, exec, openDatabase, openPostgres, rows, transaction, type Db } from "../db/client";
import { auditLog, benchmarkVersions, capabilityScores, itemResults, scoringRuns, submissions } from "../db/schema";
import type { BenchmarkSpec } from "../lib/benchmark/spec";
import { storedOverallResamples } from "../lib/queries/resampled-entries";
import { runItemSummary } from "../lib/queries/submission";
import { registerBenchmark } from "../lib/submissions/benchmarks";
import { ingestBundle } from "../lib/submissions/ingest";
import { approve } from "../lib/submissions/review";
import { createScoringDeps } from "../lib/submissions/scoring-deps";
import { runWorker } from "../lib/submissions/worker";
import { startFakeJudge } from "./bench/fake-judge";
import { freePort, startPgCluster, type PgCluster } from "./pg-cluster";
import { spawnServer, waitForServer } from "./server/spawn-server";
import { vakraSized, writeAgentBundle, writeSyntheticBenchmark, type SyntheticBenchmark } from "./synthetic/generate";

type Engine = "sqlite" | "postgres";
const args = process.argv.slice(2);
const arg = (name: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
};
const engines = (arg("engines") ?? "sqlite,postgres").split(",") as Engine[];
const ENTRIES = Number(arg("entries") ?? 1000);
const only = arg("only");
const root = path.resolve(".agentboard/bench-hosted");
/** Keep a fully generated board database from an earlier run instead of generating it again. */
const REUSE = args.includes("--reuse");
/** A Postgres cluster to keep the board in (e.g. one `tsx scripts/pg-cluster.ts` started), so --reuse finds it next time. */
const PG_URL = arg("pg-url");
/** Generate (or check) the board databases and stop: no server, no build needed. */
const GENERATE_ONLY = args.includes("--generate-only");
/** The tree whose production build serves the board (default: this one). */
const SERVER_CWD = path.resolve(arg("server-cwd") ?? ".");
const out = (line: string) => process.stdout.write(`${line}\n`);
const JUDGE_DELAY_MS = 200;
const SUBMISSIONS = Number(arg("submissions") ?? 48);
const WORKER_COUNTS = [1, 2, 4, 8];

let cluster: PgCluster | undefined;
let nextDb = 0;

/** A new empty database of the engine, and the environment a child process needs for it. */
async function newDatabase(engine: Engine, name: string): Promise<{ db: Db; env: Record<string, string>; size: () => Promise<number> }> {
  if (engine === "sqlite") {
    const file = path.join(root, `${name}.db`);
    for (const f of [file, `${file}-wal`, `${file}-shm`]) rmSync(f, { force: true });
    const db = openDatabase(file);
    const size = async () => [file, `${file}-wal`].reduce((n, f) => n + (existsSync(f) ? statSync(f).size : 0), 0);
    return { db, env: { AGENTBOARD_DB: file, AGENTBOARD_DATABASE_URL: "" }, size };
  }
  cluster ??= await startPgCluster();
  const dbName = `bench_${name.replace(/\W/g, "_")}_${nextDb++}`;
  const admin = new pg.Client({ connectionString: cluster.url });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${dbName}`);
  await admin.end();
  const url = cluster.url.replace(/\/postgres$/, `/${dbName}`);
  const db = await openPostgres(url);
  const size = async () => Number((await rows<{ n: number }>(db, sql`SELECT pg_database_size(current_database()) AS n`))[0]!.n);
  return { db, env: { AGENTBOARD_DATABASE_URL: url }, size };
}

function runProcess(cmd: string[], env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, cmd, { env: { ...process.env, ...env }, stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    p.stderr!.on("data", (c: Buffer) => (stderr = (stderr + c.toString()).slice(-4000)));
    p.once("exit", (code) => resolve({ code, stderr }));
  });
}

async function throughput(engine: Engine, bench: SyntheticBenchmark, bundles: string[]) {
  const judge = await startFakeJudge(JUDGE_DELAY_MS);
  const results: { workers: number; seconds: number; items: number }[] = [];
  try {
    for (const workers of WORKER_COUNTS) {
      const { db, env } = await newDatabase(engine, `throughput-${workers}`);
      const { versionId } = await registerBenchmark(db, bench.root, { isDefault: true, now: new Date() });
      for (const bundle of bundles) {
        await ingestBundle(db, { versionId, bundlePath: bundle, source: "local", sourceRef: bundle, actor: "bench", run: { judgeKind: "openai", judgeModel: "fake-judge", replayMode: "recorded" } }, () => new Date());
      }
      // One request in flight per worker slot: the workers, not one job's fan-out, carry the load.
      const workerEnv = { ...env, AGENTBOARD_JUDGE_BASE_URL: judge.url, AGENTBOARD_JUDGE_API_KEY: "bench", AGENTBOARD_JUDGE_CONCURRENCY: "1" };
      const processes = workers === 1 ? [1] : [Math.ceil(workers / 2), Math.floor(workers / 2)];
      const started = performance.now();
      const done = await Promise.all(
        processes.map((k, i) => runProcess(["scripts/agentboard.mjs", "worker", "--until-idle", "--concurrency", String(k)], { ...workerEnv, AGENTBOARD_WORKER_ID: `bench-host-${i}` })),
      );
      const seconds = (performance.now() - started) / 1000;
      for (const d of done) if (d.code !== 0) throw new Error(`a worker failed (${d.code}): ${d.stderr}`);
      const items = (await db.select({ id: itemResults.id }).from(itemResults)).length;
      const runs = await db.select({ started: scoringRuns.startedAt, finished: scoringRuns.finishedAt }).from(scoringRuns).where(eq(scoringRuns.status, "completed"));
      if (runs.length !== bundles.length) throw new Error(`${runs.length} of ${bundles.length} runs completed`);
      // Where the wall time went: the processes' start and stop, and how long one job took.
      const first = Math.min(...runs.map((r) => r.started!.getTime()));
      const last = Math.max(...runs.map((r) => r.finished!.getTime()));
      const perJob = runs.reduce((n, r) => n + r.finished!.getTime() - r.started!.getTime(), 0) / runs.length / 1000;
      results.push({ workers, seconds, items });
      out(`  ${engine}: ${workers} worker(s) in ${processes.length} process(es): ${bundles.length} submissions, ${items} items in ${seconds.toFixed(1)} s = ${(items / seconds).toFixed(1)} items/s (first job to last ${((last - first) / 1000).toFixed(1)} s, a job ${perJob.toFixed(2)} s on average)`);
      await closeDatabase(db);
    }
  } finally {
    await judge.close();
  }
  const base = results[0]!.items / results[0]!.seconds;
  for (const r of results.slice(1)) {
    const gain = r.items / r.seconds / base;
    out(`  ${engine}: ${r.workers} workers: ${gain.toFixed(2)}× one worker = ${(gain / r.workers).toFixed(2)} of linear${r.workers === 8 ? " (target ≥ 0.80 of linear)" : ""}`);
  }
}

/** Clones the template run into `n` published entries, each losing its own share of items. */
async function cloneEntries(db: Db, templateSubmission: number, n: number) {
  const [sub] = await db.select().from(submissions).where(eq(submissions.id, templateSubmission)).limit(1);
  const [run] = await db.select().from(scoringRuns).where(eq(scoringRuns.id, sub!.currentRunId!)).limit(1);
  const pg = dialectOf(db) === "postgres";
  for (let i = 1; i < n; i++) {
    const at = new Date(sub!.createdAt.getTime() + i * 1000);
    const lossPerMille = 50 + ((i * 7919) % 600);
    await transaction(db, async (tx) => {
      const [s] = await tx
        .insert(submissions)
        .values({ ...sub!, id: undefined, agentName: `agent-${String(i).padStart(4, "0")}`, bundleSha256: `${sub!.bundleSha256.slice(0, 48)}${String(i).padStart(16, "0")}`, currentRunId: null, createdAt: at, updatedAt: at } as typeof submissions.$inferInsert)
        .returning({ id: submissions.id });
      const [r] = await tx.insert(scoringRuns).values({ ...run!, id: undefined, submissionId: s!.id, itemSummary: null, overallResamples: null, createdAt: at } as typeof scoringRuns.$inferInsert).returning({ id: scoringRuns.id });
      const lost = pg ? sql`random() * 1000 < ${lossPerMille}` : sql`abs(random()) % 1000 < ${lossPerMille}`;
      // Clones drop the bulky trace and trajectory detail from each stored result (5.1 → ~1.4 KB a
      // row), or 5.2 M rows would not fit this machine's disk; the lists read neither.
      const compact = pg ? sql`((result::jsonb) - 'trace' - 'trajectory')::text` : sql`json_remove(result, '$.trace', '$.trajectory')`;
      await exec(tx, sql`INSERT INTO item_results (run_id, capability, domain, uuid, trial, weight, score, status, stage, scorer, bucket, exact_passed, policy, result, fingerprint)
        SELECT ${r!.id}, capability, domain, uuid, trial, weight, CASE WHEN ${lost} THEN 0 ELSE score END, status, stage, scorer, bucket, exact_passed, policy, ${compact}, fingerprint
        FROM item_results WHERE run_id = ${run!.id}`);
      await exec(tx, sql`INSERT INTO domain_scores (run_id, capability, domain, score, n_items)
        SELECT run_id, capability, domain, 100.0 * sum(score * weight) / sum(weight), count(*) FROM item_results WHERE run_id = ${r!.id} GROUP BY run_id, capability, domain`);
      await exec(tx, sql`INSERT INTO capability_scores (run_id, capability, score, ci_low, ci_high, submitted, n_items, n_missing, n_error, n_policy_unchecked, status_counts)
        SELECT c.run_id, c.capability, c.score, c.score - 2, c.score + 2, t.submitted, c.n, t.n_missing, t.n_error, t.n_policy_unchecked, t.status_counts
        FROM (SELECT run_id, capability, 100.0 * sum(score * weight) / sum(weight) AS score, count(*) AS n FROM item_results WHERE run_id = ${r!.id} GROUP BY run_id, capability) c
        JOIN capability_scores t ON t.run_id = ${run!.id} AND t.capability = c.capability`);
      const [overall] = await tx.select({ v: sql<number>`avg(${capabilityScores.score})` }).from(capabilityScores).where(eq(capabilityScores.runId, r!.id));
      await tx.update(scoringRuns).set({ overallScore: overall!.v, overallCiLow: overall!.v - 1.5, overallCiHigh: overall!.v + 1.5 }).where(eq(scoringRuns.id, r!.id));
      await tx.update(submissions).set({ currentRunId: r!.id }).where(eq(submissions.id, s!.id));
      await tx.insert(auditLog).values({ at, actor: "bench", action: "state:published", submissionId: s!.id, fromState: "approved", toState: "published", details: { runId: r!.id, overall: overall!.v, previousRunId: null, previousOverall: null } });
    });
    if (i % 100 === 0) process.stderr.write(`  cloned ${i}/${n - 1} entries\n`);
  }
}

/**
 * Stores the item summary (runItemSummary) and the overall resamples (storedOverallResamples)
 * of every completed run that has none, as a run's completion is to store them: clones are made
 * in SQL, and a board generated before these were stored has none. Without them each entry's
 * first view reads the summary from its items, and each server process's first board every item.
 */
async function storeRunSummaries(db: Db): Promise<number> {
  const missing = await db
    .select({ id: scoringRuns.id, spec: benchmarkVersions.spec, itemSummary: scoringRuns.itemSummary, overallResamples: scoringRuns.overallResamples })
    .from(scoringRuns)
    .innerJoin(submissions, eq(submissions.id, scoringRuns.submissionId))
    .innerJoin(benchmarkVersions, eq(benchmarkVersions.id, submissions.benchmarkVersionId))
    .where(and(eq(scoringRuns.status, "completed"), or(isNull(scoringRuns.itemSummary), isNull(scoringRuns.overallResamples))));
  for (const run of missing) {
    const spec = run.spec as unknown as BenchmarkSpec;
    const submitted = new Set((await db.select({ capability: capabilityScores.capability, submitted: capabilityScores.submitted }).from(capabilityScores).where(eq(capabilityScores.runId, run.id))).filter((c) => c.submitted).map((c) => c.capability));
    await db
      .update(scoringRuns)
      .set({ itemSummary: run.itemSummary ?? (await runItemSummary(db, run.id, spec)), overallResamples: run.overallResamples ?? (await storedOverallResamples(db, run.id, spec.capabilities.map((c) => c.id), submitted)) })
      .where(eq(scoringRuns.id, run.id));
  }
  return missing.length;
}

async function load(url: string, duration: number, requests?: { path: string }[], connections = 32) {
  const r = await autocannon({ url, connections, duration, ...(requests ? { requests } : {}) });
  return { rps: r.requests.average, p50: r.latency.p50, p90: r.latency.p90, p99: r.latency.p99, max: r.latency.max, errors: r.errors + r.non2xx + r.timeouts, total: r.requests.total };
}

async function timeOnce(url: string): Promise<{ ms: number; status: number }> {
  const t = performance.now();
  const res = await fetch(url);
  await res.arrayBuffer();
  return { ms: performance.now() - t, status: res.status };
}

/** Published entries in a board database: a board generated to the end has ENTRIES of them. */
async function publishedEntries(db: Db): Promise<number> {
  return Number((await db.select({ n: sql<number>`count(*)` }).from(submissions).where(eq(submissions.state, "published")))[0]!.n);
}

/**
 * The board's database: a new one, or with --reuse the one a previous run generated to the end
 * (SQLite: .agentboard/bench-hosted/board.db; Postgres: database `bench_board` on the cluster
 * --pg-url names, which outlives this script), so a measurement need not regenerate 5.2 M rows.
 */
async function boardDatabase(engine: Engine): Promise<{ db: Db; env: Record<string, string>; size: () => Promise<number>; generated: boolean }> {
  if (engine === "sqlite") {
    const file = path.join(root, "board.db");
    if (REUSE && existsSync(file)) {
      const db = openDatabase(file);
      if ((await publishedEntries(db)) >= ENTRIES) {
        const size = async () => [file, `${file}-wal`].reduce((n, f) => n + (existsSync(f) ? statSync(f).size : 0), 0);
        return { db, env: { AGENTBOARD_DB: file, AGENTBOARD_DATABASE_URL: "" }, size, generated: true };
      }
      await closeDatabase(db);
    }
    return { ...(await newDatabase(engine, "board")), generated: false };
  }
  if (!PG_URL) return { ...(await newDatabase(engine, "board")), generated: false };
  const admin = async (query: string) => {
    const client = new pg.Client({ connectionString: PG_URL });
    await client.connect();
    try {
      return (await client.query(query)).rowCount ?? 0;
    } finally {
      await client.end();
    }
  };
  const url = PG_URL.replace(/\/[^/]*$/, "/bench_board");
  const size = (db: Db) => async () => Number((await rows<{ n: number }>(db, sql`SELECT pg_database_size(current_database()) AS n`))[0]!.n);
  if (REUSE && (await admin("SELECT 1 FROM pg_database WHERE datname = 'bench_board'")) > 0) {
    const db = await openPostgres(url);
    if ((await publishedEntries(db)) >= ENTRIES) return { db, env: { AGENTBOARD_DATABASE_URL: url }, size: size(db), generated: true };
    await closeDatabase(db);
  }
  await admin("DROP DATABASE IF EXISTS bench_board WITH (FORCE)");
  await admin("CREATE DATABASE bench_board");
  const db = await openPostgres(url);
  return { db, env: { AGENTBOARD_DATABASE_URL: url }, size: size(db), generated: false };
}

async function board(engine: Engine) {
  const { db, env, size, generated } = await boardDatabase(engine);
  if (!generated) {
    out(`  ${engine}: scoring the 5,187-item template entry through the pipeline…`);
    const bench = await writeSyntheticBenchmark(path.join(root, "board-benchmark"), vakraSized);
    const bundle = path.join(root, "board-bundle");
    await writeAgentBundle(bench, bundle, { name: "agent-0000", accuracy: 0.7, errorRate: 0.02 }, 4242);
    const { versionId } = await registerBenchmark(db, bench.root, { isDefault: true, now: new Date() });
    const { submissionId } = await ingestBundle(db, { versionId, bundlePath: bundle, source: "local", sourceRef: bundle, actor: "bench", run: { replayMode: "recorded" } }, () => new Date());
    const deps = createScoringDeps(db);
    await runWorker(db, deps, { untilIdle: true });
    await deps.close();
    await approve(db, submissionId, { actor: "bench", at: new Date() });
    const t = performance.now();
    await cloneEntries(db, submissionId, ENTRIES);
    // As autovacuum would in time: statistics for the planner, and the visibility map that lets
    // Postgres answer from an index alone.
    if (engine === "postgres") await exec(db, sql`VACUUM (ANALYZE) item_results`);
    out(`  ${engine}: ${ENTRIES} published entries generated in ${((performance.now() - t) / 1000).toFixed(0)} s`);
  }
  const summarising = performance.now();
  const stored = await storeRunSummaries(db);
  if (stored > 0) out(`  ${engine}: item summaries and overall resamples of ${stored} completed runs stored (as at run completion) in ${((performance.now() - summarising) / 1000).toFixed(0)} s`);
  const rows = (await db.select({ n: sql<number>`count(*)` }).from(itemResults))[0]!.n;
  out(`  ${engine}: ${ENTRIES} published entries, ${Number(rows).toLocaleString("en")} item rows${generated ? " (kept from an earlier run)" : ""}; database size ${(((await size()) / 2 ** 30)).toFixed(2)} GiB`);
  const ids = (await db.select({ id: submissions.id }).from(submissions)).map((r) => r.id);
  await closeDatabase(db);
  if (GENERATE_ONLY) return;

  const port = await freePort();
  // As docs/deploy.md runs a replica: one server process per core.
  const processes = availableParallelism();
  out(`  ${engine}: serving with ${processes} server process(es) (--processes, one per core)`);
  const server = spawnServer({ port, cwd: SERVER_CWD, env: { ...env, AGENTBOARD_WEB_PROCESSES: String(processes) }, detached: true });
  try {
    const base = `http://127.0.0.1:${port}`;
    if (!(await waitForServer(base, 600, 50))) throw new Error(`the server did not answer on ${base}`);
    await load(base + "/", 3);
    const home = await load(base + "/", 10);
    out(`  ${engine}: / ${Math.round(home.rps)} req/s, p99 ${home.p99} ms, ${home.errors} errors (target ≥ 1,000 req/s)`);
    const pick = (k: number) => ids[(k * 7919) % ids.length]!;
    // Latency as a reader feels it with the server busy but not queueing: one reader per server
    // process (core) at once; then at twice that, where requests queue behind each other.
    // Each path set is read for the first time when measured (no entry repeats across sets).
    const readers = processes;
    const spread = (r: Awaited<ReturnType<typeof load>>) => `(p50 ${r.p50}, p90 ${r.p90}, max ${r.max} ms)`;
    // As for `/`: the page's code is loaded and compiled by a few requests first, to entries
    // that are not measured.
    const warmPaths = Array.from({ length: 16 }, (_, k) => ({ path: `/submissions/${pick(k + 500)}${k % 2 ? "?page=2&size=100" : ""}` }));
    await load(base, 2, warmPaths, readers);
    for (const [connections, offset] of [[readers, 0], [readers * 2, 128]] as const) {
      const entryPaths = Array.from({ length: 64 }, (_, k) => ({ path: `/submissions/${pick(k + offset)}` }));
      const entry = await load(base, 10, entryPaths, connections);
      out(`  ${engine}: entry page (lost-points items listed by default) at ${connections} connections: p99 ${entry.p99} ms ${spread(entry)}, ${Math.round(entry.rps)} req/s over ${entry.total} requests of 64 entries, ${entry.errors} errors${connections === readers ? " (target p99 ≤ 200 ms)" : ""}`);
      const listPaths = Array.from({ length: 64 }, (_, k) => ({ path: `/submissions/${pick(k + offset + 64)}?page=2&size=100` }));
      const list = await load(base, 10, listPaths, connections);
      out(`  ${engine}: lost-points item list, page 2 of 100 rows, at ${connections} connections: p99 ${list.p99} ms ${spread(list)}, ${Math.round(list.rps)} req/s over ${list.total} requests, ${list.errors} errors${connections === readers ? " (target p99 ≤ 200 ms)" : ""}`);
    }
    const compares: number[] = [];
    for (let k = 0; k < 5; k++) {
      const r = await timeOnce(`${base}/compare?ids=${pick(600 + k)},${pick(700 + k)}`);
      if (r.status !== 200) throw new Error(`compare answered ${r.status}`);
      compares.push(r.ms);
    }
    out(`  ${engine}: compare of two entries ${compares.map((m) => Math.round(m)).join(", ")} ms (first request cold; target ≤ 500 ms)`);
  } finally {
    process.kill(-server.pid!, "SIGTERM");
  }
}

try {
  mkdirSync(root, { recursive: true });
  out(`bench:hosted ${new Date().toISOString().slice(0, 10)}, engines ${engines.join(", ")}`);
  if (only !== "board") {
    out(`scoring throughput: fake judge ${JUDGE_DELAY_MS} ms, ${SUBMISSIONS} submissions`);
    const bench = await writeSyntheticBenchmark(path.join(root, "throughput-benchmark"), { seed: 5, domains: 4, perCapability: [4, 4, 4, 4] });
    const bundles: string[] = [];
    for (let i = 0; i < SUBMISSIONS; i++) {
      const dir = path.join(root, "throughput-bundles", `agent-${i}`);
      // Answers of its own per agent: identical prompts would be judged once and then read from
      // the grade cache, which favours one worker (later jobs hit) over many (jobs at once miss).
      await writeAgentBundle(bench, dir, { name: `agent-${i}`, accuracy: 0.6, errorRate: 0, answerSuffix: `(found by agent ${i})` }, 100 + i);
      bundles.push(dir);
    }
    for (const engine of engines) await throughput(engine, bench, bundles);
  }
  if (only !== "throughput") {
    if (!GENERATE_ONLY && !existsSync(path.join(SERVER_CWD, ".next/BUILD_ID"))) throw new Error("no production build: run `npm run build` first");
    out(`a board of ${ENTRIES} entries × 5,187 items`);
    for (const engine of engines) await board(engine);
  }
} finally {
  cluster?.stop();
}
