/**
 * `ingest --repo owner/name`: one polling pass over a repository's submission issues (new and
 * edited forms, slash commands, pending webhook deliveries, status comments). Idempotent, so
 * it is safe under cron; `--every <s>` keeps polling. GitHub settings come from the
 * environment (lib/submissions/github-settings.ts).
 */
import { closeDatabase, connectDatabase, type Db } from "../../db/client";
import { parseRepoRef, type RepoRef } from "../../lib/github/github-client";
import { createGitHubIntake, NoDefaultBenchmarkError, pollRepository, processPendingDeliveries, syncAll, type GitHubIntake } from "../../lib/submissions/github-intake";
import { githubConfigured, githubSettingsFromEnv, SettingsError, type GitHubSettings } from "../../lib/submissions/github-settings";
import type { HostedStorage } from "../../lib/submissions/storage-settings";
import { CliError, usageError } from "./cli-errors";
import { storageOrFail } from "./load";

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

/**
 * The intake for a database, or null when GitHub is not configured. `repo` (the `--repo`
 * flag) is the configured repository for this run, in place of GITHUB_REPOSITORY; `signal`
 * stops downloads and delivery passes; `storage` keeps downloaded bundles by content for workers elsewhere.
 */
export async function githubIntake(db: Db, log: (line: string) => void, options: { repo?: RepoRef; signal?: AbortSignal; storage?: HostedStorage } = {}): Promise<{ intake: GitHubIntake; repo: RepoRef | null } | null> {
  const settings = { ...settingsOrThrow(), ...(options.repo ? { repo: options.repo } : {}) };
  if (!githubConfigured(settings)) return null;
  try {
    return { intake: await createGitHubIntake(db, settings, { log, ...(options.signal ? { signal: options.signal } : {}), ...(options.storage ? { storage: options.storage } : {}) }), repo: settings.repo };
  } catch (err) {
    if (err instanceof NoDefaultBenchmarkError) throw new CliError(`${err.message}: \`./agentboard submit <bundle> --benchmark <folder>\` registers one (a board's first benchmark is its default), or \`npm run start:demo\` loads the demo`, 2);
    throw err;
  }
}

export async function ingestCommand(flags: IngestFlags): Promise<number> {
  const repo = flags.repo ? parseRepoRef(flags.repo) : settingsOrThrow().repo;
  if (!repo) throw usageError(flags.repo ? `--repo must look like owner/name, got "${flags.repo}"` : "--repo owner/name is required (or GITHUB_REPOSITORY)");
  const every = flags.every === undefined ? 0 : Number(flags.every);
  if (!Number.isFinite(every) || every < 0) throw usageError(`--every must be a number of seconds, got "${flags.every}"`);
  const storage = storageOrFail();
  const db = await connectDatabase(flags.db);
  const log = (l: string) => process.stderr.write(`${l}\n`);
  try {
    const made = await githubIntake(db, log, { repo, storage });
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
    await closeDatabase(db);
  }
}

export interface GitHubPassOptions {
  /** How often stored webhook deliveries are read (default the settings' deliveryPollMs). */
  deliveryMs: number;
  /** How often every issue's status comment and label are re-rendered (default the settings' statusSyncMs). */
  syncMs: number;
  log: (line: string) => void;
}

export interface GitHubPass {
  /** One delivery pass now (the caller waits for it). */
  deliveries(): Promise<void>;
  /** Stops the timers, waits for the pass in hand and mirrors status one last time. */
  stop(): Promise<void>;
}

/**
 * The worker's GitHub work, beside its scoring loop: stored webhook deliveries are processed
 * (download, validation, comments: what the web route must not do) every `deliveryMs`, and
 * every issue's status is mirrored every `syncMs` (scoring progress, then the result, and
 * actions taken on the admin pages). One pass at a time; a failing pass is logged, never fatal.
 */
export function startGitHubPass(intake: GitHubIntake, repo: RepoRef, options: GitHubPassOptions): GitHubPass {
  let running: Promise<unknown> = Promise.resolve();
  let lastSync = 0;
  const enqueue = (what: string, work: () => Promise<unknown>) => {
    running = running.then(work).catch((err: unknown) => options.log(`GitHub ${what}: ${err instanceof Error ? err.message : String(err)}`));
    return running.then(() => {});
  };
  const deliveries = () =>
    enqueue("deliveries", async () => {
      const n = await processPendingDeliveries(intake);
      if (n) options.log(`GitHub: ${n} webhook delivery(ies) processed`);
    });
  const sync = () => enqueue("status", () => syncAll(intake, repo));
  const timer = setInterval(() => {
    void deliveries();
    if (Date.now() - lastSync >= options.syncMs) {
      lastSync = Date.now();
      void sync();
    }
  }, Math.min(options.deliveryMs, options.syncMs));
  return {
    deliveries,
    async stop() {
      clearInterval(timer);
      await sync();
    },
  };
}
