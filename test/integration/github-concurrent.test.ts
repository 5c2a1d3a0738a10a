/**
 * Several intake workers against one database (issue 25, point 2): four intake contexts, each
 * with its own database handle (a Postgres pool each; a connection each to one SQLite file),
 * work through the same webhook deliveries and poll and sync the same repository at once.
 * Each delivery is acted on by one of them, each issue is read into one submission and gets
 * exactly one status comment on the fake GitHub. Without the delivery claim or the issue
 * lease (lib/submissions/named-leases.ts) this fails: two workers act on a delivery, or post two
 * status comments on an issue.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { closeDatabase, connectDatabase, type Db } from "@/db/client";
import { githubDeliveries, leases, submissions } from "@/db/schema";
import { renderIssueFormBody, SUBMISSION_LABEL } from "@/lib/github/issue-form";
import { registerBenchmark } from "@/lib/submissions/benchmarks";
import { createGitHubIntake, pollRepository, processPendingDeliveries, recordDelivery, syncAll, type GitHubIntake } from "@/lib/submissions/github-intake";
import { githubSettingsFromEnv } from "@/lib/submissions/github-settings";
import { STATUS_MARKER } from "@/lib/submissions/github-status";
import { ENGINES, freshDatabase, type TestDatabase } from "../helpers/engines";
import { startFakeFileServer, type FakeFileServer } from "../helpers/fake-file-server";
import { startFakeGitHubServer, type FakeGitHubServer } from "../helpers/fake-github-server";
import { zipFolder } from "../helpers/zip-writer";

const repoRoot = path.resolve(import.meta.dirname, "../..");
const mini = path.join(repoRoot, "test/fixtures/mini-benchmark");
const good = path.join(repoRoot, "test/fixtures/mini-bundles/good");
const tmp = mkdtempSync(path.join(tmpdir(), "agentboard-gh-concurrent-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const WORKERS = 4;
const ISSUES = 6;
const repo = { owner: "bench-org", repo: "bench" };
let clock = 0;
const now = () => new Date(Date.UTC(2026, 10, 24) + clock++ * 1000);

describe.each(ENGINES)("GitHub intake with %i workers on %s", (engine) => {
  let t: TestDatabase;
  let gh: FakeGitHubServer;
  let files: FakeFileServer;
  const handles: Db[] = [];

  beforeEach(async () => {
    t = await freshDatabase(engine);
    await registerBenchmark(t.db, mini, { isDefault: true, now: now() });
    gh = await startFakeGitHubServer();
    files = await startFakeFileServer();
  });

  afterEach(async () => {
    for (const db of handles.splice(0)) await closeDatabase(db);
    await gh.close();
    await files.close();
    await t.close();
  });

  /** A worker: its own database handle (another "machine"), its own GitHub client and bundle folder. */
  async function worker(i: number, log: string[]): Promise<GitHubIntake> {
    const db = await connectDatabase(t.url);
    // better-sqlite3 waits for another connection's write lock synchronously: here, in one
    // thread, a handle waiting out the busy timeout would stop the holder (on the same event
    // loop) from committing. Separate processes do not share a thread; in this test the wait is
    // cut short and the busy write is tried again (retryBusy), as a busy one is between processes.
    if (engine === "sqlite") db.$client.pragma("busy_timeout = 20");
    handles.push(db);
    const settings = {
      ...githubSettingsFromEnv({ GITHUB_TOKEN: gh.token, GITHUB_API_URL: gh.baseUrl, GITHUB_REPOSITORY: "bench-org/bench", BUNDLE_ALLOWED_HOSTS: "127.0.0.1", AGENTBOARD_TEST_ALLOW_LOOPBACK: "1", AGENTBOARD_PUBLIC_URL: "https://board.example" }),
      bundleDir: path.join(tmp, `bundles-${engine}-${clock}-${i}`),
    };
    return createGitHubIntake(db, settings, { now, connect: { retry: false, throttle: false }, log: (line) => log.push(`w${i} ${line}`) });
  }

  it("acts on each delivery once and posts one status comment per issue", async () => {
    const issues = Array.from({ length: ISSUES }, (_, i) => {
      files.serve(`/agent-${i}.zip`, zipFolder(good, (n, text) => (n.endsWith("metadata.json") ? text.replace("mini-agent", `mini-agent ${i}`) : text)));
      const body = renderIssueFormBody({ agentName: `agent ${i}`, maintainer: "Ada Lab", models: ["test-model"], description: "A small agent.", zipUrl: files.url(`/agent-${i}.zip`) });
      return gh.addIssue({ body, labels: [SUBMISSION_LABEL], user: `author-${i}` });
    });
    // Two deliveries per issue (GitHub sends "opened" and then "labeled"), and one to ignore.
    const ids: string[] = [];
    for (const issue of issues) {
      for (const action of ["opened", "labeled"]) {
        const id = `${action}-${issue.number}`;
        const payload = { action, repository: { full_name: "bench-org/bench" }, issue: { number: issue.number, title: issue.title, body: issue.body, state: "open", labels: [{ name: SUBMISSION_LABEL }], user: { login: issue.user.login } } };
        expect(await recordDelivery(t.db, { id, event: "issues", payload }, now())).toBe("queued");
        ids.push(id);
      }
    }
    expect(await recordDelivery(t.db, { id: "ping-1", event: "ping", payload: { zen: "hi" } }, now())).toBe("queued");
    ids.push("ping-1");

    const log: string[] = [];
    const workers = await Promise.all(Array.from({ length: WORKERS }, (_, i) => worker(i, log)));
    // Every worker at once: its delivery pass, a poll of the repository and a status sync.
    await Promise.all(workers.map((w) => Promise.all([processPendingDeliveries(w), pollRepository(w, repo), syncAll(w, repo)])));
    // A delivery deferred because another worker had its issue is taken by a later pass.
    for (let round = 0; round < 5; round++) await Promise.all(workers.map((w) => processPendingDeliveries(w)));

    const deliveries = await t.db.select().from(githubDeliveries);
    expect(deliveries.map((d) => [d.deliveryId, d.status, d.attempts, d.leaseToken]).sort()).toEqual(
      ids.map((id) => [id, id === "ping-1" ? "ignored" : "done", 1, null]).sort(),
    );
    // Acted on once: one outcome line per delivery across all the workers' logs.
    const acted = log.filter((l) => / delivery \S+ \(\w+\): (done|ignored|failed)$/.test(l)).map((l) => l.split(" ")[2]);
    expect(acted.sort()).toEqual([...ids].sort());

    const subs = await t.db.select().from(submissions);
    expect(subs).toHaveLength(ISSUES);
    expect(new Set(subs.map((s) => s.agentName)).size).toBe(ISSUES);
    for (const issue of issues) {
      const status = gh.comments(issue.number).filter((c) => c.body.startsWith(STATUS_MARKER));
      expect(status, `issue #${issue.number}: ${status.length} status comments`).toHaveLength(1);
      expect(status[0]!.body).toContain("queued for scoring");
      expect(files.requests.filter((r) => r.path === `/agent-${issue.number - 1}.zip`)).toHaveLength(1);
    }
    // Every lease was given back.
    expect(await t.db.select().from(leases)).toEqual([]);
  });
});
