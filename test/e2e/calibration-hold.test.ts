/**
 * Issue 29 parts 1-2 on the production build, over HTTP as a browser asks (the pages are
 * server-rendered; no script is needed to read them): an entry
 * graded by an LLM judge (the fake OpenAI-compatible server) on a benchmark with
 * `judge.minKappa` is approved but waits on /admin with the reason (its judge's calibration is
 * below the bar), and /about shows the judge's stored calibration in figures.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { submissions } from "@/db/schema";
import { buildCalibrationReport } from "@/lib/aggregate/calibration-report";
import { passFail } from "@/lib/judges/grader";
import { manifestJudge } from "@/lib/scoring/manifest";
import { registerBenchmark } from "@/lib/submissions/benchmarks";
import { storeCalibration } from "@/lib/submissions/calibrations";
import { ingestBundle } from "@/lib/submissions/ingest";
import { approve } from "@/lib/submissions/review";
import { runWorker } from "@/lib/submissions/worker";
import { ENGINES } from "../helpers/engines";
import { startFakeOpenAiServer, type FakeOpenAiServer } from "../helpers/fake-openai-server";
import { GOOD_BUNDLE, MINI_BENCHMARK } from "../helpers/mini-fixtures";
import { seedDatabase, startApp, type App } from "./harness";

const ADMIN = "maintainer-token-for-calibration";
const work = mkdtempSync(path.join(tmpdir(), "agentboard-calibration-e2e-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/**
 * Labels P P F F, judge P F F F: accuracy 3/4; pₑ = (2·1 + 2·3)/16 = 1/2, κ = (3/4 − 1/2)/(1/2) = 0.5, below the bar of 0.6.
 */
function halfReport(baseUrl: string) {
  const pairs: ["pass" | "fail", boolean][] = [
    ["pass", true],
    ["pass", false],
    ["fail", false],
    ["fail", false],
  ];
  return buildCalibrationReport(
    pairs.map(([label, pass], i) => ({ case: { id: `c-${i}`, stage: "correctness", capability: "tool_selection", question: "q", reference: "r", answer: "a", label, labelledBy: "me", file: "calibration/x.jsonl", line: i + 1 }, grade: passFail(pass, "fake") })),
    { benchmark: { slug: "mini", version: "1.0", contentHash: null }, judge: manifestJudge({ id: "openai:grader", kind: "openai", model: "grader", baseUrl, concurrency: 16 }), agentboard: { version: "test", commit: null }, createdAt: new Date(), files: ["calibration/x.jsonl"] },
  );
}

describe.each(ENGINES)("an entry held for its judge's calibration on %s", (engine) => {
  let app: App;
  let judge: FakeOpenAiServer;
  beforeAll(async () => {
    judge = await startFakeOpenAiServer();
    // The mini benchmark judged by the fake server's model, held to κ ≥ 0.6.
    const root = path.join(work, `mini-${engine}`);
    cpSync(MINI_BENCHMARK, root, { recursive: true });
    writeFileSync(path.join(root, "benchmark.yaml"), `${readFileSync(path.join(root, "benchmark.yaml"), "utf8")}judge:\n  kind: openai\n  model: grader\n  baseUrl: ${judge.baseUrl}\n  minKappa: 0.6\n`);
    const seed = (dbFile: string) =>
      seedDatabase(dbFile, async (db, deps) => {
        const { versionId } = await registerBenchmark(db, root, { isDefault: true, now: new Date() });
        const { submissionId } = await ingestBundle(db, { versionId, bundlePath: GOOD_BUNDLE, source: "local", sourceRef: GOOD_BUNDLE, actor: "e2e" }, () => new Date());
        await runWorker(db, deps, { untilIdle: true });
        await storeCalibration(db, halfReport(judge.baseUrl), { actor: "e2e", at: new Date() });
        await approve(db, submissionId, { actor: "e2e", at: new Date() });
      });
    app = await startApp(seed, { AGENTBOARD_ADMIN_TOKEN: ADMIN }, engine);
  }, 240_000);
  afterAll(async () => {
    await app?.stop();
    await judge?.close();
  });

  it("waits on /admin with the reason, and /about shows the judge's calibration", async () => {
    const [entry] = await app.db.select({ id: submissions.id, state: submissions.state }).from(submissions).where(eq(submissions.agentName, "mini-agent"));
    expect(entry!.state).toBe("approved");

    // Signed in as the admin page's form signs in, then the review list with that session.
    const login = await fetch(`${app.url}/admin/login`, { method: "POST", body: new URLSearchParams({ token: ADMIN }), headers: { origin: app.url }, redirect: "manual" });
    const session = /^agentboard_admin=([^;]+)/.exec(login.headers.get("set-cookie") ?? "")?.[1];
    expect(session).toBeTruthy();
    const admin = await (await fetch(`${app.url}/admin`, { headers: { cookie: `agentboard_admin=${session}` } })).text();
    expect(textOf(admin, `data-testid="held-${entry!.id}"`)).toBe("Not published yet: the openai:grader judge's calibration shows κ 0.50 on 4 labelled cases, below judge.minKappa 0.60");
    // Signed out, the review list (and the reason) is not shown.
    expect(await (await fetch(`${app.url}/admin`)).text()).not.toContain(`held-${entry!.id}`);

    const about = await (await fetch(`${app.url}/about`)).text();
    expect(textOf(about, 'data-testid="calibrations"')).toMatch(/^openai:grader — agrees with 4 labelled cases 75% \[\d+, \d+\], κ 0\.50 \[-?\d\.\d\d, \d\.\d\d\]$/);
    expect(textOf(about, 'id="calibration"')).toContain("An entry graded by an LLM judge is published only when that judge, with the same prompts, shows κ ≥ 0.60 here.");
  });
});

/** The text of the element whose opening tag holds `attribute` (tags dropped, entities decoded), as a reader sees it. */
function textOf(html: string, attribute: string): string {
  const at = html.indexOf(attribute);
  expect(at, `no element with ${attribute}`).toBeGreaterThan(-1);
  const open = html.lastIndexOf("<", at);
  const tag = /^<([a-z0-9]+)/.exec(html.slice(open))![1]!;
  // The element's end: its closing tag at the same depth.
  let depth = 0;
  const re = new RegExp(`<(/?)${tag}[\\s>]`, "g");
  re.lastIndex = open;
  let end = html.length;
  for (let m = re.exec(html); m; m = re.exec(html)) {
    depth += m[1] ? -1 : 1;
    if (depth === 0) {
      end = m.index;
      break;
    }
  }
  const inner = html.slice(html.indexOf(">", at) + 1, end);
  return inner
    .replace(/<!--.*?-->/g, "")
    .replace(/<[^>]+>/g, "")
    .replace(/&#x27;|&#39;/g, "'")
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&amp;/g, "&")
    .trim();
}
