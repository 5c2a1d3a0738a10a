/**
 * `ingest --repo owner/name`: one polling pass over a repository's submission issues (new and
 * edited forms, slash commands, pending webhook deliveries, status comments). Idempotent, so
 * it is safe under cron; `--every <s>` keeps polling. GitHub settings come from the
 * environment (lib/submissions/github-settings.ts).
 */
import { openDatabase, type Db } from "../../db/client";
import { parseRepoRef, type RepoRef } from "../../lib/github/github-client";
import { createGitHubIntake, NoDefaultBenchmarkError, pollRepository, syncAll, type GitHubIntake } from "../../lib/submissions/github-intake";
import { githubConfigured, githubSettingsFromEnv, SettingsError, type GitHubSettings } from "../../lib/submissions/github-settings";
import { CliError, usageError } from "./cli-errors";

export interface IngestFlags {
  repo?: string;
  db?: string;
  every?: string;
}

function settingsOrThrow(): GitHubSettings {
  try {
    return githubSettingsFromEnv();
  } catch (err) {
    throw err instanceof SettingsError ? usageError(err.message) : err;
  }
}

/** The intake for a database, or null when GitHub is not configured. */
export async function githubIntake(db: Db, log: (line: string) => void): Promise<{ intake: GitHubIntake; repo: RepoRef | null } | null> {
  const settings = settingsOrThrow();
  if (!githubConfigured(settings)) return null;
  try {
    return { intake: await createGitHubIntake(db, settings, { log }), repo: settings.repo };
  } catch (err) {
    if (err instanceof NoDefaultBenchmarkError) throw new CliError(`${err.message}: run \`npm run start:demo\` or \`npm run cli -- submit\` first`, 2);
    throw err;
  }
}

export async function ingestCommand(flags: IngestFlags): Promise<number> {
  const repo = flags.repo ? parseRepoRef(flags.repo) : settingsOrThrow().repo;
  if (!repo) throw usageError(flags.repo ? `--repo must look like owner/name, got "${flags.repo}"` : "--repo owner/name is required (or GITHUB_REPOSITORY)");
  const every = flags.every === undefined ? 0 : Number(flags.every);
  if (!Number.isFinite(every) || every < 0) throw usageError(`--every must be a number of seconds, got "${flags.every}"`);
  const db = openDatabase(flags.db);
  const log = (l: string) => process.stderr.write(`${l}\n`);
  try {
    const made = await githubIntake(db, log);
    if (!made) throw usageError("GitHub is not configured: set GITHUB_TOKEN (and GITHUB_API_URL for GitHub Enterprise or a test server)");
    const stop = new AbortController();
    process.once("SIGINT", () => stop.abort());
    process.once("SIGTERM", () => stop.abort());
    do {
      const s = await pollRepository(made.intake, repo);
      process.stdout.write(`${JSON.stringify({ repo: `${repo.owner}/${repo.repo}`, ...s })}\n`);
      if (every > 0) await new Promise((r) => setTimeout(r, every * 1000));
    } while (every > 0 && !stop.signal.aborted);
    return 0;
  } finally {
    db.$client.close();
  }
}

/** Mirrors status to GitHub every `ms` while the worker scores (progress, then the result). */
export function startStatusMirror(intake: GitHubIntake, repo: RepoRef, ms: number, log: (line: string) => void): () => Promise<void> {
  let running: Promise<unknown> = Promise.resolve();
  const tick = () => {
    running = running.then(() => syncAll(intake, repo)).catch((err: unknown) => log(`GitHub status: ${err instanceof Error ? err.message : String(err)}`));
  };
  const timer = setInterval(tick, ms);
  return async () => {
    clearInterval(timer);
    tick();
    await running;
  };
}
