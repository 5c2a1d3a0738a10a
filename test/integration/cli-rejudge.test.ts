/**
 * `agentboard rejudge` through the real CLI process, on each engine, against a fake
 * OpenAI-compatible judge on 127.0.0.1. The board: the four agents of the rejudge fixture
 * (test/helpers/rejudge-fixture.ts), scored by the rules judge and published. Figures by hand:
 *
 *   agent    rules (published)   lenient judge         board rank rules → lenient
 *   alpha    100                 100                   1 → 1
 *   bravo    100                 60  (lookup 60, chain 60)   1 → 3
 *   charlie  70                  100                   4 → 1
 *   delta    100                 60  (lookup 20, chain 100)  1 → 3
 *
 * Ranks: the board's rule (1 + entries significantly better, paired bootstrap). Under rules,
 * alpha, bravo and delta score 1 on every item (tied) and charlie misses 6 of 20 items; under
 * the lenient judge alpha and charlie score 1 everywhere, bravo and delta miss 8 items each
 * (60 both: tied with each other). Kendall's τ-b by overall: (a,b) (a,d) (b,d) tied under rules
 * (n₁ = 3), (a,c) (b,d) tied under the lenient judge (n₂ = 2), (b,c) and (c,d) discordant:
 * −2/√(3·4) = −0.577; the ranks tie the same pairs and order the others alike: −0.577 too.
 */
import { eq, sql } from "drizzle-orm";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { columnIds } from "@/components/leaderboard/view-state";
import { closeDatabase, openDatabase, openPostgres, type Db } from "@/db/client";
import { auditLog, gradeCache, itemResults, jobs, scoringRuns, submissions } from "@/db/schema";
import { getLeaderboard } from "@/lib/queries/leaderboard";
import { leaderboardCsv } from "@/lib/queries/leaderboard-csv";
import { registerBenchmark } from "@/lib/submissions/benchmarks";
import { ingestBundle } from "@/lib/submissions/ingest";
import type { RejudgeReport } from "@/lib/submissions/rejudge";
import { approve } from "@/lib/submissions/review";
import { createScoringDeps } from "@/lib/submissions/scoring-deps";
import { runWorker } from "@/lib/submissions/worker";
import { ENGINES, freshDatabase, type TestDatabase } from "../helpers/engines";
import { startFakeOpenAiServer, systemPrompt, type FakeOpenAiServer, type RecordedRequest } from "../helpers/fake-openai-server";
import { tickingClock } from "../helpers/mini-fixtures";
import { lenientVerdict, writeRejudgeFixture } from "../helpers/rejudge-fixture";
import { runCli } from "../helpers/run-cli";

const work = mkdtempSync(path.join(tmpdir(), "agentboard-rejudge-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));
const now = tickingClock();

function userPrompt(req: RecordedRequest): string {
  const messages = (req.json as { messages?: { role?: string; content?: string }[] } | undefined)?.messages ?? [];
  return messages.filter((m) => m.role === "user").map((m) => m.content ?? "").join("\n");
}

type Parsed = RejudgeReport & { queued: ({ id: number; runId: number } | { id: number; skipped: string })[] | null };

describe.each(ENGINES)("agentboard rejudge (%s)", (engine) => {
  let t: TestDatabase;
  let fake: FakeOpenAiServer;
  let fixture: ReturnType<typeof writeRejudgeFixture>;
  const ids: Record<string, number> = {};
  const dir = path.join(work, engine);
  // The CLI's storage and cache in the test's folder; no judge endpoint from the environment.
  const env = () => ({ ...t.env, AGENTBOARD_DATABASE_URL: "", AGENTBOARD_STORAGE_URL: path.join(dir, "storage"), AGENTBOARD_CACHE_DIR: path.join(dir, "cache"), AGENTBOARD_JUDGE_BASE_URL: "", OPENAI_BASE_URL: "", AGENTBOARD_JUDGE: "", AGENTBOARD_JUDGE_MODEL: "" });
  const rejudge = (...args: string[]) => runCli(["rejudge", "--benchmark", fixture.benchmark, "--db", t.url, ...args], env());
  const lenient = ["--judge", "openai", "--judge-model", "lenient-judge", "--judge-base-url", ""] as string[];
  const withFake = (args: string[]) => args.map((a) => (a === "" ? fake.baseUrl : a));
  const byAgent = (r: Parsed, agent: string) => r.entries.find((e) => e.id === ids[agent])!;

  /** What the public board is, read through a new handle (no memo of this process's): the board, its CSV, and every row behind them. */
  async function boardSnapshot(): Promise<string> {
    const db: Db = engine === "sqlite" ? openDatabase(t.url) : await openPostgres(t.url, { poolSize: 1 });
    try {
      const board = (await getLeaderboard(db, { benchmark: "rejudge" }))!;
      const caps = board.benchmark.capabilities;
      const csv = leaderboardCsv(caps, board.entries, { columns: columnIds(caps.map((c) => c.id)) });
      const rows = {
        runs: await db.select({ id: scoringRuns.id, status: scoringRuns.status, overall: scoringRuns.overallScore, judge: scoringRuns.judgeId, resamples: scoringRuns.overallResamples }).from(scoringRuns).orderBy(scoringRuns.id),
        subs: await db.select({ id: submissions.id, state: submissions.state, run: submissions.currentRunId }).from(submissions).orderBy(submissions.id),
        audit: await db.select({ id: auditLog.id, action: auditLog.action }).from(auditLog).orderBy(auditLog.id),
        jobs: await db.select({ id: jobs.id, state: jobs.state }).from(jobs).orderBy(jobs.id),
        items: await db.select({ n: sql<number>`count(*)`, total: sql<number>`sum(${itemResults.score})` }).from(itemResults),
      };
      return JSON.stringify({ board, csv, rows });
    } finally {
      await closeDatabase(db);
    }
  }

  beforeAll(async () => {
    t = await freshDatabase(engine);
    fixture = writeRejudgeFixture(dir);
    const { versionId } = await registerBenchmark(t.db, fixture.benchmark, { isDefault: true, now: now() });
    for (const [agent, bundle] of Object.entries(fixture.bundles)) {
      const out = await ingestBundle(t.db, { versionId, bundlePath: bundle, source: "local", sourceRef: bundle, actor: "cli" }, now);
      expect(out.state).toBe("queued");
      ids[agent] = out.submissionId;
    }
    const deps = createScoringDeps(t.db, { now, env: {} });
    try {
      expect(await runWorker(t.db, deps, { untilIdle: true })).toBe(4);
    } finally {
      await deps.close();
    }
    for (const id of Object.values(ids)) await approve(t.db, id, { actor: "maintainer", at: now() });
    fake = await startFakeOpenAiServer((req) => ({ content: lenientVerdict(systemPrompt(req), userPrompt(req)) }));
  });
  afterAll(async () => {
    await fake?.close();
    await t?.close();
  });

  it("with the board's own judge, changes nothing: every overall and rank as published, τ 1, exit 0", async () => {
    const r = await rejudge("--judge", "rules", "--json", "--quiet");
    expect(r.code, r.stderr).toBe(0);
    const rep = JSON.parse(r.stdout) as Parsed;
    expect(rep.entries.map((e) => [e.agent, e.published.overall, e.rejudged?.overall, e.published.rank, e.rank])).toEqual([
      ["alpha", 100, 100, 1, 1],
      ["bravo", 100, 100, 1, 1],
      ["delta", 100, 100, 1, 1],
      ["charlie", 70, 70, 4, 4],
    ]);
    expect(rep.tau).toEqual({ overall: 1, ranks: 1 });
    expect(rep.queued).toBeNull();
  });

  it("with a judge that grades differently: each entry's published → new overall, capabilities and ranks, τ as computed by hand, progress on stderr", async () => {
    const before = await boardSnapshot();
    const asked = fake.requestCount;
    const r = await rejudge(...withFake(lenient));
    expect(r.code, r.stderr).toBe(0);
    // Groundedness only (every item replays its expected response): 20 right answers, 8 hedged
    // (bravo's 4 + 4), 6 wrong (charlie's), 4 more hedged (delta's lookup items 5-8): 38
    // distinct prompts; delta's others and the repeats across agents come from the cache.
    expect(fake.requestCount - asked).toBe(38);
    // Progress over the items of every entry (4 × 20), a line per 10% off a terminal, as `score` does.
    expect(r.stderr).toMatch(/^rejudging 40\/80 \(50%\) /m);
    expect(r.stderr).toMatch(/^rejudging 80\/80 \(100%\) \d+\.\ds\n$/m);
    const row = (agent: string) => r.stdout.split("\n").find((l) => l.startsWith(`#${ids[agent]} `))!;
    expect(row("alpha")).toMatch(/#\d+\s+alpha\s+rules\s+100\.0 → 100\.0\s+±0\.0\s+1 → 1\s+100\.0 → 100\.0\s+100\.0 → 100\.0$/);
    expect(row("bravo")).toMatch(/#\d+\s+bravo\s+rules\s+100\.0 → 60\.0\s+−40\.0\s+1 → 3\s+100\.0 → 60\.0\s+100\.0 → 60\.0$/);
    expect(row("charlie")).toMatch(/#\d+\s+charlie\s+rules\s+70\.0 → 100\.0\s+\+30\.0\s+4 → 1\s+70\.0 → 100\.0\s+70\.0 → 100\.0$/);
    expect(row("delta")).toMatch(/#\d+\s+delta\s+rules\s+100\.0 → 60\.0\s+−40\.0\s+1 → 3\s+100\.0 → 20\.0\s+100\.0 → 100\.0$/);
    expect(r.stdout).toContain("Kendall's τ-b between the two rankings, by overall score: -0.577\n");
    expect(r.stdout).toContain("Kendall's τ-b between the board's ranks (ties: entries not significantly different): -0.577\n");
    expect(r.stdout).toContain("Nothing changed on the board.");
    // The public board, its CSV and every row behind them: byte for byte as before.
    expect(await boardSnapshot()).toBe(before);
    // The grades are cached in the database (the only thing written): one row per prompt.
    expect((await t.db.select({ n: sql<number>`count(*)` }).from(gradeCache))[0]!.n).toBe(38);

    const json = JSON.parse((await rejudge(...withFake(lenient), "--json", "--quiet")).stdout) as Parsed;
    expect(json.tau.overall).toBeCloseTo(-2 / Math.sqrt(12), 12);
    expect(json.tau.ranks).toBeCloseTo(-2 / Math.sqrt(12), 12);
    expect(byAgent(json, "delta")).toMatchObject({ published: { overall: 100, rank: 1, capabilities: { lookup: 100, chain: 100 } }, rejudged: { overall: 60, unjudged: 0, capabilities: { lookup: 20, chain: 100 } }, rank: 3, publishedJudge: "rules", failure: null });
    expect(json.judge).toMatchObject({ id: "openai:lenient-judge", kind: "openai", model: "lenient-judge" });
  });

  it("a second rejudge with the same judge asks the judge nothing (the grade cache) and prints the same", async () => {
    const first = await rejudge(...withFake(lenient), "--quiet");
    const asked = fake.requestCount;
    const again = await rejudge(...withFake(lenient), "--quiet");
    expect(again.code, again.stderr).toBe(0);
    expect(fake.requestCount).toBe(asked);
    expect(again.stdout).toBe(first.stdout);
  });

  it("reports an entry whose bundle is gone and a judge that fails, per entry, and goes on with the others (exit 3)", async () => {
    rmSync(fixture.bundles.charlie!, { recursive: true, force: true });
    // Another model (nothing cached for it), which refuses every hedged answer: bravo's and delta's.
    fake.setResponder((req) => (/Roughly/.test(userPrompt(req)) ? { status: 403 } : { content: lenientVerdict(systemPrompt(req), userPrompt(req)) }));
    try {
      const before = await boardSnapshot();
      const r = await rejudge("--judge", "openai", "--judge-model", "refusing-judge", "--judge-base-url", fake.baseUrl, "--quiet");
      expect(r.code, r.stderr).toBe(3);
      expect(r.stdout).toMatch(new RegExp(`^#${ids.charlie}: the bundle no longer validates \\(\\d+ error\\(s\\)\\); it keeps its published numbers in the new ranking$`, "m"));
      expect(r.stdout).toMatch(new RegExp(`^#${ids.charlie}\\s+charlie\\s+rules\\s+70\\.0 → not rejudged\\s+4 → \\d$`, "m"));
      for (const agent of ["bravo", "delta"]) expect(r.stdout).toMatch(new RegExp(`^#${ids[agent]}: incomplete: 8 item\\(s\\) could not be judged \\(scored 0 above\\)`, "m"));
      // alpha, judged in full: 100 as before.
      expect(r.stdout).toMatch(new RegExp(`^#${ids.alpha}\\s+alpha\\s+rules\\s+100\\.0 → 100\\.0`, "m"));
      const json = JSON.parse((await rejudge("--judge", "openai", "--judge-model", "refusing-judge", "--judge-base-url", fake.baseUrl, "--quiet", "--json")).stdout) as Parsed;
      expect(byAgent(json, "charlie")).toMatchObject({ rejudged: null, failure: expect.stringMatching(/^the bundle no longer validates/) });
      expect(byAgent(json, "bravo").rejudged).toMatchObject({ unjudged: 8, overall: 60 });
      expect(byAgent(json, "alpha").rejudged).toMatchObject({ unjudged: 0, overall: 100 });
      expect(await boardSnapshot()).toBe(before);
    } finally {
      fake.setResponder((req) => ({ content: lenientVerdict(systemPrompt(req), userPrompt(req)) }));
    }
  });

  it("--apply queues the rescoring of the entries rejudged in full; the worker scores them from the cache; they wait for approval", async () => {
    // charlie's bundle is gone (the test before): it is not queued and stays on the board.
    const r = await rejudge(...withFake(lenient), "--apply", "--json", "--quiet");
    expect(r.code, r.stderr).toBe(3);
    const rep = JSON.parse(r.stdout) as Parsed;
    const queued = new Map(rep.queued!.map((q) => [q.id, q]));
    for (const agent of ["alpha", "bravo", "delta"]) expect(queued.get(ids[agent]!)).toEqual({ id: ids[agent], runId: expect.any(Number) });
    expect(queued.get(ids.charlie!)).toEqual({ id: ids.charlie, skipped: expect.stringMatching(/^the bundle no longer validates/) });
    const states = async () => Object.fromEntries(await Promise.all(Object.entries(ids).map(async ([a, id]) => [a, (await t.db.select({ s: submissions.state }).from(submissions).where(eq(submissions.id, id)))[0]!.s])));
    expect(await states()).toEqual({ alpha: "queued", bravo: "queued", delta: "queued", charlie: "published" });
    const run = (await t.db.select({ kind: scoringRuns.judgeKind, model: scoringRuns.judgeModel, replay: scoringRuns.replayMode }).from(scoringRuns).where(eq(scoringRuns.id, (queued.get(ids.bravo!) as { runId: number }).runId)))[0];
    expect(run).toEqual({ kind: "openai", model: "lenient-judge", replay: "recorded" });

    // The worker asks its own endpoint, and every grade it needs was cached by the rejudge.
    const asked = fake.requestCount;
    const worker = await runCli(["worker", "--db", t.url, "--until-idle"], { ...env(), AGENTBOARD_JUDGE_BASE_URL: fake.baseUrl });
    expect(worker.code, worker.stderr).toBe(0);
    expect(fake.requestCount).toBe(asked);
    expect(await states()).toEqual({ alpha: "scored", bravo: "scored", delta: "scored", charlie: "published" });
    const overall = async (agent: string) => (await t.db.select({ o: scoringRuns.overallScore }).from(scoringRuns).innerJoin(submissions, eq(submissions.currentRunId, scoringRuns.id)).where(eq(submissions.id, ids[agent]!)))[0]!.o;
    expect([await overall("alpha"), await overall("bravo"), await overall("delta")]).toEqual([100, 60, 60]);
    // Until a maintainer approves, the board shows only the entry left alone.
    const db: Db = engine === "sqlite" ? openDatabase(t.url) : await openPostgres(t.url, { poolSize: 1 });
    try {
      expect((await getLeaderboard(db, { benchmark: "rejudge" }))!.entries.map((e) => [e.agent, e.overall.score])).toEqual([["charlie", 70]]);
    } finally {
      await closeDatabase(db);
    }
  });

  it("refuses usage errors with exit 2: no --judge, the verdicts judge, a benchmark not on the board", async () => {
    const none = await rejudge("--quiet");
    expect(none.code).toBe(2);
    expect(none.stderr).toContain("required option '--judge <kind>' not specified");
    const verdicts = await rejudge("--judge", "verdicts");
    expect(verdicts.code).toBe(2);
    expect(verdicts.stderr).toContain("rejudge grades with rules, literal or openai");
    const other = await runCli(["rejudge", "--benchmark", path.resolve("test/fixtures/mini-benchmark"), "--db", t.url, "--judge", "rules"], env());
    expect(other.code).toBe(2);
    expect(other.stderr).toContain("benchmark mini version 1.0 is not on this board");
  });
});
