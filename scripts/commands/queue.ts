/**
 * `submit <bundle> --benchmark <dir>`: registers the benchmark and ingests a local bundle
 * (validated, then queued for scoring). `worker`: scores queued jobs; a job of a worker that
 * died resumes. Both use the database in AGENTBOARD_DB (or --db).
 */
import path from "node:path";
import { openDatabase } from "../../db/client";
import { registerBenchmark } from "../../lib/submissions/benchmarks";
import { ingestBundle } from "../../lib/submissions/ingest";
import { createScoringDeps } from "../../lib/submissions/scoring-deps";
import { runWorker } from "../../lib/submissions/worker";
import { agentboardVersion } from "./build-info";
import { usageError } from "./cli-errors";
import { judgeSettingsOrFail } from "./judge-options";
import { benchmarkOrFail, bundleOrFail, replayModeOf } from "./load";
import { githubIntake, startGitHubPass } from "./github";

export interface SubmitFlags {
  benchmark: string;
  db?: string;
  agent?: string;
  judge?: string;
  judgeModel?: string;
  replay?: string;
}

export async function submitCommand(bundle: string, flags: SubmitFlags): Promise<number> {
  await bundleOrFail(bundle);
  const db = openDatabase(flags.db);
  try {
    const { versionId, benchmark } = await benchmarkOrFail(() => registerBenchmark(db, path.resolve(flags.benchmark), { now: new Date() }));
    const judge = flags.judge || flags.judgeModel ? judgeSettingsOrFail({ flags, env: process.env, config: benchmark.spec.judge }) : undefined;
    if (judge?.kind === "verdicts") throw usageError("a submission is judged by rules or openai; the verdicts judge re-scores a run (agentboard verify)");
    const run = {
      ...(judge ? { judgeKind: judge.kind } : {}),
      ...(judge?.model ? { judgeModel: judge.model } : {}),
      ...(flags.replay ? { replayMode: replayModeOf(flags.replay, benchmark.spec) } : {}),
    };
    const out = await ingestBundle(db, { versionId, bundlePath: path.resolve(bundle), source: "local", sourceRef: path.resolve(bundle), actor: "cli", run, ...(flags.agent ? { metadata: { agentName: flags.agent } } : {}) }, () => new Date());
    process.stdout.write(`${JSON.stringify(out)}\n`);
    process.stderr.write(submitNextSteps(out, { bundle, benchmark: flags.benchmark, db: flags.db, publicUrl: process.env.AGENTBOARD_PUBLIC_URL }));
    return out.state === "invalid" ? 1 : 0;
  } finally {
    db.$client.close();
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
    return `Submission ${out.submissionId} is invalid and will not be scored; \`npx agentboard validate ${at.bundle} --benchmark ${at.benchmark}\` lists what to fix.\n`;
  }
  const head = out.created ? `Submission ${out.submissionId} is ${out.state}.` : `This bundle was already submitted: submission ${out.submissionId}, ${out.state}.`;
  if (out.state !== "queued") return `${head}\nIts page: ${page}\n`;
  return [
    `${head} A worker scores it next; if none is running, start one:`,
    `  npx agentboard worker${db} --until-idle`,
    `Watch it at ${page} (visible to a signed-in maintainer until it is approved and published; /queue shows its place).`,
    "",
  ].join("\n");
}

export interface WorkerFlags {
  db?: string;
  untilIdle?: boolean;
}

export async function workerCommand(flags: WorkerFlags): Promise<number> {
  const db = openDatabase(flags.db);
  // SIGTERM/SIGINT stop the judge's waits and requests at once; the job in hand goes back to the queue.
  const stop = new AbortController();
  process.once("SIGINT", () => stop.abort());
  process.once("SIGTERM", () => stop.abort());
  const deps = createScoringDeps(db, { env: process.env, signal: stop.signal, agentboard: agentboardVersion() });
  const log = (l: string) => process.stderr.write(`${l}\n`);
  // With GitHub configured (and a repository), the worker also does the webhook's work: stored
  // deliveries are downloaded, validated and answered here, never in the web process, and
  // submission issues follow the scoring as it goes.
  const github = await githubIntake(db, log, { signal: stop.signal }).catch(() => null);
  const pass = github?.repo ? startGitHubPass(github.intake, github.repo, { deliveryMs: github.intake.settings.deliveryPollMs, syncMs: github.intake.settings.statusSyncMs, log }) : null;
  try {
    // Deliveries waiting already become jobs before an --until-idle worker looks at the queue.
    await pass?.deliveries();
    const n = await runWorker(db, deps, { untilIdle: flags.untilIdle ?? false, signal: stop.signal, log });
    process.stderr.write(`worker stopped after ${n} job(s)\n`);
    return 0;
  } finally {
    await pass?.stop();
    await deps.close();
    db.$client.close();
  }
}
