/**
 * Agentboard's command line: `npm run cli -- <command>`.
 * Exit codes: 0 success, 1 invalid bundle (or eval config/dataset), 2 usage error, 3 scored but
 * incomplete (or eval items that errored).
 */
import { Command, CommanderError } from "commander";
import { CliError } from "./commands/cli-errors";
import { registerEvalCommand } from "./commands/eval";
import { ingestCommand, type IngestFlags } from "./commands/github";
import { submitCommand, workerCommand, type SubmitFlags, type WorkerFlags } from "./commands/queue";
import { replayGtCommand, type ReplayGtFlags } from "./commands/replay-gt";
import { scoreCommand, type ScoreFlags } from "./commands/score";
import { validateCommand, type ValidateFlags } from "./commands/validate";

const program = new Command()
  .name("agentboard")
  .description("Validate, replay and score agent-benchmark submissions.")
  .exitOverride()
  .showHelpAfterError("(run with --help for usage)");

program
  .command("validate")
  .description("check a submission bundle (folder or .zip) against a benchmark's ground truth")
  .argument("<bundle>", "bundle folder or .zip")
  .requiredOption("--benchmark <dir>", "benchmark folder (benchmark.yaml + groundtruth/)")
  .option("--json", "print the JSON report instead of markdown")
  .option("--out <file>", "also write the JSON report to this file")
  .action(async (bundle: string, flags: ValidateFlags) => {
    process.exitCode = await validateCommand(bundle, flags);
  });

program
  .command("score")
  .description("validate, replay and waterfall-score a bundle; print the capability table")
  .argument("<bundle>", "bundle folder or .zip")
  .requiredOption("--benchmark <dir>", "benchmark folder (benchmark.yaml + groundtruth/)")
  .option("--judge <kind>", "rules (offline) or openai; each judge setting: flag > environment > benchmark.yaml judge > default (rules)")
  .option("--judge-model <name>", "model for the openai judge (env AGENTBOARD_JUDGE_MODEL)")
  .option("--judge-base-url <url>", "OpenAI-compatible base URL (env AGENTBOARD_JUDGE_BASE_URL, else OPENAI_BASE_URL)")
  .option("--judge-concurrency <n>", "concurrent judge calls (env AGENTBOARD_JUDGE_CONCURRENCY; default 16)")
  .option("--replay <mode>", "mcp (replay against the benchmark's tool servers; the default where declared), recorded (the bundle's own responses, unverified) or none")
  .option("--replay-concurrency <n>", "tool-server sessions at once for mcp replay (default 16, one per capability and domain)")
  .option("--out <file>", "write results.json here")
  .option("--vakra-out <dir>", "also write one VAKRA-shaped results file per capability")
  .option("--quiet", "no progress on stderr")
  .action(async (bundle: string, flags: ScoreFlags) => {
    process.exitCode = await scoreCommand(bundle, flags);
  });

program
  .command("replay-gt")
  .description("replay every ground-truth dialogue against the benchmark's tool servers once and store the responses")
  .requiredOption("--benchmark <dir>", "benchmark folder")
  .option("--concurrency <n>", "tool-server sessions at once (default 16)")
  .option("--out <file>", "where to store the results (default <benchmark>/.replay/groundtruth-<slug>-<version>.json)")
  .option("--quiet", "no progress on stderr")
  .action(async (flags: ReplayGtFlags) => {
    process.exitCode = await replayGtCommand(flags);
  });

program
  .command("submit")
  .description("ingest a local bundle into the database: validate it and queue it for scoring")
  .argument("<bundle>", "bundle folder or .zip")
  .requiredOption("--benchmark <dir>", "benchmark folder")
  .option("--db <file>", "database file (default AGENTBOARD_DB or .agentboard/agentboard.db)")
  .option("--agent <name>", "agent name (default: the bundle's metadata.json)")
  .option("--judge <kind>", "rules or openai (flag > AGENTBOARD_JUDGE > benchmark.yaml judge.kind; the worker resolves the rest)")
  .option("--judge-model <name>", "model for the openai judge (flag > AGENTBOARD_JUDGE_MODEL > benchmark.yaml judge.model)")
  .option("--replay <mode>", "mcp, recorded or none (default: mcp where the benchmark declares servers)")
  .action(async (bundle: string, flags: SubmitFlags) => {
    process.exitCode = await submitCommand(bundle, flags);
  });

program
  .command("worker")
  .description("score queued submissions; resumes jobs of a worker that died")
  .option("--db <file>", "database file (default AGENTBOARD_DB or .agentboard/agentboard.db)")
  .option("--until-idle", "stop when the queue is empty")
  .action(async (flags: WorkerFlags) => {
    process.exitCode = await workerCommand(flags);
  });

program
  .command("ingest")
  .description("poll a GitHub repository's submission issues: new and edited forms, slash commands, status comments (idempotent; safe under cron)")
  .option("--repo <owner/name>", "the repository (default GITHUB_REPOSITORY)")
  .option("--db <file>", "database file (default AGENTBOARD_DB or .agentboard/agentboard.db)")
  .option("--every <seconds>", "keep polling at this interval")
  .action(async (flags: IngestFlags) => {
    process.exitCode = await ingestCommand(flags);
  });

registerEvalCommand(program);

try {
  await program.parseAsync(process.argv);
} catch (err) {
  if (err instanceof CommanderError) {
    // Commander has already printed its message; help and version are not errors.
    process.exitCode = err.code === "commander.helpDisplayed" || err.code === "commander.version" || err.code === "commander.help" ? 0 : 2;
  } else if (err instanceof CliError) {
    process.stderr.write(`error: ${err.message}\n`);
    process.exitCode = err.exitCode;
  } else {
    process.stderr.write(`internal error: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 70;
  }
}
