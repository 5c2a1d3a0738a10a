/**
 * Hosted mode under faults (issue 25): one Postgres, two worker "machines" (their own worker
 * ids, download folders and caches; a shared object-storage folder), 4 jobs at once each, 200
 * GitHub submissions and a slow fake judge. Mid-run one machine is frozen past its lease and
 * thawed once another has taken one of its jobs over. A trigger logs every row written for a
 * job or a run with the writing machine's name, its transaction and the job's lease token: a
 * token must be written by one machine only (a thawed machine writing for a job taken over
 * from it would write under the new holder's token; without the token check its heartbeat
 * alone shows), and every transaction writing a run's scores must write its job's row (the
 * fence). Then Postgres is restarted, and a machine is killed with SIGKILL and replaced. At the end every job is done, each submission has exactly one
 * completed run, no item row is duplicated, each issue has one status comment, and every
 * run's verdict digest equals that of a single worker scoring the same bundles on SQLite.
 *
 * The test starts its own Postgres cluster (it restarts it), so it disturbs no other test.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createHash } from "node:crypto";
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync, appendFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { sql } from "drizzle-orm";
import { afterAll, describe, expect, it } from "vitest";
import { closeDatabase, exec, openDatabase, openPostgres, rows, type Db } from "@/db/client";
import { renderIssueFormBody, SUBMISSION_LABEL } from "@/lib/github/issue-form";
import { registerBenchmark } from "@/lib/submissions/benchmarks";
import { recordDelivery } from "@/lib/submissions/github-intake";
import { STATUS_MARKER } from "@/lib/submissions/github-status";
import { ingestBundle } from "@/lib/submissions/ingest";
import { createScoringDeps } from "@/lib/submissions/scoring-deps";
import { runWorker } from "@/lib/submissions/worker";
import { postgresBin, restartPgCluster, startPgCluster, type PgCluster } from "@/scripts/pg-cluster";
import { startFakeFileServer, type FakeFileServer } from "../helpers/fake-file-server";
import { startFakeGitHubServer, type FakeGitHubServer } from "../helpers/fake-github-server";
import { startFakeOpenAiServer, systemPrompt, type FakeOpenAiServer, type RecordedRequest } from "../helpers/fake-openai-server";
import { GOOD_BUNDLE, MINI_BENCHMARK } from "../helpers/mini-fixtures";
import { AGENTBOARD, REPO } from "../helpers/run-cli";
import { zipFolder } from "../helpers/zip-writer";

const SUBMISSIONS = 200;
const ITEMS_PER_BUNDLE = 4;
const tmp = mkdtempSync(path.join(tmpdir(), "agentboard-fault-"));
const cleanup: (() => Promise<void> | void)[] = [];
afterAll(async () => {
  for (const f of cleanup.reverse()) await f();
  rmSync(tmp, { recursive: true, force: true });
});

/** Grades depend only on what is asked, so any worker, in any order, grades an item alike. */
function deterministicJudge(req: RecordedRequest) {
  const body = JSON.stringify((req.json as { messages?: unknown } | undefined)?.messages ?? "");
  const pass = createHash("sha256").update(body).digest()[0]! % 3 !== 0;
  const grounded = /grounded/i.test(systemPrompt(req));
  const verdict = grounded ? (pass ? "grounded" : "ungrounded") : pass ? "correct" : "incorrect";
  return { delayMs: 150, content: JSON.stringify({ verdict, reason: "fake judge" }) };
}

/** What the test prints when it times out: the queue's state and the machines' logs. */
let diagnose: () => Promise<string> = async () => "";

async function until<T>(probe: () => Promise<T | undefined>, what: string, ms = 240_000, everyMs = 250, onError: () => Promise<void> = async () => {}): Promise<T> {
  const end = Date.now() + ms;
  let last: unknown;
  for (;;) {
    try {
      const v = await probe();
      if (v !== undefined) return v;
    } catch (err) {
      last = err; // the database may be restarting
      await onError().catch(() => {});
    }
    if (Date.now() > end) {
      const state = await diagnose().catch((err) => `(no diagnosis: ${String(err)})`);
      throw new Error(`timed out waiting for ${what}${last ? ` (last error: ${String(last)}; cause: ${String((last as { cause?: unknown }).cause)})` : ""}\n${state}`);
    }
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

const count = async (db: Db, query: ReturnType<typeof sql>) => Number((await rows<{ n: number }>(db, query))[0]!.n);
const exited = (p: ChildProcess) => new Promise<number | null>((resolve) => (p.exitCode !== null || p.signalCode !== null ? resolve(p.exitCode) : p.once("exit", (code) => resolve(code))));

describe.skipIf(!postgresBin())("hosted mode under faults", () => {
  it("scores 200 GitHub submissions exactly once through a frozen worker, a database restart and a killed worker", async () => {
    const cluster: PgCluster = await startPgCluster();
    cleanup.push(() => cluster.stop());
    const admin = new pg.Client({ connectionString: cluster.url });
    await admin.connect();
    await admin.query("CREATE DATABASE fault");
    await admin.end();
    const url = cluster.url.replace(/\/postgres$/, "/fault");
    // The test's own handle: opened again whenever a query fails (the server restarts under it).
    let db = await openPostgres(url, { poolSize: 4 });
    cleanup.push(() => closeDatabase(db));
    const reopen = async () => {
      const old = db;
      db = await openPostgres(url, { poolSize: 4 });
      await closeDatabase(old).catch(() => {});
    };

    // The benchmark, judged by the (slow, fake) LLM judge.
    const benchDir = path.join(tmp, "benchmark");
    cpSync(MINI_BENCHMARK, benchDir, { recursive: true });
    appendFileSync(path.join(benchDir, "benchmark.yaml"), "judge:\n  kind: openai\n  model: fake-judge\n");
    await registerBenchmark(db, benchDir, { isDefault: true, now: new Date() });

    const judge: FakeOpenAiServer = await startFakeOpenAiServer(deterministicJudge);
    cleanup.push(() => judge.close());
    const gh: FakeGitHubServer = await startFakeGitHubServer();
    cleanup.push(() => gh.close());
    const files: FakeFileServer = await startFakeFileServer();
    cleanup.push(() => files.close());

    const zips: Buffer[] = [];
    const issueNumbers: number[] = [];
    for (let i = 0; i < SUBMISSIONS; i++) {
      const zip = zipFolder(GOOD_BUNDLE, (name, text) => (name === "output/metadata.json" ? JSON.stringify({ agent_name: `agent-${i}`, models: ["m"] }) : text));
      zips.push(zip);
      files.serve(`/b${i}.zip`, zip);
      const body = renderIssueFormBody({ agentName: `agent-${i}`, maintainer: "Lab", models: ["m"], description: "d", zipUrl: files.url(`/b${i}.zip`) });
      const issue = gh.addIssue({ title: `[Submission]: agent-${i}`, labels: [SUBMISSION_LABEL], user: "sub", body });
      issueNumbers.push(issue.number);
      const payload = {
        action: "opened",
        repository: { full_name: `${gh.owner}/${gh.repo}` },
        issue: { number: issue.number, title: issue.title, body: issue.body, state: "open", html_url: `https://github.com/${gh.owner}/${gh.repo}/issues/${issue.number}`, labels: [{ name: SUBMISSION_LABEL }], user: { login: "sub" } },
      };
      expect(await recordDelivery(db, { id: `delivery-${i}`, event: "issues", payload }, new Date())).toBe("queued");
    }

    // Who wrote what: every row written for a job or a run is logged by a trigger with the
    // writing connection's name (each machine names its connections after itself), its
    // transaction and, for a job's row, the lease token the row then carries. A fence UPDATE
    // that matches no row logs nothing.
    await exec(db, sql.raw(`
      CREATE TABLE write_log (app text NOT NULL DEFAULT current_setting('application_name'), txid bigint NOT NULL DEFAULT txid_current(), tbl text NOT NULL, job_id bigint, run_id bigint, token text);
      CREATE FUNCTION log_write() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE j jsonb := to_jsonb(CASE WHEN TG_OP = 'DELETE' THEN OLD ELSE NEW END);
      BEGIN
        INSERT INTO write_log (tbl, job_id, run_id, token) VALUES (TG_TABLE_NAME,
          CASE WHEN TG_TABLE_NAME = 'jobs' THEN (j->>'id')::bigint END,
          COALESCE((j->>'run_id')::bigint, CASE WHEN TG_TABLE_NAME = 'scoring_runs' THEN (j->>'id')::bigint END),
          j->>'lease_token');
        RETURN NULL;
      END $$;
      DO $$ DECLARE t text; BEGIN
        FOR t IN SELECT table_name FROM information_schema.columns WHERE table_schema = 'public' AND column_name = 'run_id' AND table_name <> 'write_log'
                 UNION SELECT 'scoring_runs' LOOP
          EXECUTE format('CREATE TRIGGER log_write AFTER INSERT OR UPDATE OR DELETE ON %I FOR EACH ROW EXECUTE FUNCTION log_write()', t);
        END LOOP;
      END $$;`));

    const objects = path.join(tmp, "objects");
    const machine = (id: string): ChildProcess => {
      const home = path.join(tmp, id);
      mkdirSync(home, { recursive: true });
      const p = spawn(process.execPath, [...AGENTBOARD, "worker", "--concurrency", "4"], {
        cwd: REPO,
        stdio: ["ignore", "ignore", "pipe"],
        env: {
          ...process.env,
          // The connection names its machine, so the write log below knows who wrote what.
          AGENTBOARD_DATABASE_URL: `${url}?application_name=${id}`,
          AGENTBOARD_WORKER_ID: id,
          AGENTBOARD_STORAGE_URL: objects,
          AGENTBOARD_CACHE_DIR: path.join(home, "cache"),
          AGENTBOARD_BUNDLE_DIR: path.join(home, "bundles"),
          AGENTBOARD_WORKER_STALE_MS: "4000",
          AGENTBOARD_HEARTBEAT_MS: "500",
          AGENTBOARD_JUDGE_BASE_URL: judge.baseUrl,
          AGENTBOARD_JUDGE_API_KEY: "k",
          // One grade at a time per job, so a job lasts long enough to be taken over mid-way.
          AGENTBOARD_JUDGE_CONCURRENCY: "1",
          GITHUB_TOKEN: gh.token,
          GITHUB_API_URL: gh.baseUrl,
          GITHUB_REPOSITORY: `${gh.owner}/${gh.repo}`,
          BUNDLE_ALLOWED_HOSTS: "127.0.0.1",
          AGENTBOARD_TEST_ALLOW_LOOPBACK: "1",
          GITHUB_DELIVERY_POLL_MS: "200",
          GITHUB_STATUS_SYNC_MS: "1000",
        },
      });
      let log = "";
      p.stderr!.on("data", (c: Buffer) => (log = (log + c.toString()).slice(-20_000)));
      cleanup.push(() => {
        if (p.exitCode === null && p.signalCode === null) p.kill("SIGKILL");
      });
      Object.defineProperty(p, "log", { get: () => log });
      return p;
    };
    const completed = () => count(db, sql`SELECT count(*) AS n FROM scoring_runs WHERE status = 'completed'`);

    const a = machine("machine-a");
    const b = machine("machine-b");
    const logs = new Map<string, ChildProcess>([["machine-a", a], ["machine-b", b]]);
    diagnose = async () => {
      const q = async (query: ReturnType<typeof sql>) => JSON.stringify(await rows(db, query));
      return [
        `jobs: ${await q(sql`SELECT state, locked_by, count(*) AS n, min(last_error) AS error FROM jobs GROUP BY state, locked_by`)}`,
        `runs: ${await q(sql`SELECT status, count(*) AS n FROM scoring_runs GROUP BY status`)}`,
        `submissions: ${await q(sql`SELECT state, count(*) AS n FROM submissions GROUP BY state`)}`,
        `deliveries: ${await q(sql`SELECT status, count(*) AS n, min(error) AS error FROM github_deliveries GROUP BY status`)}`,
        `sessions: ${await q(sql`SELECT application_name AS app, state, count(*) AS n FROM pg_stat_activity WHERE datname = current_database() GROUP BY 1, 2`)}`,
        ...[...logs].map(([id, p]) => `--- ${id} (exit ${p.exitCode ?? p.signalCode ?? "running"}):\n${(p as unknown as { log: string }).log.slice(-3000)}`),
      ].join("\n");
    };

    // 1. Freeze machine B past its lease while it holds jobs, and thaw it the moment another
    //    machine has taken one of them over, while that job is still being scored: B's lease
    //    token is stale, so everything it then tries for that job must be refused.
    await until(async () => ((await completed()) >= 30 ? true : undefined), "30 completed runs");
    b.kill("SIGSTOP");
    const held = (await rows<{ id: number }>(db, sql`SELECT id FROM jobs WHERE state = 'running' AND locked_by = 'machine-b'`)).map((r) => r.id);
    expect(held.length).toBeGreaterThan(0);
    await until(
      async () => ((await count(db, sql`SELECT count(*) AS n FROM jobs WHERE state = 'running' AND locked_by <> 'machine-b' AND id IN (${sql.join(held.map((id) => sql`${id}`), sql`, `)})`)) > 0 ? true : undefined),
      "another machine to take over one of B's jobs",
      60_000,
      50,
    );
    b.kill("SIGCONT");

    // 2. Restart Postgres mid-run: every connection of every machine is dropped at once.
    await until(async () => ((await completed()) >= 80 ? true : undefined), "80 completed runs");
    await restartPgCluster(cluster);
    await reopen();
    // 3. Kill machine A outright; machine C replaces it.
    await until(async () => ((await completed()) >= 140 ? true : undefined), "140 completed runs", 240_000, 250, reopen);
    a.kill("SIGKILL");
    const c = machine("machine-c");
    logs.set("machine-c", c);

    // Everything scored, every issue told.
    await until(async () => {
      const scored = await count(db, sql`SELECT count(*) AS n FROM submissions WHERE state = 'scored'`);
      const open = await count(db, sql`SELECT count(*) AS n FROM jobs WHERE state <> 'done'`);
      if (scored !== SUBMISSIONS || open !== 0) return undefined;
      const told = issueNumbers.filter((n) => gh.comments(n).some((m) => m.body.startsWith(STATUS_MARKER) && m.body.includes("waiting for a maintainer"))).length;
      return told === SUBMISSIONS ? true : undefined;
    }, "all submissions scored and every issue's status comment updated", 400_000, 250, reopen);

    b.kill("SIGTERM");
    c.kill("SIGTERM");
    await Promise.all([exited(b), exited(c)]);

    // Exactly once.
    expect(await count(db, sql`SELECT count(*) AS n FROM jobs`)).toBe(SUBMISSIONS);
    expect(await rows(db, sql`SELECT state, count(*) AS n FROM jobs GROUP BY state`)).toEqual([{ state: "done", n: SUBMISSIONS }]);
    expect(await count(db, sql`SELECT count(*) AS n FROM scoring_runs WHERE status = 'completed'`)).toBe(SUBMISSIONS);
    expect(await count(db, sql`SELECT count(DISTINCT submission_id) AS n FROM scoring_runs WHERE status = 'completed'`)).toBe(SUBMISSIONS);
    expect(await count(db, sql`SELECT count(*) AS n FROM scoring_runs WHERE status <> 'completed'`)).toBe(0);
    expect(await count(db, sql`SELECT count(*) AS n FROM item_results`)).toBe(SUBMISSIONS * ITEMS_PER_BUNDLE);
    expect(await count(db, sql`SELECT count(*) AS n FROM (SELECT run_id, capability, uuid, trial FROM item_results GROUP BY run_id, capability, uuid, trial HAVING count(*) > 1) d`)).toBe(0);
    expect(await count(db, sql`SELECT count(*) AS n FROM audit_log WHERE action = 'run:completed'`)).toBe(SUBMISSIONS);
    for (const n of issueNumbers) expect(gh.comments(n).filter((m) => m.body.startsWith(STATUS_MARKER)), `issue ${n}`).toHaveLength(1);

    // Fenced: a lease token is written to a job's row by one machine only (the one whose claim
    // made it; the frozen machine, thawed after its jobs were taken over, must not touch them),
    // and every transaction that writes a run's scores writes that run's job row too (the fence).
    expect(await rows(db, sql`SELECT token, string_agg(DISTINCT app, ', ') AS machines FROM write_log WHERE tbl = 'jobs' AND token IS NOT NULL GROUP BY token HAVING count(DISTINCT app) > 1`), "lease tokens written by more than one machine").toEqual([]);
    expect(await rows(db, sql`SELECT DISTINCT w.app, w.tbl, w.run_id FROM write_log w WHERE w.tbl IN ('item_results', 'capability_scores', 'domain_scores') AND NOT EXISTS (SELECT 1 FROM write_log j WHERE j.tbl = 'jobs' AND j.txid = w.txid AND j.run_id = w.run_id)`), "run rows written without their job's row").toEqual([]);
    // …and the log saw every machine write (the checks above can fail).
    expect((await rows<{ app: string }>(db, sql`SELECT DISTINCT app FROM write_log WHERE tbl = 'item_results' ORDER BY app`)).map((r) => r.app)).toEqual(["machine-a", "machine-b", "machine-c"]);

    // The same numbers as one worker on SQLite, bundle by bundle.
    const hosted = new Map((await rows<{ sha: string; manifest: string }>(db, sql`SELECT s.bundle_sha256 AS sha, r.manifest AS manifest FROM submissions s JOIN scoring_runs r ON r.id = s.current_run_id`)).map((r) => [r.sha, JSON.parse(r.manifest).verdicts]));
    const refDb = openDatabase(path.join(tmp, "reference.db"));
    cleanup.push(() => closeDatabase(refDb));
    const { versionId } = await registerBenchmark(refDb, benchDir, { isDefault: true, now: new Date() });
    for (let i = 0; i < SUBMISSIONS; i++) {
      const file = path.join(tmp, "reference", `b${i}.zip`);
      mkdirSync(path.dirname(file), { recursive: true });
      writeFileSync(file, zips[i]!);
      await ingestBundle(refDb, { versionId, bundlePath: file, source: "local", sourceRef: file, actor: "test" }, () => new Date());
    }
    const deps = createScoringDeps(refDb, { env: { AGENTBOARD_JUDGE_BASE_URL: judge.baseUrl, AGENTBOARD_JUDGE_API_KEY: "k" } });
    await runWorker(refDb, deps, { untilIdle: true });
    await deps.close();
    const reference = await rows<{ sha: string; manifest: string }>(refDb, sql`SELECT s.bundle_sha256 AS sha, r.manifest AS manifest FROM submissions s JOIN scoring_runs r ON r.id = s.current_run_id`);
    expect(reference).toHaveLength(SUBMISSIONS);
    for (const r of reference) expect(hosted.get(r.sha), r.sha).toEqual(JSON.parse(r.manifest).verdicts);
  }, 900_000);
});
