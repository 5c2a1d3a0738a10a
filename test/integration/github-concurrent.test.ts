/**
 * Several intake workers against one database (issue 25, point 2): four intake contexts, each
 * with its own database handle (a Postgres pool each; a connection each to one SQLite file),
 * work through the same webhook deliveries and poll and sync the same repository at once.
 * Each delivery is acted on by one of them, each issue is read into one submission and gets
 * exactly one status comment on the fake GitHub. Without the delivery claim or the issue
 * lease (lib/submissions/named-leases.ts) this fails: two workers act on a delivery, or post two
 * status comments on an issue.
 */
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { closeDatabase, connectDatabase, type Db } from "@/db/client";
import { githubDeliveries, leases, submissions } from "@/db/schema";
import type { RepoRef } from "@/lib/github/github-client";
import { SUBMISSION_LABEL } from "@/lib/github/issue-form";
import { pollRepository, processPendingDeliveries, recordDelivery, syncAll, type GitHubIntake } from "@/lib/submissions/github-intake";
import { ENGINES, type TestDatabase } from "../helpers/engines";
import type { FakeFileServer } from "../helpers/fake-file-server";
import type { FakeGitHubServer } from "../helpers/fake-github-server";
import { issueForm, statusComments, useGitHubIntake } from "../helpers/github-intake-fixture";
import { GOOD_BUNDLE, tickingClock } from "../helpers/mini-fixtures";
import { zipFolder } from "../helpers/zip-writer";

const WORKERS = 4;
const ISSUES = 6;
const now = tickingClock(Date.UTC(2026, 10, 24));

describe.each(ENGINES)(`GitHub intake with ${WORKERS} workers on %s`, (engine) => {
  let t: TestDatabase, gh: FakeGitHubServer, repo: RepoRef, files: FakeFileServer;
  const handles: Db[] = [];
  const fx = useGitHubIntake(engine, { now });

  beforeEach(() => void ({ t, gh, repo, files } = fx));

  // Runs before the fixture closes (hooks unwind in reverse): the handles go before their database.
  afterEach(async () => {
    for (const db of handles.splice(0)) await closeDatabase(db);
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
    return fx.createIntake({ db, env: { AGENTBOARD_BUNDLE_DIR: path.join(fx.dir, `bundles-${i}`) }, log: (line) => log.push(`w${i} ${line}`) });
  }

  it("acts on each delivery once and posts one status comment per issue", async () => {
    const issues = Array.from({ length: ISSUES }, (_, i) => {
      files.serve(`/agent-${i}.zip`, zipFolder(GOOD_BUNDLE, (n, text) => (n.endsWith("metadata.json") ? text.replace("mini-agent", `mini-agent ${i}`) : text)));
      const body = issueForm({ agentName: `agent ${i}`, zipUrl: files.url(`/agent-${i}.zip`) });
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
      const status = statusComments(gh, issue.number);
      expect(status, `issue #${issue.number}: ${status.length} status comments`).toHaveLength(1);
      expect(status[0]!.body).toContain("queued for scoring");
      expect(files.requests.filter((r) => r.path === `/agent-${issue.number - 1}.zip`)).toHaveLength(1);
    }
    // Every lease was given back.
    expect(await t.db.select().from(leases)).toEqual([]);
  });
});
