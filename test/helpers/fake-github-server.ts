/**
 * A fake GitHub REST API for one repository, on 127.0.0.1 at a random port: exactly the
 * endpoints `OctokitGitHub` calls (issues, comments, labels, reactions, collaborator
 * permission, the contents API for files of the default branch, with ETags and 304s on folder
 * listings) and, when given an `app`, a GitHub App's installation-token exchange (the JWT's
 * RS256 signature is checked), with GitHub's pagination (`per_page`, `page`, `Link` headers), label
 * auto-creation, GitHub's 65,536-character limit on comment bodies (422), 401 without the token
 * and 404 for anything else. Point octokit at
 * `baseUrl` (GITHUB_API_URL) with retry and throttling off. The in-memory store is seeded and
 * inspected directly by the test; every request is logged.
 */
import { createHash, createVerify } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export type FakePermission = "admin" | "maintain" | "write" | "triage" | "read" | "none";

export interface FakeLabel {
  id: number;
  name: string;
  color: string;
  description: string | null;
}

export interface FakeUser {
  login: string;
  type: "User" | "Bot" | "Organization";
}

export interface FakeIssue {
  number: number;
  title: string;
  body: string | null;
  state: "open" | "closed";
  user: FakeUser;
  /** Label names, as on the issue. */
  labels: string[];
  pullRequest: boolean;
  createdAt: string;
  updatedAt: string;
}

export interface FakeComment {
  id: number;
  issueNumber: number;
  body: string;
  user: FakeUser;
  createdAt: string;
  updatedAt: string;
}

export interface FakeReaction {
  id: number;
  commentId: number;
  content: string;
  user: string;
}

export interface LoggedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  status: number;
}

export interface NewIssue {
  number?: number;
  title?: string;
  body?: string | null;
  /** Login of the author (a User); default "submitter". */
  user?: string;
  labels?: string[];
  state?: "open" | "closed";
  /** Pull requests show up in the issues list; the client must filter them out. */
  pullRequest?: boolean;
}

export interface NewComment {
  body: string;
  user?: string;
  userType?: FakeUser["type"];
}

export interface FakeGitHubOptions {
  owner?: string;
  repo?: string;
  token?: string;
  /** The login comments created through the API are attributed to. */
  botLogin?: string;
  /** A GitHub App installed on the repository: a JWT signed with its key buys the token. */
  app?: { appId: string; installationId: number; publicKeyPem: string };
  /** Files of the default branch (path → text), served by the contents API. */
  files?: Record<string, string>;
  /** The issue listing answers every issue whatever its `labels=` filter (a listing not to trust). */
  ignoreLabelFilter?: boolean;
}

export interface FakeGitHubServer {
  /** `http://127.0.0.1:<port>`: octokit's `baseUrl`. */
  readonly baseUrl: string;
  readonly owner: string;
  readonly repo: string;
  readonly token: string;
  readonly botLogin: string;
  readonly requests: readonly LoggedRequest[];
  addIssue(issue: NewIssue): FakeIssue;
  editIssue(issueNumber: number, patch: Partial<Pick<FakeIssue, "title" | "body" | "state" | "labels">>): FakeIssue;
  issue(issueNumber: number): FakeIssue | undefined;
  addComment(issueNumber: number, comment: NewComment): FakeComment;
  /** `"missing"` makes the permission endpoint answer 404 (its default for unknown users). */
  setPermission(login: string, permission: FakePermission | "missing"): void;
  comments(issueNumber: number): FakeComment[];
  labels(issueNumber: number): string[];
  repoLabels(): FakeLabel[];
  reactions(commentId: number): FakeReaction[];
  /** Sets (text) or deletes (null) a file of the default branch, served by the contents API. */
  setFile(filePath: string, text: string | null): void;
  /** Whether the issue listing ignores its `labels=` filter. */
  setIgnoreLabelFilter(ignore: boolean): void;
  /** The next `count` requests matching method and path answer `status` (e.g. 500, 502). */
  failNext(method: string, path: RegExp, status: number, count?: number): void;
  close(): Promise<void>;
}

/** A `bearer <JWT>` signed RS256 by the app's private key, issued by the app. */
function appJwtValid(auth: string, app: NonNullable<FakeGitHubOptions["app"]>): boolean {
  const parts = /^bearer ([\w-]+)\.([\w-]+)\.([\w-]+)$/i.exec(auth);
  if (!parts) return false;
  const [, header, payload, signature] = parts as unknown as [string, string, string, string];
  try {
    const signed = createVerify("RSA-SHA256").update(`${header}.${payload}`).verify(app.publicKeyPem, Buffer.from(signature, "base64url"));
    const claims = JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as { iss?: unknown };
    return signed && String(claims.iss) === app.appId;
  } catch {
    return false;
  }
}

/** GitHub's limit on issue comment bodies, in characters. */
export const FAKE_COMMENT_LIMIT = 65_536;

/** GitHub's answer to a comment body over the limit: 422, and nothing is stored. */
function tooLong(body: string): void {
  if ([...body].length > FAKE_COMMENT_LIMIT) {
    throw new HttpError(422, "Validation Failed", { errors: [{ resource: "IssueComment", field: "body", code: "custom", message: `body is too long (maximum is ${FAKE_COMMENT_LIMIT} characters)` }] });
  }
}

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

export async function startFakeGitHubServer(options: FakeGitHubOptions = {}): Promise<FakeGitHubServer> {
  const owner = options.owner ?? "bench-org";
  const repo = options.repo ?? "bench";
  const token = options.token ?? "test-token";
  const botLogin = options.botLogin ?? "agentboard-bot";

  const issues = new Map<number, FakeIssue>();
  const comments = new Map<number, FakeComment>();
  const repoLabels: FakeLabel[] = [];
  const reactions: FakeReaction[] = [];
  const permissions = new Map<string, FakePermission>();
  const requests: LoggedRequest[] = [];
  const failures: { method: string; path: RegExp; status: number; left: number }[] = [];
  const files = new Map<string, string>(Object.entries(options.files ?? {}));
  let ignoreLabelFilter = options.ignoreLabelFilter ?? false;
  let nextId = 1000;
  // A deterministic clock: every write happens one second after the previous one.
  let clock = Date.parse("2026-01-01T00:00:00Z");
  const tick = () => new Date((clock += 1000)).toISOString();
  let baseUrl = "";

  const findLabel = (name: string) => repoLabels.find((l) => l.name.toLowerCase() === name.toLowerCase());
  const createLabel = (name: string, color = "ededed", description: string | null = null) => {
    const label: FakeLabel = { id: nextId++, name, color, description };
    repoLabels.push(label);
    return label;
  };
  const mustIssue = (n: number) => {
    const issue = issues.get(n);
    if (!issue) throw new HttpError(404, "Not Found");
    return issue;
  };
  const mustComment = (id: number) => {
    const comment = comments.get(id);
    if (!comment) throw new HttpError(404, "Not Found");
    return comment;
  };
  /** Labels given by name are created on the fly, as GitHub does. */
  const applyLabels = (issue: FakeIssue, names: string[]) => {
    for (const name of names) {
      const label = findLabel(name) ?? createLabel(name);
      if (!issue.labels.some((l) => l.toLowerCase() === label.name.toLowerCase())) issue.labels.push(label.name);
    }
  };

  const labelJson = (name: string) => {
    const l = findLabel(name) ?? { id: 0, name, color: "ededed", description: null };
    return { id: l.id, node_id: `LA_${l.id}`, url: `${baseUrl}/repos/${owner}/${repo}/labels/${encodeURIComponent(l.name)}`, name: l.name, color: l.color, default: false, description: l.description };
  };
  const userJson = (u: FakeUser) => ({ login: u.login, id: hashId(u.login), type: u.type, site_admin: false });
  const issueJson = (i: FakeIssue) => ({
    id: 500_000 + i.number,
    node_id: `I_${i.number}`,
    number: i.number,
    title: i.title,
    body: i.body,
    state: i.state,
    user: userJson(i.user),
    labels: i.labels.map(labelJson),
    comments: [...comments.values()].filter((c) => c.issueNumber === i.number).length,
    html_url: `https://github.com/${owner}/${repo}/issues/${i.number}`,
    url: `${baseUrl}/repos/${owner}/${repo}/issues/${i.number}`,
    created_at: i.createdAt,
    updated_at: i.updatedAt,
    ...(i.pullRequest ? { pull_request: { url: `${baseUrl}/repos/${owner}/${repo}/pulls/${i.number}` } } : {}),
  });
  const commentJson = (c: FakeComment) => ({
    id: c.id,
    node_id: `IC_${c.id}`,
    body: c.body,
    user: userJson(c.user),
    html_url: `https://github.com/${owner}/${repo}/issues/${c.issueNumber}#issuecomment-${c.id}`,
    issue_url: `${baseUrl}/repos/${owner}/${repo}/issues/${c.issueNumber}`,
    created_at: c.createdAt,
    updated_at: c.updatedAt,
  });

  /** One page of `items` plus GitHub's Link header. */
  const paginate = <T>(items: T[], url: URL): { page: T[]; link?: string } => {
    const perPage = clamp(Number(url.searchParams.get("per_page") ?? 30), 1, 100);
    const pageNo = Math.max(1, Number(url.searchParams.get("page") ?? 1) || 1);
    const last = Math.max(1, Math.ceil(items.length / perPage));
    const at = (p: number) => {
      const u = new URL(url.pathname + url.search, baseUrl);
      u.searchParams.set("per_page", String(perPage));
      u.searchParams.set("page", String(p));
      return u.href;
    };
    const rels: string[] = [];
    if (pageNo > 1) rels.push(`<${at(pageNo - 1)}>; rel="prev"`, `<${at(1)}>; rel="first"`);
    if (pageNo < last) rels.push(`<${at(pageNo + 1)}>; rel="next"`, `<${at(last)}>; rel="last"`);
    return { page: items.slice((pageNo - 1) * perPage, pageNo * perPage), ...(rels.length ? { link: rels.join(", ") } : {}) };
  };

  type Handler = (m: string[], url: URL, body: Record<string, unknown>, req: IncomingMessage) => { status?: number; json: unknown; link?: string; headers?: Record<string, string> };
  const blobSha = (text: string) => createHash("sha1").update(`blob ${Buffer.byteLength(text)}\0`).update(text).digest("hex");
  /** GitHub's contents API: a file (base64, wrapped at 60 as GitHub does), a folder's entries with an ETag, or 404. */
  const contents = (filePath: string, req: IncomingMessage) => {
    const text = files.get(filePath);
    const entry = (p: string, type: "file" | "dir") => {
      const t = files.get(p) ?? "";
      const name = p.split("/").pop()!;
      return { name, path: p, type, size: type === "file" ? Buffer.byteLength(t) : 0, sha: type === "file" ? blobSha(t) : createHash("sha1").update(p).digest("hex"), url: `${baseUrl}/repos/${owner}/${repo}/contents/${p}` };
    };
    if (text !== undefined) {
      const content = (Buffer.from(text).toString("base64").match(/.{1,60}/g) ?? []).join("\n");
      return { json: { ...entry(filePath, "file"), encoding: "base64", content } };
    }
    const prefix = filePath === "" ? "" : `${filePath}/`;
    const children = new Map<string, "file" | "dir">();
    for (const p of files.keys()) {
      if (!p.startsWith(prefix)) continue;
      const [head, ...rest] = p.slice(prefix.length).split("/");
      children.set(`${prefix}${head}`, rest.length ? "dir" : "file");
    }
    if (children.size === 0) throw new HttpError(404, "Not Found");
    const json = [...children].sort(([a], [b]) => a.localeCompare(b)).map(([p, type]) => entry(p, type));
    const etag = `"${createHash("sha1").update(JSON.stringify(json)).digest("hex")}"`;
    if (req.headers["if-none-match"] === etag) return { status: 304, json: null, headers: { etag } };
    return { json, headers: { etag } };
  };
  const R = `/repos/${escapeRegExp(owner)}/${escapeRegExp(repo)}`;
  const routes: { method: string; pattern: RegExp; handle: Handler }[] = [
    { method: "GET", pattern: new RegExp(`^${R}/contents(?:/(.*))?$`), handle: (m, _url, _body, req) => contents(decodeURIComponent(m[1] ?? "").replace(/\/+$/, ""), req) },
    {
      method: "GET",
      pattern: new RegExp(`^${R}/issues$`),
      handle: (_m, url) => {
        const state = url.searchParams.get("state") ?? "open";
        const wanted = (url.searchParams.get("labels") ?? "").split(",").map((s) => s.trim().toLowerCase()).filter(Boolean);
        const list = [...issues.values()]
          .filter((i) => state === "all" || i.state === state)
          .filter((i) => ignoreLabelFilter || wanted.every((w) => i.labels.some((l) => l.toLowerCase() === w)))
          .sort((a, b) => b.number - a.number); // GitHub's default: newest first
        const { page, link } = paginate(list, url);
        return { json: page.map(issueJson), ...(link ? { link } : {}) };
      },
    },
    { method: "GET", pattern: new RegExp(`^${R}/issues/(\\d+)$`), handle: (m) => ({ json: issueJson(mustIssue(Number(m[1]))) }) },
    {
      method: "PATCH",
      pattern: new RegExp(`^${R}/issues/(\\d+)$`),
      handle: (m, _url, body) => {
        const issue = mustIssue(Number(m[1]));
        if (typeof body.title === "string") issue.title = body.title;
        if (typeof body.body === "string" || body.body === null) issue.body = body.body as string | null;
        if (body.state === "open" || body.state === "closed") issue.state = body.state;
        issue.updatedAt = tick();
        return { json: issueJson(issue) };
      },
    },
    {
      method: "GET",
      pattern: new RegExp(`^${R}/issues/(\\d+)/comments$`),
      handle: (m, url) => {
        mustIssue(Number(m[1]));
        const since = url.searchParams.get("since");
        const list = [...comments.values()]
          .filter((c) => c.issueNumber === Number(m[1]))
          .filter((c) => !since || Date.parse(c.updatedAt) >= Date.parse(since))
          .sort((a, b) => a.id - b.id);
        const { page, link } = paginate(list, url);
        return { json: page.map(commentJson), ...(link ? { link } : {}) };
      },
    },
    {
      method: "POST",
      pattern: new RegExp(`^${R}/issues/(\\d+)/comments$`),
      handle: (m, _url, body) => {
        if (typeof body.body !== "string" || body.body === "") throw new HttpError(422, "Validation Failed", { errors: [{ resource: "IssueComment", field: "body", code: "missing_field" }] });
        tooLong(body.body);
        const c = insertComment(Number(m[1]), { body: body.body, user: botLogin, userType: "Bot" });
        return { status: 201, json: commentJson(c) };
      },
    },
    {
      method: "PATCH",
      pattern: new RegExp(`^${R}/issues/comments/(\\d+)$`),
      handle: (m, _url, body) => {
        const c = mustComment(Number(m[1]));
        if (typeof body.body !== "string") throw new HttpError(422, "Validation Failed");
        tooLong(body.body);
        c.body = body.body;
        c.updatedAt = tick();
        return { json: commentJson(c) };
      },
    },
    {
      method: "POST",
      pattern: new RegExp(`^${R}/issues/comments/(\\d+)/reactions$`),
      handle: (m, _url, body) => {
        const c = mustComment(Number(m[1]));
        const content = String(body.content);
        if (!["+1", "-1", "laugh", "confused", "heart", "hooray", "rocket", "eyes"].includes(content)) throw new HttpError(422, "Validation Failed");
        const existing = reactions.find((r) => r.commentId === c.id && r.content === content && r.user === botLogin);
        const reaction = existing ?? { id: nextId++, commentId: c.id, content, user: botLogin };
        if (!existing) reactions.push(reaction);
        return { status: existing ? 200 : 201, json: { id: reaction.id, content, user: userJson({ login: botLogin, type: "Bot" }) } };
      },
    },
    {
      method: "POST",
      pattern: new RegExp(`^${R}/labels$`),
      handle: (_m, _url, body) => {
        const name = typeof body.name === "string" ? body.name : "";
        if (!name) throw new HttpError(422, "Validation Failed", { errors: [{ resource: "Label", field: "name", code: "missing_field" }] });
        if (findLabel(name)) throw new HttpError(422, "Validation Failed", { errors: [{ resource: "Label", field: "name", code: "already_exists" }] });
        const color = typeof body.color === "string" ? body.color : "ededed";
        if (!/^[0-9a-fA-F]{6}$/.test(color)) throw new HttpError(422, "Validation Failed", { errors: [{ resource: "Label", field: "color", code: "invalid" }] });
        const label = createLabel(name, color, typeof body.description === "string" ? body.description : null);
        return { status: 201, json: labelJson(label.name) };
      },
    },
    {
      method: "POST",
      pattern: new RegExp(`^${R}/issues/(\\d+)/labels$`),
      handle: (m, _url, body) => {
        const issue = mustIssue(Number(m[1]));
        applyLabels(issue, labelNames(body));
        issue.updatedAt = tick();
        return { json: issue.labels.map(labelJson) };
      },
    },
    {
      method: "PUT",
      pattern: new RegExp(`^${R}/issues/(\\d+)/labels$`),
      handle: (m, _url, body) => {
        const issue = mustIssue(Number(m[1]));
        issue.labels = [];
        applyLabels(issue, labelNames(body));
        issue.updatedAt = tick();
        return { json: issue.labels.map(labelJson) };
      },
    },
    {
      method: "DELETE",
      pattern: new RegExp(`^${R}/issues/(\\d+)/labels/([^/]+)$`),
      handle: (m) => {
        const issue = mustIssue(Number(m[1]));
        const name = decodeURIComponent(m[2]!).toLowerCase();
        const index = issue.labels.findIndex((l) => l.toLowerCase() === name);
        if (index < 0) throw new HttpError(404, "Label does not exist");
        issue.labels.splice(index, 1);
        issue.updatedAt = tick();
        return { json: issue.labels.map(labelJson) };
      },
    },
    {
      method: "GET",
      pattern: new RegExp(`^${R}/collaborators/([^/]+)/permission$`),
      handle: (m) => {
        const login = decodeURIComponent(m[1]!);
        const role = permissions.get(login.toLowerCase());
        if (!role) throw new HttpError(404, "Not Found");
        // `permission` is the legacy field: maintain and triage fold into write and read.
        const legacy = role === "maintain" ? "write" : role === "triage" ? "read" : role;
        return { json: { permission: legacy, role_name: role, user: userJson({ login, type: "User" }) } };
      },
    },
  ];

  const insertComment = (issueNumber: number, c: NewComment): FakeComment => {
    mustIssue(issueNumber);
    const at = tick();
    const comment: FakeComment = { id: nextId++, issueNumber, body: c.body, user: { login: c.user ?? "commenter", type: c.userType ?? "User" }, createdAt: at, updatedAt: at };
    comments.set(comment.id, comment);
    return comment;
  };

  const send = (res: ServerResponse, status: number, json: unknown, link?: string, extra: Record<string, string> = {}) => {
    const headers: Record<string, string> = { "content-type": "application/json; charset=utf-8", "x-github-media-type": "github.v3", ...extra };
    if (link) headers.link = link;
    if (status === 204 || status === 304) {
      res.writeHead(status, headers);
      res.end();
      return;
    }
    res.writeHead(status, headers);
    res.end(JSON.stringify(json));
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? "/", baseUrl);
    const method = req.method ?? "GET";
    const logged: LoggedRequest = { method, path: url.pathname, query: Object.fromEntries(url.searchParams), status: 0 };
    requests.push(logged);
    const reply = (status: number, json: unknown, link?: string, headers?: Record<string, string>) => {
      logged.status = status;
      send(res, status, json, link, headers);
    };
    const auth = req.headers.authorization ?? "";
    const exchange = /^\/app\/installations\/(\d+)\/access_tokens$/.exec(url.pathname);
    if (options.app && method === "POST" && exchange) {
      if (!appJwtValid(auth, options.app)) return reply(401, { message: "A JSON web token could not be decoded" });
      if (Number(exchange[1]) !== options.app.installationId) return reply(404, { message: "Not Found" });
      return reply(201, { token, expires_at: new Date(Date.now() + 3600_000).toISOString(), permissions: { issues: "write" } });
    }
    if (auth !== `token ${token}` && auth !== `Bearer ${token}`) {
      return reply(401, { message: "Bad credentials", documentation_url: "https://docs.github.com/rest" });
    }
    const failure = failures.find((f) => f.left > 0 && f.method === method && f.path.test(url.pathname));
    if (failure) {
      failure.left--;
      return reply(failure.status, { message: `injected failure ${failure.status}` });
    }
    let body: Record<string, unknown> = {};
    const raw = await readBody(req);
    if (raw) {
      try {
        body = JSON.parse(raw) as Record<string, unknown>;
      } catch {
        return reply(400, { message: "Problems parsing JSON" });
      }
    }
    for (const route of routes) {
      if (route.method !== method) continue;
      const m = route.pattern.exec(url.pathname);
      if (!m) continue;
      try {
        const out = route.handle(m, url, body, req);
        return reply(out.status ?? 200, out.json, out.link, out.headers);
      } catch (err) {
        if (err instanceof HttpError) return reply(err.status, { message: err.message, ...err.extra });
        return reply(500, { message: String(err) });
      }
    }
    return reply(404, { message: "Not Found" });
  };

  const server = createServer((req, res) => void handle(req, res));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    baseUrl,
    owner,
    repo,
    token,
    botLogin,
    requests,
    addIssue(input) {
      const number = input.number ?? Math.max(0, ...issues.keys()) + 1;
      if (issues.has(number)) throw new Error(`issue #${number} exists`);
      const at = tick();
      const issue: FakeIssue = {
        number,
        title: input.title ?? `Submission ${number}`,
        body: input.body === undefined ? "" : input.body,
        state: input.state ?? "open",
        user: { login: input.user ?? "submitter", type: "User" },
        labels: [],
        pullRequest: input.pullRequest ?? false,
        createdAt: at,
        updatedAt: at,
      };
      applyLabels(issue, input.labels ?? []);
      issues.set(number, issue);
      return issue;
    },
    editIssue(issueNumber, patch) {
      const issue = mustIssue(issueNumber);
      if (patch.title !== undefined) issue.title = patch.title;
      if (patch.body !== undefined) issue.body = patch.body;
      if (patch.state !== undefined) issue.state = patch.state;
      if (patch.labels !== undefined) {
        issue.labels = [];
        applyLabels(issue, patch.labels);
      }
      issue.updatedAt = tick();
      return issue;
    },
    issue: (n) => issues.get(n),
    addComment: (issueNumber, comment) => insertComment(issueNumber, comment),
    setPermission(login, permission) {
      if (permission === "missing") permissions.delete(login.toLowerCase());
      else permissions.set(login.toLowerCase(), permission);
    },
    comments: (n) => [...comments.values()].filter((c) => c.issueNumber === n).sort((a, b) => a.id - b.id),
    labels: (n) => [...(issues.get(n)?.labels ?? [])],
    repoLabels: () => repoLabels.map((l) => ({ ...l })),
    reactions: (commentId) => reactions.filter((r) => r.commentId === commentId),
    setFile(filePath, text) {
      if (text === null) files.delete(filePath);
      else files.set(filePath, text);
    },
    setIgnoreLabelFilter(ignore) {
      ignoreLabelFilter = ignore;
    },
    failNext(method, path, status, count = 1) {
      failures.push({ method: method.toUpperCase(), path, status, left: count });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function labelNames(body: Record<string, unknown>): string[] {
  // GitHub accepts {labels: ["a"]}, {labels: [{name: "a"}]} and a bare array.
  const list = Array.isArray(body) ? body : Array.isArray(body.labels) ? body.labels : [];
  return list.map((l: unknown) => (typeof l === "string" ? l : String((l as { name?: unknown }).name ?? ""))).filter(Boolean);
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

const clamp = (n: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, Number.isFinite(n) ? Math.trunc(n) : lo));
const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
const hashId = (s: string) => [...s].reduce((h, ch) => (h * 31 + ch.charCodeAt(0)) >>> 0, 7) % 1_000_000;
