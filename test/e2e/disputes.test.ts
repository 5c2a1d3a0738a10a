/**
 * /admin/disputes over HTTP against the production build, as a browser without JavaScript uses
 * it: maintainers only, cross-site posts refused, a decision posted first leads to its
 * confirmation (nothing changes), the confirmed post decides, the entry's score moves, the
 * item page says "decided by a maintainer" without the reference, and a second decision of the
 * same grade is refused. The panel's judges are OpenAI graders against a fake
 * OpenAI-compatible server in this process (the seed scores here): judge `a` passes every
 * answer, judge `b` fails the one naming the wrong ship.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditLog, itemResults, scoringRuns, submissions } from "@/db/schema";
import { registerBenchmark } from "@/lib/submissions/benchmarks";
import { ingestBundle } from "@/lib/submissions/ingest";
import { approve } from "@/lib/submissions/review";
import { runWorker } from "@/lib/submissions/worker";
import { startFakeOpenAiServer, systemPrompt, type FakeOpenAiServer } from "../helpers/fake-openai-server";
import { MINI_BENCHMARK, renamedGoodBundle } from "../helpers/mini-fixtures";
import { seedDatabase, startApp, type App } from "./harness";

const ADMIN = "maintainer-token-for-disputes";
const scratch = mkdtempSync(path.join(tmpdir(), "agentboard-disputes-"));
let server: FakeOpenAiServer;
let app: App;
let entry = 0;

async function seed(dbFile: string) {
  await seedDatabase(dbFile, async (db, deps) => {
    const dir = path.join(scratch, "benchmark");
    cpSync(MINI_BENCHMARK, dir, { recursive: true });
    const yaml = readFileSync(path.join(dir, "benchmark.yaml"), "utf8");
    writeFileSync(path.join(dir, "benchmark.yaml"), `${yaml}judge:\n  panel:\n    rule: primary\n    judges:\n      - { kind: openai, model: a, baseUrl: "${server.baseUrl}" }\n      - { kind: openai, model: b, baseUrl: "${server.baseUrl}" }\n`);
    const { versionId } = await registerBenchmark(db, dir, { isDefault: true, now: new Date() });
    const bundle = renamedGoodBundle(path.join(scratch, "bundle"), "panel-agent");
    entry = (await ingestBundle(db, { versionId, bundlePath: bundle, source: "local", sourceRef: bundle, actor: "e2e" }, () => new Date())).submissionId;
    await runWorker(db, deps, { untilIdle: true });
    await approve(db, entry, { actor: "e2e", at: new Date() });
  });
}

beforeAll(async () => {
  server = await startFakeOpenAiServer((req) => {
    const model = (req.json as { model?: string }).model;
    if (/grounded/i.test(systemPrompt(req))) return { content: JSON.stringify({ verdict: "grounded", reason: `${model}: supported` }) };
    return { content: JSON.stringify({ verdict: model === "b" && req.rawBody.includes("Ocean Queen") ? "incorrect" : "correct", reason: `${model}: compared` }) };
  });
  app = await startApp(seed, { AGENTBOARD_ADMIN_TOKEN: ADMIN });
}, 180_000);
afterAll(async () => {
  await app?.stop();
  await server?.close();
  rmSync(scratch, { recursive: true, force: true });
});

const get = (p: string, cookie?: string) => fetch(app.url + p, { headers: cookie ? { cookie } : {}, redirect: "manual" });
const post = (p: string, form: Record<string, string>, cookie?: string, origin = app.url) =>
  fetch(app.url + p, { method: "POST", body: new URLSearchParams(form), headers: { origin, ...(cookie ? { cookie } : {}) }, redirect: "manual" });

async function signIn(): Promise<string> {
  const res = await post("/admin/login", { token: ADMIN });
  expect(res.status).toBe(303);
  return res.headers.get("set-cookie")!.split(";")[0]!;
}

const overall = async () => (await app.db.select({ o: scoringRuns.overallScore }).from(scoringRuns).innerJoin(submissions, eq(submissions.currentRunId, scoringRuns.id)).where(eq(submissions.id, entry)))[0]!.o!;

describe("/admin/disputes", () => {
  it("is for maintainers: the public sees no disputed grade and no reference", async () => {
    const page = await (await get("/admin/disputes")).text();
    expect(page).toContain("Deciding disputed grades is for maintainers");
    expect(page).not.toContain("Ocean Queen");
    expect(page).not.toContain("Sea Dragon");
  });

  it("shows the question, the private reference, each judge's grade, and decides after a confirmation", async () => {
    const cookie = await signIn();
    expect(await (await get("/admin", cookie)).text()).toContain("Disputed grades (1 open)");
    const page = await (await get("/admin/disputes", cookie)).text();
    const key = /name="key" value="([0-9a-f]{64})"/.exec(page)?.[1];
    expect(key).toBeTruthy();
    expect(page).toContain("Which ship is the largest?");
    expect(page).toContain("The largest is Ocean Queen.");
    expect(page).toContain("Sea Dragon"); // the reference: maintainers only
    expect(page).toContain("openai:a");
    expect(page).toContain("openai:b");
    const before = await overall();

    // Cross-site: refused, nothing changes. Signed out: back to sign-in.
    expect((await post("/admin/disputes/decide", { key: key!, outcome: "fail", confirm: "open" }, cookie, "https://evil.example")).status).toBe(403);
    expect((await post("/admin/disputes/decide", { key: key!, outcome: "fail", confirm: "open" })).headers.get("location")).toBe("/admin?error=session");
    // A graded score for a pass/fail grade is refused.
    expect((await post("/admin/disputes/decide", { key: key!, outcome: "scored", score: "0.5", confirm: "open" }, cookie)).headers.get("location")).toBe("/admin/disputes?error=decision");
    // Posted from the list: it leads to the confirmation, and nothing changes yet.
    const first = await post("/admin/disputes/decide", { key: key!, outcome: "fail" }, cookie);
    expect(first.status).toBe(303);
    expect(first.headers.get("location")).toBe(`/admin/disputes?confirm=${key}&outcome=fail#confirm`);
    expect(await overall()).toBe(before);
    const confirm = await (await get(`/admin/disputes?confirm=${key}&outcome=fail`, cookie)).text();
    expect(confirm).toContain("Decide this correctness grade: fail?");
    expect(confirm).toContain('name="confirm" value="open"');

    const done = await post("/admin/disputes/decide", { key: key!, outcome: "fail", confirm: "open", reason: "the reference names another ship" }, cookie);
    expect(done.headers.get("location")).toBe("/admin/disputes?done=decided&show=decided");
    expect(await overall()).toBeLessThan(before);
    const audit = await app.db.select().from(auditLog).where(eq(auditLog.action, "dispute:decided"));
    expect(audit).toHaveLength(1);

    // Decided once: a second decision is refused.
    expect((await post("/admin/disputes/decide", { key: key!, outcome: "pass", confirm: "open" }, cookie)).headers.get("location")).toBe("/admin/disputes?error=changed");
    expect(await (await get("/admin/disputes?show=decided", cookie)).text()).toContain("Decided fail");

    // The public item page says a maintainer decided, and quotes no reference.
    const [run] = await app.db.select({ id: submissions.currentRunId }).from(submissions).where(eq(submissions.id, entry));
    const [item] = await app.db.select().from(itemResults).where(and(eq(itemResults.runId, run!.id!), eq(itemResults.uuid, "ts-2")));
    expect(item!.score).toBe(0);
    const itemPage = await (await get(`/submissions/${entry}/items/${encodeURIComponent(item!.capability)}/ts-2`)).text();
    expect(itemPage).toContain("decided by a maintainer");
    expect(itemPage).not.toContain("Sea Dragon");
    const entryPage = await (await get(`/submissions/${entry}`)).text();
    expect(entryPage).toContain("Judge panel");
  });
});
