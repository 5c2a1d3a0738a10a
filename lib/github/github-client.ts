/**
 * The GitHub operations submission handling needs, as a small port (`GitHubPort`) with one
 * octokit implementation (connect.ts builds it). Orchestration and tests depend on the port.
 * Transport shapes are reshaped into plain types here, at the boundary. Configuration
 * (token, API base URL) is passed in: nothing here reads the environment.
 */
import { Octokit, RequestError } from "octokit";

export interface RepoRef {
  owner: string;
  repo: string;
}

export interface GitHubIssue {
  number: number;
  title: string;
  /** "" when the issue has no body. */
  body: string;
  state: "open" | "closed";
  labels: string[];
  /** The author's login (null for a deleted account). */
  author: string | null;
  htmlUrl: string;
  createdAt: string;
  updatedAt: string;
}

export interface GitHubComment {
  id: number;
  body: string;
  author: string | null;
  /** "User", "Bot" or "Organization", as GitHub reports it. */
  authorType: string | null;
  htmlUrl: string;
  createdAt: string;
  updatedAt: string;
}

/** GitHub's repository roles, highest first, plus `none`. */
export type RepositoryPermission = "admin" | "maintain" | "write" | "triage" | "read" | "none";

export type ReactionContent = "+1" | "-1" | "laugh" | "confused" | "heart" | "hooray" | "rocket" | "eyes";

export interface LabelSpec {
  name: string;
  /** Six hex digits without `#`. */
  color?: string;
  description?: string;
}

/** A bounded listing: `complete` false when pages were left unread. */
export interface IssuePage {
  issues: GitHubIssue[];
  complete: boolean;
}

export interface UpdatedIssuesQuery {
  /** Only issues updated at or after this (GitHub's `since`); all when absent. */
  since?: string | Date;
  /** Pages read at most; the rest are left for the next call (with a later `since`). */
  maxPages: number;
  /** Issues per page, 1 to 100 (GitHub's maximum, the default). */
  perPage?: number;
}

/** One entry of a repository folder, as the contents API lists it. */
export interface RepoFolderEntry {
  name: string;
  path: string;
  /** "file", "dir", "symlink" or "submodule". */
  type: string;
  size: number;
  /** The blob's sha: changes when the file does. */
  sha: string;
}

/** A folder listing; `notModified` when the ETag given still matches (nothing changed). */
export type RepoFolder = { notModified: true } | { notModified: false; etag: string | null; entries: RepoFolderEntry[] };

export interface GitHubPort {
  /** Every open issue carrying `label` (pull requests excluded), all pages. */
  listOpenIssues(repo: RepoRef, label: string): Promise<GitHubIssue[]>;
  /**
   * Open issues carrying `label` (pull requests excluded), least recently updated first, at
   * most `maxPages` pages: a caller that keeps the last `updatedAt` it read can go on from there.
   */
  listUpdatedIssues(repo: RepoRef, label: string, query: UpdatedIssuesQuery): Promise<IssuePage>;
  getIssue(repo: RepoRef, issueNumber: number): Promise<GitHubIssue>;
  /** Every comment on the issue, oldest first; `since` keeps those updated at or after it. */
  listComments(repo: RepoRef, issueNumber: number, options?: { since?: string | Date }): Promise<GitHubComment[]>;
  createComment(repo: RepoRef, issueNumber: number, body: string): Promise<GitHubComment>;
  updateComment(repo: RepoRef, commentId: number, body: string): Promise<GitHubComment>;
  /** Creates the repository label unless it exists (an existing label is left as it is). */
  ensureLabel(repo: RepoRef, label: LabelSpec): Promise<void>;
  /** Adds labels (creating missing ones); returns the issue's labels afterwards. */
  addLabels(repo: RepoRef, issueNumber: number, labels: readonly (string | LabelSpec)[]): Promise<string[]>;
  /** Removes a label from the issue; a label the issue does not carry is not an error. */
  removeLabel(repo: RepoRef, issueNumber: number, label: string): Promise<void>;
  /** Replaces all of the issue's labels (creating missing ones); returns them. */
  setLabels(repo: RepoRef, issueNumber: number, labels: readonly (string | LabelSpec)[]): Promise<string[]>;
  addReaction(repo: RepoRef, commentId: number, content: ReactionContent): Promise<void>;
  /** The user's role on the repository; `none` when GitHub answers 404 (unknown user). */
  getPermission(repo: RepoRef, username: string): Promise<RepositoryPermission>;
  /** A folder of the default branch (no entries when it does not exist); `etag` makes the request conditional. */
  listFolder(repo: RepoRef, folder: string, options?: { etag?: string }): Promise<RepoFolder>;
  /** A file of the default branch as UTF-8 text; a file larger than `maxBytes` is refused unread. */
  readTextFile(repo: RepoRef, filePath: string, maxBytes: number): Promise<{ text: string; sha: string }>;
}

/** A failed GitHub API call, with the HTTP status (0 when no response arrived). */
export class GitHubApiError extends Error {
  override readonly name = "GitHubApiError";
  constructor(
    message: string,
    readonly status: number,
    readonly operation: string,
  ) {
    super(message);
  }
}

export interface GitHubClientOptions {
  token: string;
  /** The REST API root (GITHUB_API_URL); default https://api.github.com. */
  baseUrl?: string;
  /** Octokit's retry plugin; default on. Off for tests against a fake server. */
  retry?: boolean;
  /** Octokit's throttling plugin (it spaces out writes by a second); default on. */
  throttle?: boolean;
  userAgent?: string;
}

/** Whether a role may act as a maintainer (write or higher). */
export function hasWriteAccess(permission: RepositoryPermission): boolean {
  return permission === "admin" || permission === "maintain" || permission === "write";
}

/** "owner/name" → RepoRef, or undefined when the text is not of that shape. */
export function parseRepoRef(text: string): RepoRef | undefined {
  const m = /^([A-Za-z0-9](?:[A-Za-z0-9-]{0,38}))\/([A-Za-z0-9._-]{1,100})$/.exec(text.trim());
  return m && m[2] !== "." && m[2] !== ".." ? { owner: m[1]!, repo: m[2]! } : undefined;
}

const PERMISSIONS: readonly RepositoryPermission[] = ["admin", "maintain", "write", "triage", "read", "none"];
const DEFAULT_LABEL_COLOR = "ededed";

/** The octokit-backed port; built by `connectGitHub` (connect.ts), the one way in. */
export class OctokitGitHub implements GitHubPort {
  private readonly octokit: Octokit;
  /** Labels known to exist, per repository, so each is created at most once per client. */
  private readonly knownLabels = new Set<string>();

  constructor(options: GitHubClientOptions) {
    this.octokit = new Octokit({
      auth: options.token,
      ...(options.baseUrl ? { baseUrl: options.baseUrl.replace(/\/+$/, "") } : {}),
      ...(options.userAgent ? { userAgent: options.userAgent } : {}),
      ...(options.retry === false ? { retry: { enabled: false } } : {}),
      ...(options.throttle === false ? { throttle: { enabled: false } } : {}),
    });
  }

  async listOpenIssues(repo: RepoRef, label: string): Promise<GitHubIssue[]> {
    const items = await this.call("list issues", () =>
      this.octokit.paginate(this.octokit.rest.issues.listForRepo, { ...repo, labels: label, state: "open", per_page: 100 }),
    );
    return items.filter((i) => !i.pull_request).map(issueFromJson);
  }

  async listUpdatedIssues(repo: RepoRef, label: string, query: UpdatedIssuesQuery): Promise<IssuePage> {
    const since = query.since instanceof Date ? query.since.toISOString() : query.since;
    const perPage = Math.min(100, Math.max(1, Math.floor(query.perPage ?? 100)));
    const params = { ...repo, labels: label, state: "open" as const, sort: "updated" as const, direction: "asc" as const, per_page: perPage, ...(since ? { since } : {}) };
    return this.call("list updated issues", async () => {
      const issues: GitHubIssue[] = [];
      let pages = 0;
      let more = false;
      for await (const page of this.octokit.paginate.iterator(this.octokit.rest.issues.listForRepo, params)) {
        issues.push(...page.data.filter((i) => !i.pull_request).map(issueFromJson));
        more = /\brel="next"/.test(page.headers.link ?? "");
        if (++pages >= query.maxPages) break;
      }
      return { issues, complete: !more };
    });
  }

  async getIssue(repo: RepoRef, issueNumber: number): Promise<GitHubIssue> {
    const { data } = await this.call(`get issue #${issueNumber}`, () => this.octokit.rest.issues.get({ ...repo, issue_number: issueNumber }));
    return issueFromJson(data);
  }

  async listComments(repo: RepoRef, issueNumber: number, options: { since?: string | Date } = {}): Promise<GitHubComment[]> {
    const since = options.since instanceof Date ? options.since.toISOString() : options.since;
    const items = await this.call(`list comments of #${issueNumber}`, () =>
      this.octokit.paginate(this.octokit.rest.issues.listComments, { ...repo, issue_number: issueNumber, per_page: 100, ...(since ? { since } : {}) }),
    );
    return items.map(commentFromJson);
  }

  async createComment(repo: RepoRef, issueNumber: number, body: string): Promise<GitHubComment> {
    const { data } = await this.call(`comment on #${issueNumber}`, () => this.octokit.rest.issues.createComment({ ...repo, issue_number: issueNumber, body }));
    return commentFromJson(data);
  }

  async updateComment(repo: RepoRef, commentId: number, body: string): Promise<GitHubComment> {
    const { data } = await this.call(`update comment ${commentId}`, () => this.octokit.rest.issues.updateComment({ ...repo, comment_id: commentId, body }));
    return commentFromJson(data);
  }

  async ensureLabel(repo: RepoRef, label: LabelSpec): Promise<void> {
    const key = `${repo.owner}/${repo.repo}#${label.name.toLowerCase()}`;
    if (this.knownLabels.has(key)) return;
    try {
      await this.octokit.rest.issues.createLabel({
        ...repo,
        name: label.name,
        color: label.color ?? DEFAULT_LABEL_COLOR,
        ...(label.description !== undefined ? { description: label.description } : {}),
      });
    } catch (err) {
      // Creating first and treating "already exists" as success costs one call, not two.
      if (!isAlreadyExists(err)) throw toApiError(err, `create label "${label.name}"`);
    }
    this.knownLabels.add(key);
  }

  async addLabels(repo: RepoRef, issueNumber: number, labels: readonly (string | LabelSpec)[]): Promise<string[]> {
    const names = await this.ensureLabels(repo, labels);
    const { data } = await this.call(`add labels to #${issueNumber}`, () => this.octokit.rest.issues.addLabels({ ...repo, issue_number: issueNumber, labels: names }));
    return data.map((l) => l.name);
  }

  async removeLabel(repo: RepoRef, issueNumber: number, label: string): Promise<void> {
    try {
      await this.octokit.rest.issues.removeLabel({ ...repo, issue_number: issueNumber, name: label });
    } catch (err) {
      if (!(err instanceof RequestError && err.status === 404)) throw toApiError(err, `remove label "${label}" from #${issueNumber}`);
    }
  }

  async setLabels(repo: RepoRef, issueNumber: number, labels: readonly (string | LabelSpec)[]): Promise<string[]> {
    const names = await this.ensureLabels(repo, labels);
    const { data } = await this.call(`set labels of #${issueNumber}`, () => this.octokit.rest.issues.setLabels({ ...repo, issue_number: issueNumber, labels: names }));
    return data.map((l) => l.name);
  }

  async addReaction(repo: RepoRef, commentId: number, content: ReactionContent): Promise<void> {
    await this.call(`react to comment ${commentId}`, () => this.octokit.rest.reactions.createForIssueComment({ ...repo, comment_id: commentId, content }));
  }

  async getPermission(repo: RepoRef, username: string): Promise<RepositoryPermission> {
    try {
      const { data } = await this.octokit.rest.repos.getCollaboratorPermissionLevel({ ...repo, username });
      // role_name distinguishes maintain and triage (and names custom roles); `permission`
      // folds those into write/read, so it is the fallback.
      const role = (data as { role_name?: string }).role_name;
      for (const candidate of [role, data.permission]) {
        if (PERMISSIONS.includes(candidate as RepositoryPermission)) return candidate as RepositoryPermission;
      }
      return "none";
    } catch (err) {
      if (err instanceof RequestError && err.status === 404) return "none";
      throw toApiError(err, `get permission of ${username}`);
    }
  }

  async listFolder(repo: RepoRef, folder: string, options: { etag?: string } = {}): Promise<RepoFolder> {
    try {
      const res = await this.octokit.rest.repos.getContent({ ...repo, path: folder, ...(options.etag ? { headers: { "if-none-match": options.etag } } : {}) });
      // A path naming a file answers with that file, not a list: no folder there.
      if (res.status !== 200) throw new GitHubApiError(`GitHub: list ${folder} failed: unexpected HTTP ${res.status}`, res.status, `list ${folder}`);
      const entries = Array.isArray(res.data) ? res.data : [];
      return {
        notModified: false,
        etag: typeof res.headers.etag === "string" ? res.headers.etag : null,
        entries: entries.map((e) => ({ name: String(e.name), path: String(e.path), type: String(e.type), size: Number(e.size) || 0, sha: String(e.sha) })),
      };
    } catch (err) {
      if (err instanceof RequestError && err.status === 304) return { notModified: true };
      if (err instanceof RequestError && err.status === 404) return { notModified: false, etag: null, entries: [] };
      throw toApiError(err, `list ${folder}`);
    }
  }

  async readTextFile(repo: RepoRef, filePath: string, maxBytes: number): Promise<{ text: string; sha: string }> {
    const { data } = await this.call(`read ${filePath}`, () => this.octokit.rest.repos.getContent({ ...repo, path: filePath }));
    // Not GitHub failing but the file being unfit: a plain Error, so callers can tell them apart.
    if (Array.isArray(data) || data.type !== "file" || !("content" in data)) throw new Error(`${filePath} is not a file`);
    if (data.size > maxBytes || data.content.length > Math.ceil((maxBytes * 4) / 3) + 1_024) throw new Error(`${filePath} is ${data.size} bytes; at most ${maxBytes} are read`);
    const bytes = Buffer.from(data.content, data.encoding === "base64" ? "base64" : "utf8");
    if (bytes.length > maxBytes) throw new Error(`${filePath} is ${bytes.length} bytes; at most ${maxBytes} are read`);
    return { text: bytes.toString("utf8"), sha: data.sha };
  }

  private async ensureLabels(repo: RepoRef, labels: readonly (string | LabelSpec)[]): Promise<string[]> {
    const specs = labels.map((l) => (typeof l === "string" ? { name: l } : l));
    for (const spec of specs) await this.ensureLabel(repo, spec);
    return specs.map((s) => s.name);
  }

  private async call<T>(operation: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      throw toApiError(err, operation);
    }
  }
}

/** GitHub's issue JSON, as the REST API and webhooks send it (the fields we read). */
export interface IssueJson {
  number: number;
  title: string;
  body?: string | null;
  state: string;
  labels: (string | { name?: string })[];
  user: { login: string } | null;
  html_url: string;
  created_at: string;
  updated_at: string;
}

/** GitHub's issue comment JSON, as the REST API and webhooks send it (the fields we read). */
export interface CommentJson {
  id: number;
  body?: string;
  user: { login: string; type?: string } | null;
  html_url: string;
  created_at: string;
  updated_at: string;
}

export function issueFromJson(i: IssueJson): GitHubIssue {
  return {
    number: i.number,
    title: i.title,
    body: i.body ?? "",
    state: i.state === "closed" ? "closed" : "open",
    labels: i.labels.map((l) => (typeof l === "string" ? l : (l.name ?? ""))).filter((n) => n !== ""),
    author: i.user?.login ?? null,
    htmlUrl: i.html_url,
    createdAt: i.created_at,
    updatedAt: i.updated_at,
  };
}

export function commentFromJson(c: CommentJson): GitHubComment {
  return {
    id: c.id,
    body: c.body ?? "",
    author: c.user?.login ?? null,
    authorType: c.user?.type ?? null,
    htmlUrl: c.html_url,
    createdAt: c.created_at,
    updatedAt: c.updated_at,
  };
}

function isAlreadyExists(err: unknown): boolean {
  if (!(err instanceof RequestError) || err.status !== 422) return false;
  const errors = (err.response?.data as { errors?: { code?: string }[] } | undefined)?.errors ?? [];
  return errors.some((e) => e.code === "already_exists");
}

function toApiError(err: unknown, operation: string): GitHubApiError {
  if (err instanceof GitHubApiError) return err;
  const status = err instanceof RequestError ? err.status : 0;
  const detail = err instanceof Error ? err.message : String(err);
  return new GitHubApiError(`GitHub: ${operation} failed${status ? ` (HTTP ${status})` : ""}: ${detail}`, status, operation);
}
