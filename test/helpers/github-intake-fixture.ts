/**
 * GitHub intake against local stand-ins, for the integration tests of submissions from
 * GitHub issues: a fresh database (test/helpers/engines.ts) with the mini benchmark as the
 * default, a fake GitHub (octokit's retry and throttling off), a fake file server serving the
 * good bundle at GOOD_ZIP, the settings a worker would read from its environment (loopback
 * downloads allowed unless told otherwise, bundles in a scratch folder), and an intake context.
 *
 *   describe.each(ENGINES)("… on %s", (engine) => { const fx = useGitHubIntake(engine, { now }); … fx.intake … })
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach } from "vitest";
import type { Db } from "@/db/client";
import type { RepoRef } from "@/lib/github/github-client";
import { renderIssueFormBody, type IssueFormValues } from "@/lib/github/issue-form";
import { registerBenchmark } from "@/lib/submissions/benchmarks";
import { createGitHubIntake, type GitHubIntake, type IntakeOptions } from "@/lib/submissions/github-intake";
import { githubSettingsFromEnv, type GitHubSettings } from "@/lib/submissions/github-settings";
import { STATUS_MARKER } from "@/lib/submissions/github-status";
import { createScoringDeps } from "@/lib/submissions/scoring-deps";
import { runWorker } from "@/lib/submissions/worker";
import { freshDatabase, type Engine, type TestDatabase } from "./engines";
import { startFakeFileServer, type FakeFileServer } from "./fake-file-server";
import { startFakeGitHubServer, type FakeComment, type FakeGitHubServer } from "./fake-github-server";
import { GOOD_BUNDLE, MINI_BENCHMARK } from "./mini-fixtures";
import { zipFolder } from "./zip-writer";

/** Where the fake file server serves the good bundle's ZIP. */
export const GOOD_ZIP = "/good.zip";

export interface GitHubIntakeSetup {
  /** The clock of the benchmark's registration and of the intake; default the real clock. */
  now?: () => Date;
  /** Set AGENTBOARD_TEST_ALLOW_LOOPBACK, so bundles download from the fake file server (default true). */
  allowLoopback?: boolean;
}

/** What a test changes for one more intake context over the same database and servers. */
export interface IntakeOverrides extends IntakeOptions {
  /** Another handle on the database (another worker); default the fixture's. */
  db?: Db;
  /** Variables over the fixture's environment (`env`), read into the context's settings. */
  env?: Record<string, string>;
}

export interface GitHubIntakeFixture {
  /** The database (its url and env too, for another handle or process). */
  t: TestDatabase;
  db: Db;
  /** The mini benchmark's version: the default for new submissions. */
  versionId: number;
  gh: FakeGitHubServer;
  /** The fake GitHub's repository: the one GITHUB_REPOSITORY names. */
  repo: RepoRef;
  files: FakeFileServer;
  /** A scratch folder, removed by close; bundles go to its `bundles` folder. */
  dir: string;
  /** The GitHub and bundle variables a worker or the web process would be given (not the database's). */
  env: Record<string, string>;
  settings: GitHubSettings;
  /** The intake context over `db` with `settings`. */
  intake: GitHubIntake;
  /** Another intake context over the same servers (another worker, other settings, other seams). */
  createIntake(over?: IntakeOverrides): Promise<GitHubIntake>;
  close(): Promise<void>;
}

/** Starts everything the fixture holds; the caller closes it. */
export async function startGitHubIntake(engine: Engine, setup: GitHubIntakeSetup = {}): Promise<GitHubIntakeFixture> {
  const t = await freshDatabase(engine);
  const { versionId } = await registerBenchmark(t.db, MINI_BENCHMARK, { isDefault: true, now: (setup.now ?? (() => new Date()))() });
  const gh = await startFakeGitHubServer();
  const files = await startFakeFileServer();
  files.serve(GOOD_ZIP, zipFolder(GOOD_BUNDLE));
  const dir = mkdtempSync(path.join(tmpdir(), "agentboard-gh-intake-"));
  const env: Record<string, string> = {
    GITHUB_TOKEN: gh.token,
    GITHUB_API_URL: gh.baseUrl,
    GITHUB_REPOSITORY: `${gh.owner}/${gh.repo}`,
    BUNDLE_ALLOWED_HOSTS: "127.0.0.1",
    ...(setup.allowLoopback === false ? {} : { AGENTBOARD_TEST_ALLOW_LOOPBACK: "1" }),
    AGENTBOARD_PUBLIC_URL: "https://board.example",
    AGENTBOARD_BUNDLE_DIR: path.join(dir, "bundles"),
  };
  const createIntake = ({ db = t.db, env: over = {}, ...options }: IntakeOverrides = {}) =>
    createGitHubIntake(db, githubSettingsFromEnv({ ...env, ...over }), { ...(setup.now ? { now: setup.now } : {}), connect: { retry: false, throttle: false }, ...options });
  const intake = await createIntake();
  return {
    t,
    db: t.db,
    versionId,
    gh,
    repo: { owner: gh.owner, repo: gh.repo },
    files,
    dir,
    env,
    settings: intake.settings,
    intake,
    createIntake,
    close: async () => {
      await gh.close();
      await files.close();
      await t.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * A fixture for each test of the calling describe block, closed after the test. The returned
 * object's fields are set in beforeEach, so read them inside tests and hooks.
 */
export function useGitHubIntake(engine: Engine, setup: GitHubIntakeSetup = {}): GitHubIntakeFixture {
  const fx = {} as GitHubIntakeFixture;
  beforeEach(async () => {
    Object.assign(fx, await startGitHubIntake(engine, setup));
  });
  afterEach(() => fx.close?.()); // unset when beforeEach failed
  return fx;
}

/** Issue forms in the shapes of VAKRA's and others' (test/fixtures/github/forms). */
export const FORM_FIXTURES = path.resolve(import.meta.dirname, "../fixtures/github/forms");

/**
 * Serves issue forms from the repository's `.github/ISSUE_TEMPLATE/` through the fake's contents
 * API: file name there → fixture name under FORM_FIXTURES.
 */
export function serveIssueForms(gh: FakeGitHubServer, forms: Record<string, string>): void {
  for (const [name, fixture] of Object.entries(forms)) gh.setFile(`.github/ISSUE_TEMPLATE/${name}`, readFileSync(path.join(FORM_FIXTURES, fixture), "utf8"));
}

/** The repository's submission form, filled in for the mini agent unless told otherwise. */
export function issueForm(over: Partial<IssueFormValues> & Pick<IssueFormValues, "zipUrl">): string {
  return renderIssueFormBody({ agentName: "mini-agent", maintainer: "Ada Lab", models: ["test-model"], description: "A small agent.", ...over });
}

/** The bot's status comments on an issue: one, edited in place, once the issue has been read. */
export function statusComments(gh: FakeGitHubServer, issue: number): FakeComment[] {
  return gh.comments(issue).filter((c) => c.body.startsWith(STATUS_MARKER));
}

/** The body of the bot's (first) status comment on an issue; throws when there is none. */
export function statusComment(gh: FakeGitHubServer, issue: number): string {
  const [first] = statusComments(gh, issue);
  if (!first) throw new Error(`issue #${issue} has no status comment`);
  return first.body;
}

/** Scores every queued submission, as the worker does, until the queue is empty. */
export async function scoreQueued(db: Db, now: () => Date): Promise<void> {
  const deps = createScoringDeps(db, { now });
  try {
    await runWorker(db, deps, { untilIdle: true });
  } finally {
    await deps.close();
  }
}
