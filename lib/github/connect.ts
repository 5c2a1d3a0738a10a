/**
 * The one way to get a GitHub client: from credentials (a token, or a GitHub App's
 * installation) and the API root. The caller reads them from wherever it keeps them
 * (lib/submissions/github-settings.ts reads the environment); nothing here does.
 */
import { App, Octokit } from "octokit";
import { OctokitGitHub, type GitHubPort } from "./github-client";

export interface GitHubAppCredentials {
  appId: string;
  privateKey: string;
  installationId: number;
}

export interface GitHubCredentials {
  token: string | null;
  app: GitHubAppCredentials | null;
  /** The REST API root, e.g. https://api.github.com. */
  apiUrl: string;
}

export interface ConnectOptions {
  /** Octokit's retry plugin; default on, except against a local server. */
  retry?: boolean;
  /** Octokit's throttling plugin (it spaces out writes); default on, except against a local server. */
  throttle?: boolean;
}

export class GitHubNotConfiguredError extends Error {
  override readonly name = "GitHubNotConfiguredError";
  constructor() {
    super("GitHub is not configured: set GITHUB_TOKEN, or GITHUB_APP_ID, GITHUB_APP_PRIVATE_KEY and GITHUB_APP_INSTALLATION_ID");
  }
}

/** True when there are credentials to talk to GitHub at all. */
export function hasGitHubCredentials(c: GitHubCredentials): boolean {
  return c.token !== null || c.app !== null;
}

/** The GitHub client for these credentials: a token, or a GitHub App's installation. */
export async function connectGitHub(c: GitHubCredentials, options: ConnectOptions = {}): Promise<GitHubPort> {
  // Against a local stand-in (tests), octokit's retries and write spacing only slow things down.
  const local = /^https?:\/\/(127\.0\.0\.1|localhost)(:\d+)?(\/|$)/.test(c.apiUrl);
  const common = { baseUrl: c.apiUrl, retry: options.retry ?? !local, throttle: options.throttle ?? !local, userAgent: "agentboard" };
  if (c.token) return new OctokitGitHub({ ...common, token: c.token });
  if (c.app) {
    // An installation token lasts an hour: long-running processes reconnect per pass.
    const app = new App({ appId: c.app.appId, privateKey: c.app.privateKey, Octokit: Octokit.defaults({ baseUrl: c.apiUrl }) });
    const auth = (await app.octokit.auth({ type: "installation", installationId: c.app.installationId })) as { token: string };
    return new OctokitGitHub({ ...common, token: auth.token });
  }
  throw new GitHubNotConfiguredError();
}
