/**
 * Adjudication in a real browser (Debian chromium) against the production build, on each
 * engine: a panel run leaves a disputed grade; a maintainer finds it from /admin, reads the
 * private reference and both judges, decides it through the confirmation; the entry's score
 * moves at once (audited); a second submission that asks the same grade request takes the
 * decision instead of the judges, so its score moves the same way; and its item page says a
 * maintainer decided, without the reference. The panel's judges are OpenAI graders against a
 * fake OpenAI-compatible server in this process: `a` (primary) passes every answer, `b` fails
 * the one naming the wrong ship, which the reference does not name.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { and, eq } from "drizzle-orm";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditLog, gradeDisputes, itemResults, scoringRuns, submissions } from "@/db/schema";
import { registerBenchmark } from "@/lib/submissions/benchmarks";
import { ingestBundle } from "@/lib/submissions/ingest";
import { approve } from "@/lib/submissions/review";
import { createScoringDeps } from "@/lib/submissions/scoring-deps";
import { runWorker } from "@/lib/submissions/worker";
import { ENGINES } from "../helpers/engines";
import { startFakeOpenAiServer, systemPrompt, type FakeOpenAiServer } from "../helpers/fake-openai-server";
import { MINI_BENCHMARK, renamedGoodBundle } from "../helpers/mini-fixtures";
import { criticalViolations, launchBrowser, openPage, screenshot, seedDatabase, startApp, type App } from "./harness";

const ADMIN = "maintainer-token-for-adjudication";
const WRONG_SHIP = "Ocean Queen";
const REFERENCE = "Sea Dragon";
const scratch = mkdtempSync(path.join(tmpdir(), "agentboard-adjudication-"));
let server: FakeOpenAiServer;
let benchmarkDir = "";

beforeAll(async () => {
  server = await startFakeOpenAiServer((req) => {
    const model = (req.json as { model?: string }).model;
    if (/grounded/i.test(systemPrompt(req))) return { content: JSON.stringify({ verdict: "grounded", reason: `${model}: supported` }) };
    return { content: JSON.stringify({ verdict: model === "b" && req.rawBody.includes(WRONG_SHIP) ? "incorrect" : "correct", reason: `${model}: compared` }) };
  });
  benchmarkDir = path.join(scratch, "benchmark");
  cpSync(MINI_BENCHMARK, benchmarkDir, { recursive: true });
  const yaml = readFileSync(path.join(benchmarkDir, "benchmark.yaml"), "utf8");
  writeFileSync(
    path.join(benchmarkDir, "benchmark.yaml"),
    `${yaml}judge:\n  panel:\n    rule: primary\n    judges:\n      - { kind: openai, model: a, baseUrl: "${server.baseUrl}" }\n      - { kind: openai, model: b, baseUrl: "${server.baseUrl}" }\n`,
  );
});
afterAll(async () => {
  await server?.close();
  rmSync(scratch, { recursive: true, force: true });
});

describe.each(ENGINES)("adjudicating a disputed grade on %s", (engine) => {
  let app: App;
  let browser: Browser;
  let versionId = 0;
  let first = 0;

  beforeAll(async () => {
    app = await startApp(
      (dbFile) =>
        seedDatabase(dbFile, async (db, deps) => {
          versionId = (await registerBenchmark(db, benchmarkDir, { isDefault: true, now: new Date() })).versionId;
          const bundle = renamedGoodBundle(path.join(scratch, `first-${engine}`), "first-agent");
          first = (await ingestBundle(db, { versionId, bundlePath: bundle, source: "local", sourceRef: bundle, actor: "e2e" }, () => new Date())).submissionId;
          await runWorker(db, deps, { untilIdle: true });
          await approve(db, first, { actor: "e2e", at: new Date() });
        }),
      { AGENTBOARD_ADMIN_TOKEN: ADMIN },
      engine,
    );
    browser = await launchBrowser();
  }, 240_000);
  afterAll(async () => {
    await browser?.close();
    await app?.stop();
  });

  const overallOf = async (id: number) =>
    (await app.db.select({ o: scoringRuns.overallScore }).from(scoringRuns).innerJoin(submissions, eq(submissions.currentRunId, scoringRuns.id)).where(eq(submissions.id, id)))[0]!.o!;
  const itemOf = async (id: number, uuid: string) => {
    const [sub] = await app.db.select({ run: submissions.currentRunId }).from(submissions).where(eq(submissions.id, id));
    return (await app.db.select().from(itemResults).where(and(eq(itemResults.runId, sub!.run!), eq(itemResults.uuid, uuid))))[0]!;
  };

  it("decides the dispute in the browser; the entry moves, and a later submission asking the same grade takes the decision", async () => {
    const disputed = await app.db.select().from(gradeDisputes);
    expect(disputed).toHaveLength(1);
    expect((await itemOf(first, "ts-2")).score).toBe(1);
    const before = await overallOf(first);

    const page = await openPage(browser, `${app.url}/admin`);
    await page.getByLabel("Maintainer token").fill(ADMIN);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("link", { name: "Disputed grades (1 open)" }).click();
    await page.waitForURL(/\/admin\/disputes$/);
    const open = page.getByRole("list", { name: "Open disputes" }).getByRole("listitem").filter({ has: page.getByTestId("dispute-reference") });
    expect(await open.count()).toBe(1);
    const card = await open.first().textContent();
    expect(card).toContain(WRONG_SHIP);
    expect(card).toContain(REFERENCE);
    expect(card).toContain("openai:a");
    expect(card).toContain("openai:b");
    expect(await criticalViolations(page)).toEqual([]);
    await screenshot(page, `admin-disputes-${engine}`);

    await open.first().getByLabel("Fail").check();
    await page.getByRole("button", { name: "Decide the correctness grade asked by first-agent" }).click();
    await page.waitForURL(/confirm=/);
    expect(await page.getByRole("heading", { name: "Decide this correctness grade: fail?" }).count()).toBe(1);
    // Nothing changes before the confirmation.
    expect(await overallOf(first)).toBe(before);
    await page.getByLabel("Why (optional; kept in the audit log for maintainers)").fill("the reference names another ship");
    await page.getByRole("button", { name: "Decide: fail" }).click();
    await page.waitForURL(/done=decided/);
    expect(await page.getByText("Decided fail").count()).toBeGreaterThan(0);

    // The entry moved at once, and the decision is audited.
    const after = await overallOf(first);
    expect(after).toBeLessThan(before);
    expect((await itemOf(first, "ts-2")).score).toBe(0);
    const audit = await app.db.select().from(auditLog).where(eq(auditLog.action, "dispute:decided"));
    expect(audit).toHaveLength(1);
    expect(audit[0]!.details).toMatchObject({ outcome: "fail", reason: "the reference names another ship" });

    // A later submission asks the same request: the decision stands in for the judges (judge
    // `a`, the primary, would pass it), so it scores as the first entry now does.
    const bundle = renamedGoodBundle(path.join(scratch, `second-${engine}`), "second-agent");
    const second = (await ingestBundle(app.db, { versionId, bundlePath: bundle, source: "local", sourceRef: bundle, actor: "e2e" }, () => new Date())).submissionId;
    const deps = createScoringDeps(app.db);
    try {
      await runWorker(app.db, deps, { untilIdle: true });
    } finally {
      await deps.close();
    }
    await approve(app.db, second, { actor: "e2e", at: new Date() });
    const reused = await itemOf(second, "ts-2");
    expect(reused.score).toBe(0);
    // Taken from the decision while grading: no judge was asked for it, so nothing is disputed again.
    expect(reused.result.panel?.find((r) => r.kind === "correctness")).toMatchObject({ decided: { outcome: "fail", score: 0 }, disputed: false });
    expect(await overallOf(second)).toBe(after);
    expect(await app.db.select().from(gradeDisputes)).toHaveLength(1);

    // Its item page says a maintainer decided, and never quotes the reference.
    const item = await itemOf(second, "ts-2");
    const itemPage = await openPage(browser, `${app.url}/submissions/${second}/items/${encodeURIComponent(item.capability)}/ts-2`);
    const text = await itemPage.locator("main").textContent();
    expect(text).toContain("decided by a maintainer");
    expect(text).not.toContain(REFERENCE);
    await screenshot(itemPage, `item-decided-${engine}`);
  }, 180_000);
});
