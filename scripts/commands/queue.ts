/**
 * `submit <bundle> --benchmark <dir>`: registers the benchmark and ingests a local bundle
 * (validated, then queued for scoring). `worker`: scores queued jobs; a job of a worker that
 * died resumes. Both use the database the environment names (AGENTBOARD_DATABASE_URL, a
 * postgres:// URL or a SQLite file, else AGENTBOARD_DB), or --db (either kind), and the storage
 * it names (AGENTBOARD_STORAGE_URL…, lib/submissions/storage-settings.ts): `submit` stores the
 * bundle and the benchmark's files there, so a worker on another host can score them.
 */
import path from "node:path";
import { closeDatabase, connectDatabase } from "../../db/client";
import { registerBenchmark } from "../../lib/submissions/benchmarks";
import { ingestBundle } from "../../lib/submissions/ingest";
import { startReconcile } from "../../lib/submissions/github-reconcile";
import { withLease } from "../../lib/submissions/named-leases";
import { refreshFingerprints } from "../../lib/submissions/refresh-fingerprints";
import type { HostedStorage } from "../../lib/submissions/storage-settings";
import { githubSettingsFromEnv, SettingsError } from "../../lib/submissions/github-settings";
import { DEFAULT_HEARTBEAT_MS } from "../../lib/submissions/score-job";
import { createScoringDeps } from "../../lib/submissions/scoring-deps";
import { DEFAULT_STALE_MS, MAX_CONCURRENCY, runWorker } from "../../lib/submissions/worker";
import { agentboardVersion } from "./build-info";
import { usageError } from "./cli-errors";
import { judgeEnvironmentOrFail, judgeSettingsOrFail } from "./judge-options";
import { benchmarkOrFail, bundleOrFail, replayModeOf, storageOrFail } from "./load";
import { githubIntake, startGitHubPass } from "./github";
import { agentOptionOrFail } from "./agent-option";
import { limitsOrFail } from "./validate";

/** How long a stopping worker (SIGINT, SIGTERM) may take to hand back its job and close; then it exits regardless. */
const WORKER_STOP_GRACE_MS = 30_000;

export interface SubmitFlags {
  benchmark: string;
  db?: string;
  agent?: string;
  judge?: string;
  judgeModel?: string;
  replay?: string;
  /** Make the benchmark the board's default (the one `/` shows, where GitHub submissions go). */
  default?: boolean;
}

function positiveMs(env: Readonly<Record<string, string | undefined>>, name: string, fallback: number): number {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  const n = /^\d+$/.test(raw) ? Number(raw) : NaN;
  if (!(Number.isSafeInteger(n) && n > 0)) throw usageError(`${name} must be a positive whole number of milliseconds, got "${raw}"`);
  return n;
}

/**
 * The lease timing (a fault test shortens it): AGENTBOARD_WORKER_STALE_MS, after which a job
 * without a heartbeat is taken over (default DEFAULT_STALE_MS, 2 min), and
 * AGENTBOARD_HEARTBEAT_MS, how often a running job renews it (default DEFAULT_HEARTBEAT_MS,
 * 30 s); the heartbeat must come more often than the lease goes stale.
 */
export function leaseTimingOrFail(env: Readonly<Record<string, string | undefined>> = process.env): { staleMs: number; heartbeatMs: number } {
  const staleMs = positiveMs(env, "AGENTBOARD_WORKER_STALE_MS", DEFAULT_STALE_MS);
  const heartbeatMs = positiveMs(env, "AGENTBOARD_HEARTBEAT_MS", DEFAULT_HEARTBEAT_MS);
  if (heartbeatMs >= staleMs) throw usageError(`AGENTBOARD_HEARTBEAT_MS (${heartbeatMs}) must be less than AGENTBOARD_WORKER_STALE_MS (${staleMs}): a running job would look abandoned between heartbeats`);
  return { staleMs, heartbeatMs };
}

export async function submitCommand(bundle: string, flags: SubmitFlags): Promise<number> {
  if (flags.agent !== undefined) flags = { ...flags, agent: agentOptionOrFail(flags.agent) };
  // Intake validates with the environment's budgets (ingest.ts): a wrong one fails here, before any work.
  limitsOrFail();
  await bundleOrFail(bundle);
  const storage = storageOrFail();
  const db = await connectDatabase(flags.db);
  try {
    const { versionId, benchmark } = await benchmarkOrFail(() => registerBenchmark(db, path.resolve(flags.benchmark), { now: new Date(), storage, ...(flags.default ? { isDefault: true } : {}) }));
    const judge = flags.judge || flags.judgeModel ? judgeSettingsOrFail({ flags, env: process.env, config: benchmark.spec.judge }) : undefined;
    if (judge?.kind === "verdicts") throw usageError("a submission is judged by rules, literal, openai or a panel; the verdicts judge re-scores a run (agentboard verify)");
    const run = {
      ...(judge ? { judgeKind: judge.kind } : {}),
      ...(judge?.model ? { judgeModel: judge.model } : {}),
      ...(flags.replay ? { replayMode: replayModeOf(flags.replay, benchmark.spec) } : {}),
    };
    const out = await ingestBundle(db, { versionId, bundlePath: path.resolve(bundle), source: "local", sourceRef: path.resolve(bundle), actor: "cli", run, storage, ...(flags.agent ? { metadata: { agentName: flags.agent } } : {}) }, () => new Date());
    process.stdout.write(`${JSON.stringify(out)}\n`);
    process.stderr.write(submitNextSteps(out, { bundle, benchmark: flags.benchmark, db: flags.db, publicUrl: process.env.AGENTBOARD_PUBLIC_URL }));
    return out.state === "invalid" ? 1 : 0;
  } finally {
    await closeDatabase(db);
  }
}

/**
 * What happens next, for the person who ran `submit` (stdout keeps the one JSON line for
 * scripts): a worker scores a queued submission, here is the command that runs one, and the
 * entry's page (a maintainer's until it is approved and published).
 */
function submitNextSteps(out: { submissionId: number; created: boolean; state: string }, at: { bundle: string; benchmark: string; db?: string; publicUrl?: string }): string {
  const page = `${(at.publicUrl?.trim() ?? "").replace(/\/+$/, "")}/submissions/${out.submissionId}`;
  const db = at.db ? ` --db ${at.db}` : "";
  if (out.state === "invalid") {
    return `Submission ${out.submissionId} is invalid and will not be scored; \`./agentboard validate ${at.bundle} --benchmark ${at.benchmark}\` lists what to fix.\n`;
  }
  const head = out.created ? `Submission ${out.submissionId} is ${out.state}.` : `This bundle was already submitted: submission ${out.submissionId}, ${out.state}.`;
  if (out.state !== "queued") return `${head}\nIts page: ${page}\n`;
  return [
    `${head} A worker scores it next; if none is running, start one:`,
    `  ./agentboard worker${db} --until-idle`,
    `Watch it at ${page} (visible to a signed-in maintainer until it is approved and published; /queue shows its place).`,
    "",
  ].join("\n");
}

export interface WorkerFlags {
  db?: string;
  untilIdle?: boolean;
  /** Jobs scored at once in this process (1 to MAX_CONCURRENCY; default 1). */
  concurrency?: number;
}

/** `--concurrency`: a whole number of jobs from 1 to MAX_CONCURRENCY. */
export function concurrencyOrFail(value: number | string | undefined): number {
  if (value === undefined) return 1;
  const n = typeof value === "number" ? value : /^\s*\d+\s*$/.test(value) ? Number(value) : NaN;
  if (!Number.isInteger(n) || n < 1 || n > MAX_CONCURRENCY) throw usageError(`--concurrency must be a whole number from 1 to ${MAX_CONCURRENCY} (got ${String(value)})`);
  return n;
}

/** The GitHub settings (limits, periods) checked before the worker starts: a wrong one is a usage error naming it. */
function githubSettingsOrFail(): void {
  try {
    githubSettingsFromEnv();
  } catch (err) {
    throw err instanceof SettingsError ? usageError(err.message) : err;
  }
}

export async function workerCommand(flags: WorkerFlags): Promise<number> {
  const concurrency = concurrencyOrFail(flags.concurrency);
  const storage = storageOrFail();
  const { staleMs, heartbeatMs } = leaseTimingOrFail();
  githubSettingsOrFail();
  judgeEnvironmentOrFail();
  limitsOrFail();
  // Two worker "machines" on one host (a fault test) need ids that are not this host's pids.
  const workerId = process.env.AGENTBOARD_WORKER_ID?.trim() || undefined;
  // A frozen worker's open transaction must not outlive its lease (db/client.ts DEFAULT_PG_IDLE_TRANSACTION_MS).
  const db = await connectDatabase(flags.db, { idleTransactionMs: staleMs });
  // SIGTERM/SIGINT stop the judge's waits and requests at once; the job in hand goes back to the queue.
  const stop = new AbortController();
  // What the worker is doing, so a stop that does not end says where it is stuck.
  let stage = "starting";
  const onSignal = () => {
    stop.abort();
    // A stop must end the process whatever it waits on (a database that does not answer).
    setTimeout(() => {
      process.stderr.write(`worker did not stop within ${WORKER_STOP_GRACE_MS / 1000} s of the signal (stuck ${stage}): exiting\n`);
      process.exit(1);
    }, WORKER_STOP_GRACE_MS).unref();
  };
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  const deps = createScoringDeps(db, { env: process.env, signal: stop.signal, agentboard: agentboardVersion(), storage, heartbeatMs });
  const log = (l: string) => process.stderr.write(`${l}\n`);
  // With GitHub configured (and a repository), the worker also does the webhook's work: stored
  // deliveries are downloaded, validated and answered here, never in the web process, and
  // submission issues follow the scoring as it goes. It also reconciles on a schedule: issues
  // whose delivery never arrived are read all the same. A wrong GitHub setting stops the worker
  // at start-up (githubSettingsOrFail); GitHub unreachable, or no benchmark yet, only leaves GitHub out.
  const github = await githubIntake(db, log, { signal: stop.signal, storage }).catch((err: unknown) => {
    log(`GitHub is left out of this worker: ${err instanceof Error ? err.message : String(err)}`);
    return null;
  });
  const gh = github?.repo ? { intake: github.intake, repo: github.repo, settings: github.intake.settings } : null;
  const pass = gh ? startGitHubPass(gh.intake, gh.repo, { deliveryMs: gh.settings.deliveryPollMs, syncMs: gh.settings.statusSyncMs, log }) : null;
  const reconcile = gh && gh.settings.reconcileMs > 0 ? startReconcile(gh.intake, gh.repo, { everyMs: gh.settings.reconcileMs, maxPages: gh.settings.reconcileMaxPages, log }) : null;
  try {
    // Deliveries waiting already become jobs before an --until-idle worker looks at the queue,
    // and so do issues whose delivery was lost; a worker that keeps going scores meanwhile
    // (a first reconcile may read many issues).
    await pass?.deliveries();
    // Entries scored before the fingerprint's current version are compared again once, by one
    // worker at a time; until then newcomers are not compared with them.
    await refreshOldFingerprints(db, storage, log);
    if (flags.untilIdle) await reconcile?.now();
    else void reconcile?.now();
    stage = "scoring";
    const n = await runWorker(db, deps, { untilIdle: flags.untilIdle ?? false, signal: stop.signal, log, concurrency, staleMs, ...(workerId ? { workerId } : {}) });
    process.stderr.write(`worker stopped after ${n} job(s)\n`);
    return 0;
  } finally {
    stage = "stopping the GitHub passes";
    await reconcile?.stop();
    await pass?.stop();
    stage = "closing the scoring environments";
    await deps.close();
    stage = "closing the database";
    await closeDatabase(db);
  }
}

/** Recomputes stored fingerprints of an older version (refresh-fingerprints.ts) under a named lease; a failure only logs. */
async function refreshOldFingerprints(db: Awaited<ReturnType<typeof connectDatabase>>, storage: HostedStorage | undefined, log: (l: string) => void): Promise<void> {
  try {
    await withLease(db, "refresh-fingerprints", async (lease) => {
      for (;;) {
        const out = await refreshFingerprints(db, { now: () => new Date(), ...(storage ? { storage } : {}) });
        if (out.refreshed > 0) log(`fingerprints refreshed for ${out.refreshed} run(s)`);
        for (const u of out.unreadable) log(`fingerprints of submission ${u.submissionId} dropped: ${u.reason}`);
        if (!out.remaining || !(await lease.confirm())) return;
      }
    });
  } catch (err) {
    log(`fingerprints not refreshed: ${err instanceof Error ? err.message : String(err)}`);
  }
}
