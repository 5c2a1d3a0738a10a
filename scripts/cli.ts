/**
 * Agentboard's command line: `./agentboard <command>` (the launcher at the repository root; `npm run cli -- <command>` too).
 * Exit codes: 0 success, 1 invalid bundle (or eval config/dataset; for verify: a number differs;
 * for db copy: the copy failed), 2 usage error, 3 scored but incomplete (or eval items that errored).
 *
 * Commands that use the database take `--db <file-or-url>`: a SQLite file or a postgres:// URL;
 * without it, AGENTBOARD_DATABASE_URL (either kind), then AGENTBOARD_DB, then the default file.
 *
 * Each command's code is imported when that command runs, so `--help`, `--version` and
 * `validate` never load the MCP SDK, octokit, drizzle, pg or the database.
 */
import { Command, CommanderError, Option } from "commander";
import { versionLine } from "./commands/build-info";
import { CliError } from "./commands/cli-errors";
import type { BenchmarkInitFlags } from "./commands/benchmark-init";
import type { CalibrateFlags, CalibrationStoreFlags } from "./commands/calibrate";
import type { DbCopyFlags } from "./commands/db";
import type { IngestFlags } from "./commands/github";
import type { EvalFlags } from "./commands/eval";
import type { SubmitFlags, WorkerFlags } from "./commands/queue";
import type { RejudgeFlags } from "./commands/rejudge";
import type { ReplayGtFlags } from "./commands/replay-gt";
import type { ScoreFlags } from "./commands/score";
import type { ValidateFlags } from "./commands/validate";
import type { VerifyFlags } from "./commands/verify";

const program = new Command()
  .name("agentboard")
  .description("Validate, replay and score agent-benchmark submissions.")
  .exitOverride()
  .showHelpAfterError("(run with --help for usage)")
  .option("-V, --version", "print the version (and the commit it was built from)");

// Not commander's .version(): the commit is looked up only when asked for.
program.on("option:version", () => {
  const line = versionLine();
  process.stdout.write(`${line}\n`);
  throw new CommanderError(0, "commander.version", line);
});

/**
 * Options a command cannot run without. Commander checks `requiredOption` before unknown
 * options, so `--benchmrk` would be reported as a missing `--benchmark`; these are checked
 * after, and the typo gets "unknown option … (Did you mean --benchmark?)".
 */
const mandatory = new WeakSet<Option>();
function needs(cmd: Command, flags: string, description: string): Command {
  const option = new Option(flags, description);
  mandatory.add(option);
  return cmd.addOption(option);
}
program.hook("preAction", (_root, cmd) => {
  for (const o of cmd.options) {
    if (mandatory.has(o) && cmd.getOptionValue(o.attributeName()) === undefined) cmd.error(`error: required option '${o.flags}' not specified`, { code: "commander.missingMandatoryOptionValue", exitCode: 2 });
  }
});

const BENCHMARK = ["--benchmark <dir>", "benchmark folder (benchmark.yaml + groundtruth/, or VAKRA's data folder)"] as const;
const DB = ["--db <file-or-url>", "SQLite file or postgres:// URL (default AGENTBOARD_DATABASE_URL, else AGENTBOARD_DB, else .agentboard/agentboard.db)"] as const;

program
  .command("validate")
  .option("--benchmark <dir>", "benchmark folder (benchmark.yaml + groundtruth/, or VAKRA's data folder); without it, only the checks that need no ground truth (as VAKRA's validate_output.py)")
  .description("check a submission bundle (folder or .zip), against a benchmark's ground truth when given one")
  .argument("<bundle>", "bundle folder or .zip")
  .option("--json", "print the JSON report instead of markdown")
  .option("--out <file>", "also write the JSON report to this file")
  .option("--no-cache", "read the whole ground truth instead of its cached index (<benchmark>/.agentboard-cache/)")
  .action(async (bundle: string, flags: ValidateFlags) => {
    const { validateCommand } = await import("./commands/validate");
    process.exitCode = await validateCommand(bundle, flags);
  });

needs(program.command("score"), ...BENCHMARK)
  .description("validate, replay and waterfall-score a bundle; print the capability table")
  .argument("<bundle>", "bundle folder or .zip")
  .option("--judge <kind>", "rules (offline), literal (offline, exact match), openai, verdicts, or panel (benchmark.yaml judge.panel); each judge setting: flag > environment > benchmark.yaml judge > default (rules)")
  .option("--judge-model <name>", "model for the openai judge (env AGENTBOARD_JUDGE_MODEL)")
  .option("--judge-base-url <url>", "OpenAI-compatible base URL (env AGENTBOARD_JUDGE_BASE_URL, else OPENAI_BASE_URL)")
  .option("--judge-concurrency <n>", "concurrent judge calls (env AGENTBOARD_JUDGE_CONCURRENCY; default 16)")
  .option("--replay <mode>", "mcp (replay against the benchmark's tool servers; the default where declared), recorded (the bundle's own responses, unverified) or none")
  .option("--replay-concurrency <n>", "tool-server sessions at once for mcp replay (default 16, one per capability and domain)")
  .option("--judge-verdicts <file>", "with --judge verdicts: answer from a run's exported verdicts (no LLM)")
  .option("--out <file>", "write results.json here (with the run's manifest)")
  .option("--verdicts-out <file>", "also write the judge verdicts the run used (re-scoring with them needs no LLM)")
  .option("--vakra-out <dir>", "also write one VAKRA-shaped results file per capability")
  .option("--quiet", "no progress on stderr")
  .action(async (bundle: string, flags: ScoreFlags) => {
    const { scoreCommand } = await import("./commands/score");
    process.exitCode = await scoreCommand(bundle, flags);
  });

needs(program.command("calibrate"), ...BENCHMARK)
  .description("grade the benchmark's labelled judge cases (calibration/*.jsonl) and print how often the judge agrees, per stage and capability")
  .option("--judge <kind>", "rules or literal (offline), or openai; each judge setting: flag > environment > benchmark.yaml judge > default (rules)")
  .option("--judge-model <name>", "model for the openai judge (env AGENTBOARD_JUDGE_MODEL)")
  .option("--judge-base-url <url>", "OpenAI-compatible base URL (env AGENTBOARD_JUDGE_BASE_URL, else OPENAI_BASE_URL)")
  .option("--judge-concurrency <n>", "concurrent judge calls (env AGENTBOARD_JUDGE_CONCURRENCY; default 16)")
  .option("--out <file>", "write the calibration report (JSON, with the judge's identity) here")
  .option("--store", "store the report on the board (the database): /about shows it, judge.minKappa reads it; grades go through the board's grade cache")
  .option(...DB)
  .option("--json", "print the report as JSON instead of the table")
  .option("--quiet", "no progress on stderr")
  .action(async (flags: CalibrateFlags) => {
    const { calibrateCommand } = await import("./commands/calibrate");
    process.exitCode = await calibrateCommand(flags);
  });

program
  .command("calibration")
  .description("calibration reports on the board")
  .command("store")
  .description("store a calibration report (calibrate --out) on the board, for the benchmark version it names")
  .argument("<report>", "the report's JSON file")
  .option(...DB)
  .action(async (report: string, flags: CalibrationStoreFlags) => {
    const { calibrationStoreCommand } = await import("./commands/calibrate");
    process.exitCode = await calibrationStoreCommand(report, flags);
  });

needs(needs(program.command("verify"), "--bundle <bundle>", "the entry's bundle (folder or .zip)"), ...BENCHMARK)
  .description("score a bundle again and check every number against a recorded run (an entry id, an entry's URL, or a results.json)")
  .argument("<run>", "entry id (local database), entry URL (http(s)://…/submissions/<id>), or a score --out results.json")
  .option("--verdicts <file>", "the judge verdicts to answer from (default: the run's own export; for results.json, verdicts.json beside it)")
  .option("--db <file-or-url>", "the database of an entry id: SQLite file or postgres:// URL (default AGENTBOARD_DATABASE_URL, else AGENTBOARD_DB, else .agentboard/agentboard.db)")
  .option("--json", "print the comparison as JSON")
  .option("--quiet", "no progress on stderr")
  .action(async (run: string, flags: VerifyFlags) => {
    const { verifyCommand } = await import("./commands/verify");
    process.exitCode = await verifyCommand(run, flags);
  });

needs(needs(program.command("rejudge"), ...BENCHMARK), "--judge <kind>", "the other judge: rules, literal or openai (its other settings: flag > environment > benchmark.yaml judge > default)")
  .description("grade every published entry of a benchmark again with another judge (through the grade cache), publishing nothing; print each entry's change, rank changes and Kendall's tau")
  .option("--judge-model <name>", "model for the openai judge (env AGENTBOARD_JUDGE_MODEL)")
  .option("--judge-base-url <url>", "OpenAI-compatible base URL (env AGENTBOARD_JUDGE_BASE_URL, else OPENAI_BASE_URL)")
  .option("--judge-concurrency <n>", "concurrent judge calls (env AGENTBOARD_JUDGE_CONCURRENCY; default 16)")
  .option(...DB)
  .option("--apply", "then queue the rescoring of the entries rejudged in full with this judge (a worker scores them; a maintainer approves each again)")
  .option("--json", "print the report as JSON")
  .option("--quiet", "no progress on stderr")
  .action(async (flags: RejudgeFlags) => {
    const { rejudgeCommand } = await import("./commands/rejudge");
    process.exitCode = await rejudgeCommand(flags);
  });

needs(program.command("replay-gt"), "--benchmark <dir>", "benchmark folder")
  .description("replay every ground-truth dialogue against the benchmark's tool servers once and store the responses")
  .option("--concurrency <n>", "tool-server sessions at once (default 16)")
  .option("--out <file>", "where to store the results (default <benchmark>/.replay/groundtruth-<slug>-<version>.json)")
  .option("--quiet", "no progress on stderr")
  .action(async (flags: ReplayGtFlags) => {
    const { replayGtCommand } = await import("./commands/replay-gt");
    process.exitCode = await replayGtCommand(flags);
  });

needs(program.command("submit"), "--benchmark <dir>", "benchmark folder")
  .description("ingest a local bundle into the database: validate it and queue it for scoring")
  .argument("<bundle>", "bundle folder or .zip")
  .option(...DB)
  .option("--agent <name>", "agent name (default: the bundle's metadata.json)")
  .option("--judge <kind>", "rules, literal, openai or panel (flag > AGENTBOARD_JUDGE > benchmark.yaml judge.kind, or judge.panel; the worker resolves the rest)")
  .option("--judge-model <name>", "model for the openai judge (flag > AGENTBOARD_JUDGE_MODEL > benchmark.yaml judge.model)")
  .option("--replay <mode>", "mcp, recorded or none (default: mcp where the benchmark declares servers)")
  .option("--default", "make this benchmark the board's default: the one / shows and GitHub submissions go to (a board's first benchmark is, until another is made it)")
  .action(async (bundle: string, flags: SubmitFlags) => {
    const { submitCommand } = await import("./commands/queue");
    process.exitCode = await submitCommand(bundle, flags);
  });

program
  .command("worker")
  .description("score queued submissions; resumes jobs of a worker that died")
  .option(...DB)
  .option("--until-idle", "stop when the queue is empty")
  .option("--concurrency <k>", "jobs scored at once by this worker (default 1)")
  .action(async (flags: WorkerFlags) => {
    const { workerCommand } = await import("./commands/queue");
    process.exitCode = await workerCommand(flags);
  });

program
  .command("ingest")
  .description("poll a GitHub repository's submission issues: new and edited forms, slash commands, status comments (idempotent; safe under cron)")
  .option("--repo <owner/name>", "the repository (default GITHUB_REPOSITORY)")
  .option(...DB)
  .option("--every <seconds>", "keep polling at this interval")
  .action(async (flags: IngestFlags) => {
    const { ingestCommand } = await import("./commands/github");
    process.exitCode = await ingestCommand(flags);
  });

const benchmark = program.command("benchmark").description("benchmark folders");

needs(benchmark.command("init"), "--from-vakra <dir>", "a folder of VAKRA's data: a split of its data/ (data/test) or its sample_data/")
  .description("write a benchmark.yaml (capabilities, weights, policies) for a folder of VAKRA's data")
  .option("--out <dir>", "write into this new folder, with the ground truth copied in Agentboard's layout (default: into the VAKRA folder, beside its files)")
  .action(async (flags: BenchmarkInitFlags) => {
    const { benchmarkInitCommand } = await import("./commands/benchmark-init");
    process.exitCode = await benchmarkInitCommand(flags);
  });

const db = program.command("db").description("database maintenance");

needs(needs(db.command("copy"), "--from <file>", "the SQLite database file to copy"), "--to <url>", "the Postgres database (postgres://…), migrated and empty")
  .description("copy every row of a SQLite database into an empty Postgres database (moving to hosted mode)")
  .option("--quiet", "no progress on stderr")
  .action(async (flags: DbCopyFlags) => {
    const { dbCopyCommand } = await import("./commands/db");
    process.exitCode = await dbCopyCommand(flags);
  });

needs(program.command("eval"), "--config <file>", "eval.yaml, or NAT's agent config with an eval: block (eval.general, eval.evaluators, llms)")
  .description("run NVIDIA-style evaluators (qa, trajectory, report) over a dataset and the agent's outputs")
  .option("--only <methods>", 'DATASET_FILTER as a flag: "all" (the default) or a list such as qa,trajectory')
  .option("--output <dir>", "output folder (overrides output_dir / outputDir in the config)")
  .option("--workflow-output <file>", "the agent's outputs: NAT's workflow_output.json (default: <output folder>/workflow_output.json when the config names none)")
  .option("--compat <mode>", 'scoring conventions: "nat" reproduces NAT\'s numbers (errors as 0.0, 2-decimal averages, NAT\'s prompts and reply parsing); "none" (the default) is Agentboard\'s')
  .option("--quiet", "no progress on stderr")
  .action(async (flags: EvalFlags) => {
    const { evalCommand } = await import("./commands/eval");
    process.exitCode = await evalCommand(flags);
  });

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
