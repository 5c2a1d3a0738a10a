/**
 * Hostile submitters against GitHub intake (issue 12, points 2, 7 and 9): one poisoned issue
 * does not stop the pass or get downloaded again, a huge or hostile value never breaks or
 * injects into the bot's comment, deliveries for other repositories are not acted on, and the
 * web route only stores deliveries (the worker's pass does the download). Against the local
 * fake GitHub and file servers, on each engine (a SQLite file, a Postgres database).
 */
import { createHash, randomBytes } from "node:crypto";
import path from "node:path";
import { eq } from "drizzle-orm";
import { beforeEach, describe, expect, it } from "vitest";
import type { Db } from "@/db/client";
import { githubDeliveries, githubIssues, submissions } from "@/db/schema";
import { GITHUB_COMMENT_LIMIT } from "@/lib/github/comment-text";
import type { RepoRef } from "@/lib/github/github-client";
import { SUBMISSION_LABEL, type IssueFormValues } from "@/lib/github/issue-form";
import { signWebhookBody } from "@/lib/github/webhook-signature";
import { pollRepository, processPendingDeliveries, recordDelivery } from "@/lib/submissions/github-intake";
import { ingestBundle } from "@/lib/submissions/ingest";
import { startGitHubPass } from "@/scripts/commands/github";
import type { FakeFileServer } from "../helpers/fake-file-server";
import { FAKE_COMMENT_LIMIT, type FakeGitHubServer } from "../helpers/fake-github-server";
import { ENGINES } from "../helpers/engines";
import { GOOD_ZIP, issueForm, statusComment, useGitHubIntake } from "../helpers/github-intake-fixture";
import { GOOD_BUNDLE, tickingClock } from "../helpers/mini-fixtures";
import { zipFolder } from "../helpers/zip-writer";

const now = tickingClock(Date.UTC(2026, 10, 22));

const HOSTILE = "@octocat @github/security [click](https://evil.example/login) https://evil.example **bold** <img src=x> `tick` \u202Eevil";
const DEEP_METADATA = '{"a":'.repeat(6_000) + "1" + "}".repeat(6_000);
const sha256 = (b: Buffer) => createHash("sha256").update(b).digest("hex");

let gh: FakeGitHubServer;
let repo: RepoRef;
let files: FakeFileServer;

const form = (over: Partial<IssueFormValues> = {}): string => issueForm({ zipUrl: files.url(GOOD_ZIP), ...over });

const statusOf = (n: number) => statusComment(gh, n);
const downloads = (p: string) => files.requests.filter((r) => r.path === p).length;

/** Nothing in a comment that GitHub would turn into a mention, a foreign link or HTML. */
function expectInert(comment: string): void {
  expect(comment).not.toMatch(/@[A-Za-z]/);
  expect(comment).not.toMatch(/https?:\/\/(?!board\.example)/);
  expect(comment).not.toMatch(/<(?!!-- agentboard:)[a-z!/]/i);
  expect(comment).not.toMatch(/[\u202a-\u202e]/);
}

describe.each(ENGINES)("on %s", (engine) => {
  let db: Db;
  const fx = useGitHubIntake(engine, { now });
  beforeEach(() => {
    ({ db, gh, repo, files } = fx);
    files.serve("/other.zip", zipFolder(GOOD_BUNDLE, (n, t) => t.replace("Ocean Queen.", "Ocean Queen!").replace("mini-agent", "mini-agent 2")));
  });

  describe("one poisoned issue does not stop GitHub intake", () => {
    it("marks an issue whose processing throws, reads and comments the next one, and does not download the bundle again", async () => {
      const deep = zipFolder(GOOD_BUNDLE, (n, t) => (n.endsWith("metadata.json") ? DEEP_METADATA : t));
      files.serve("/deep.zip", deep);
      // Whatever validation makes of the deep bundle, processing it here throws as serialising its report once did.
      const ctx = await fx.createIntake({
        ingest: (d, input, clock) => (path.basename(input.bundlePath) === `${sha256(deep)}.zip` ? Promise.reject(new RangeError("Maximum call stack size exceeded")) : ingestBundle(d, input, clock)),
      });
      const poisoned = gh.addIssue({ body: form({ zipUrl: files.url("/deep.zip") }), labels: [SUBMISSION_LABEL] });
      const next = gh.addIssue({ body: form(), labels: [SUBMISSION_LABEL] });

      const first = await pollRepository(ctx, repo);
      expect(first).toMatchObject({ issues: 2, failed: 1 });
      const marked = statusOf(poisoned.number)!;
      expect(marked).toContain("could not process this bundle");
      expect(marked).toContain("Maximum call stack size exceeded");
      expect(gh.labels(poisoned.number)).toContain("agentboard: needs changes");
      // The next issue was read, ingested and commented in the same pass.
      expect(await db.select().from(submissions)).toHaveLength(1);
      expect(statusOf(next.number)).toContain("queued for scoring");

      // A second pass does not download the poisoned bundle again, nor comment again.
      const commentWrites = gh.requests.filter((r) => r.method !== "GET").length;
      const again = await pollRepository(ctx, repo);
      expect(again).toMatchObject({ changed: 0, failed: 0 });
      expect(downloads("/deep.zip")).toBe(1);
      expect(gh.requests.filter((r) => r.method !== "GET").length).toBe(commentWrites);

      // Until the issue changes: then it is read again.
      gh.editIssue(poisoned.number, { body: form({ zipUrl: files.url("/other.zip") }) });
      await pollRepository(ctx, repo);
      expect(await db.select().from(submissions)).toHaveLength(2);
      expect(statusOf(poisoned.number)).toContain("queued for scoring");
    });

    it("survives the real deep-metadata bundle: the issue gets a readable comment, the next one too", async () => {
      files.serve("/deep.zip", zipFolder(GOOD_BUNDLE, (n, t) => (n.endsWith("metadata.json") ? DEEP_METADATA : t)));
      const ctx = fx.intake;
      const poisoned = gh.addIssue({ body: form({ zipUrl: files.url("/deep.zip") }), labels: [SUBMISSION_LABEL] });
      const next = gh.addIssue({ body: form(), labels: [SUBMISSION_LABEL] });
      await pollRepository(ctx, repo);
      // Refused by validation (invalid) or caught here (needs changes): either way, said on the issue.
      expect(statusOf(poisoned.number)).toMatch(/did not pass validation|could not process this bundle/);
      expect(statusOf(next.number)).toContain("queued for scoring");
      await pollRepository(ctx, repo);
      expect(downloads("/deep.zip")).toBe(1);
    });

    it("goes on to the next issue when GitHub refuses one issue's comment", async () => {
      const ctx = fx.intake;
      const a = gh.addIssue({ body: form(), labels: [SUBMISSION_LABEL] });
      const b = gh.addIssue({ body: form({ zipUrl: files.url("/other.zip") }), labels: [SUBMISSION_LABEL] });
      gh.failNext("POST", new RegExp(`/issues/${a.number}/comments$`), 422);
      const pass = await pollRepository(ctx, repo);
      expect(pass.issues).toBe(2);
      expect(statusOf(b.number)).toContain("queued for scoring");
      // The refused one got the short status instead (the 422 is answered, not fatal).
      expect(statusOf(a.number)).toContain("could not be shown here");
    });
  });

  describe("hostile values in the bot's comments", () => {
    it("keeps the comment under 65,536 characters with a 70,000-character domain, and inert", async () => {
      // Incompressible, so the ZIP ratio check lets it through to the records.
      const records = Array.from({ length: 30 }, (_, i) => ({
        uuid: `h-${i}`,
        domain: `${HOSTILE} ${randomBytes(35_000).toString("hex")}`,
        status: HOSTILE,
        error: HOSTILE,
        duration_s: 1,
        output: [{ turn_id: 0, query: "q", answer: HOSTILE, sequence: { tool_call: [], tool_response: [] } }],
      }));
      files.serve("/huge.zip", zipFolder(GOOD_BUNDLE, (n, t) => (n.endsWith("capability_2_dashboard_apis/harbor.json") ? JSON.stringify(records) : t)));
      const ctx = fx.intake;
      // The form refuses bidirectional overrides itself; the rest of the hostile text goes in.
      const issue = gh.addIssue({ body: form({ zipUrl: files.url("/huge.zip"), description: HOSTILE.replace("\u202E", "") }), labels: [SUBMISSION_LABEL] });
      const pass = await pollRepository(ctx, repo);
      expect(pass.failed).toBe(0);
      expect((await db.select().from(submissions))[0]).toMatchObject({ state: "invalid" });
      const comment = statusOf(issue.number)!;
      expect(comment).toBeDefined(); // the fake GitHub refuses bodies over the limit, as GitHub does
      expect([...comment].length).toBeLessThanOrEqual(FAKE_COMMENT_LIMIT);
      expect(comment.length).toBeLessThan(GITHUB_COMMENT_LIMIT);
      expectInert(comment);

      // A report that quotes the values in full (as stored before string limits existed) still fits.
      const [sub] = await db.select().from(submissions);
      const report = sub!.validationReport as { errors: { message: string; file: string }[] };
      const quoting = records.map((r, i) => ({ severity: "error", code: "unknown_domain", file: `output/${r.domain}.json`, record: i, uuid: r.uuid, path: `$[${i}].domain`, message: `unknown domain "${r.domain}" (status ${r.status})` }));
      await db.update(submissions).set({ validationReport: { ...report, errors: quoting, summary: { dialogues: 0, errors: 30, warnings: 0 } } }).where(eq(submissions.id, sub!.id));
      await pollRepository(ctx, repo);
      const quoted = statusOf(issue.number)!;
      expect(quoted).not.toBe(comment); // edited in place with the new report
      expect(quoted).toContain("unknown_domain");
      expect(quoted.length).toBeLessThan(GITHUB_COMMENT_LIMIT);
      expectInert(quoted);
    });

    it("pastes no download-error text unescaped", async () => {
      files.serve("/x.zip", "nope", { status: 404 });
      const ctx = fx.intake;
      const hostileUrl = `${files.url("/x.zip")}?q=@octocat/**x**<img>`;
      const issue = gh.addIssue({ body: form({ zipUrl: hostileUrl }), labels: [SUBMISSION_LABEL] });
      await pollRepository(ctx, repo);
      const comment = statusOf(issue.number)!;
      expect(comment).toContain("could not be downloaded");
      expect(comment).toContain("http_status");
      expectInert(comment.replace(/http:\u200b?\/\/127\.0\.0\.1/g, "")); // the loopback test URL aside
      expect(comment).not.toMatch(/http:\/\//); // even that one is not a link
    });
  });

  describe("webhook deliveries", () => {
    const otherRepoPayload = (issueNumber: number, body: string) => ({
      action: "opened",
      repository: { full_name: "other-org/other" },
      issue: { number: issueNumber, title: "x", body, state: "open", labels: [{ name: SUBMISSION_LABEL }], user: { login: "someone" } },
    });

    it("acts on no delivery when GITHUB_REPOSITORY is unset, whatever repository it names", async () => {
      const issue = gh.addIssue({ body: form(), labels: [SUBMISSION_LABEL] });
      const ctx = await fx.createIntake({ env: { GITHUB_REPOSITORY: "" } });
      expect(ctx.settings.repo).toBeNull();
      await recordDelivery(db, { id: "other-1", event: "issues", payload: otherRepoPayload(issue.number, issue.body ?? "") }, now());
      await recordDelivery(db, { id: "ours-1", event: "issues", payload: { ...otherRepoPayload(issue.number, issue.body ?? ""), repository: { full_name: "bench-org/bench" } } }, now());
      expect(await processPendingDeliveries(ctx)).toBe(2);
      const rows = await db.select().from(githubDeliveries).orderBy(githubDeliveries.receivedAt);
      expect(rows.map((r) => r.status)).toEqual(["ignored", "ignored"]);
      expect(rows[0]!.error).toContain("GITHUB_REPOSITORY");
      expect(files.requests).toHaveLength(0);
      expect(gh.requests).toHaveLength(0);
      expect(await db.select().from(submissions)).toHaveLength(0);
    });

    it("ignores a delivery for another repository when one is configured", async () => {
      const issue = gh.addIssue({ body: form(), labels: [SUBMISSION_LABEL] });
      const ctx = fx.intake;
      await recordDelivery(db, { id: "other-2", event: "issues", payload: otherRepoPayload(issue.number, issue.body ?? "") }, now());
      await processPendingDeliveries(ctx);
      expect((await db.select().from(githubDeliveries))[0]).toMatchObject({ status: "ignored" });
      expect(files.requests).toHaveLength(0);
      expect(gh.requests).toHaveLength(0);
    });

    it("is stored and acknowledged by the web route; only the worker's pass downloads", async () => {
      // The route opens the database the environment names, as the web process does.
      const secret = "hostile-webhook-secret";
      const routeEnv = { GITHUB_WEBHOOK_SECRET: secret, GITHUB_WEBHOOK_MAX_BYTES: "65536", GITHUB_WEBHOOK_READ_TIMEOUT_MS: "300" };
      const saved = { ...process.env };
      Object.assign(process.env, fx.env, routeEnv, fx.t.env);
      try {
        const { POST } = await import("@/app/api/github/webhook/route");
        const issue = gh.addIssue({ body: form(), labels: [SUBMISSION_LABEL] });
        const payload = JSON.stringify({ ...otherRepoPayload(issue.number, issue.body ?? ""), repository: { full_name: `${gh.owner}/${gh.repo}` } });
        const post = (body: BodyInit | null, headers: Record<string, string>, init: RequestInit = {}) =>
          POST(new Request("http://127.0.0.1/api/github/webhook", { method: "POST", body, headers: { "content-type": "application/json", "x-github-event": "issues", ...headers }, ...init }));
        const signed = (body: string, delivery: string) => ({ "x-github-delivery": delivery, "x-hub-signature-256": signWebhookBody(secret, body) });

        const ok = await post(payload, signed(payload, "route-1"));
        expect(ok.status).toBe(202);
        expect(await ok.json()).toMatchObject({ status: "queued" });
        expect((await post(payload, signed(payload, "route-1"))).status).toBe(200); // a redelivery

        // Refused before or while reading, and nothing stored: unsigned, oversized, stalled, other repository.
        expect((await post(payload, { "x-github-delivery": "route-2" })).status).toBe(401);
        const big = JSON.stringify({ pad: "x".repeat(70_000) });
        expect((await post(big, signed(big, "route-3"))).status).toBe(413);
        const stalled = new ReadableStream<Uint8Array>({ start: (c) => c.enqueue(new TextEncoder().encode("{")), pull: () => new Promise(() => {}) });
        expect((await post(stalled, signed(payload, "route-4"), { duplex: "half" } as RequestInit)).status).toBe(408);
        const foreign = JSON.stringify(otherRepoPayload(issue.number, issue.body ?? ""));
        expect(await (await post(foreign, signed(foreign, "route-5"))).json()).toMatchObject({ status: "ignored" });

        {
          expect((await db.select().from(githubDeliveries)).map((d) => [d.deliveryId, d.status])).toEqual([["route-1", "pending"]]);
          // The web process downloaded nothing and said nothing on GitHub.
          expect(files.requests).toHaveLength(0);
          expect(gh.comments(issue.number)).toHaveLength(0);

          // The worker's GitHub pass (the `worker` command runs it beside scoring) does the work.
          const ctx = await fx.createIntake({ env: routeEnv });
          const pass = startGitHubPass(ctx, repo, { deliveryMs: 60_000, syncMs: 60_000, log: () => {} });
          await pass.deliveries();
          await pass.stop();
          expect(downloads(GOOD_ZIP)).toBe(1);
          expect((await db.select().from(githubDeliveries).where(eq(githubDeliveries.deliveryId, "route-1")))[0]).toMatchObject({ status: "done" });
          expect((await db.select().from(githubIssues))[0]).toMatchObject({ number: issue.number });
          expect(statusOf(issue.number)).toContain("queued for scoring");
        }
      } finally {
        for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
        Object.assign(process.env, saved);
      }
    });

    it("without GITHUB_REPOSITORY the route stores nothing", async () => {
      const secret = "hostile-webhook-secret";
      const saved = { ...process.env };
      Object.assign(process.env, fx.env, { GITHUB_WEBHOOK_SECRET: secret, GITHUB_REPOSITORY: "" }, { AGENTBOARD_DB: path.join(fx.dir, "unused.db") });
      try {
        const { POST } = await import("@/app/api/github/webhook/route");
        const body = JSON.stringify(otherRepoPayload(1, "x"));
        const res = await POST(new Request("http://127.0.0.1/api/github/webhook", { method: "POST", body, headers: { "x-github-event": "issues", "x-github-delivery": "r-9", "x-hub-signature-256": signWebhookBody(secret, body) } }));
        expect(res.status).toBe(202);
        expect(await res.json()).toMatchObject({ status: "ignored" });
      } finally {
        for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
        Object.assign(process.env, saved);
      }
    });
  });
});
