/**
 * Coming from VAKRA (issue 27, point 11's third path), from a fresh database, as the README's
 * commands run it: `./agentboard benchmark init --from-vakra` on a folder of VAKRA's release
 * layout (test/fixtures/vakra-layouts/data/test), `validate` of a bundle as VAKRA's runner
 * leaves it against what init wrote, `submit` and `worker --until-idle` into the database the
 * server serves, approval on /admin in chromium; then the benchmark's board ranks the entry with
 * the scores init's policy rule gives (api_chaining 50.0, multiturn 66.7, overall 58.3: without
 * the rule multiturn would be 100.0), and the entry's page opens from it.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ENGINES } from "../helpers/engines";
import { launchBrowser, openPage, repo, screenshot, startApp, type App } from "./harness";

const ADMIN = "maintainer-token-for-vakra";
const F = path.join(repo, "test/fixtures/vakra-layouts");
const work = mkdtempSync(path.join(tmpdir(), "agentboard-vakra-path-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** `./agentboard <args>` from the checkout, as a maintainer types it. */
function agentboard(...args: string[]) {
  const r = spawnSync(path.join(repo, "agentboard"), args, { cwd: repo, encoding: "utf8", env: { ...process.env, FORCE_COLOR: "0" } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe.each(ENGINES)("a VAKRA user's benchmark on %s", (engine) => {
  let app: App;
  let browser: Browser;
  const agent = `vakra-agent-${engine}`;
  beforeAll(async () => {
    // Nothing seeded: a fresh, migrated database with no benchmark; the CLI registers the one init writes.
    app = await startApp(async () => {}, { AGENTBOARD_ADMIN_TOKEN: ADMIN }, engine);
    browser = await launchBrowser();
  }, 240_000);
  afterAll(async () => {
    await browser?.close();
    await app?.stop();
  });

  it("init --from-vakra, validate, submit and a worker score it; approved on /admin, the board ranks it and its page opens", async () => {
    const benchmark = path.join(work, `benchmark-${engine}`);
    const bundle = path.join(F, "bundles/good");
    const init = agentboard("benchmark", "init", "--from-vakra", path.join(F, "data/test"), "--out", benchmark);
    expect(init.code, init.stderr).toBe(0);
    const valid = agentboard("validate", bundle, "--benchmark", benchmark);
    expect(valid.code, valid.stderr).toBe(0);
    expect(valid.stdout).toContain("## Validation: ✅ valid");

    const submit = agentboard("submit", bundle, "--benchmark", benchmark, "--agent", agent, "--db", app.dbFile);
    expect(submit.code, submit.stderr).toBe(0);
    const { submissionId: id } = JSON.parse(submit.stdout) as { submissionId: number };
    const worker = agentboard("worker", "--until-idle", "--db", app.dbFile);
    expect(worker.code, worker.stderr).toBe(0);
    expect(worker.stdout + worker.stderr).toMatch(/job \d+: completed/);

    const admin = await openPage(browser, `${app.url}/admin`);
    await admin.getByLabel("Maintainer token").fill(ADMIN);
    await admin.getByRole("button", { name: "Sign in" }).click();
    await admin.getByRole("button", { name: `Approve ${agent}` }).click();
    await admin.waitForURL(/done=approve/);

    // init's defaults name the benchmark (slug vakra, version 1) until the maintainer edits them.
    const board = await openPage(browser, `${app.url}/?benchmark=vakra`);
    const table = board.locator("table", { has: board.locator("caption", { hasText: "Leaderboard entries" }) });
    const row = table.getByRole("row").filter({ has: board.getByRole("link", { name: agent, exact: true }) });
    // Each score under its header (VAKRA's capability labels, as init wrote them).
    const headers = (await table.locator("thead th").allTextContents()).map((t) => t.trim());
    const under = (label: string) => {
      const at = headers.findIndex((h) => h.startsWith(label));
      if (at < 0) throw new Error(`no column "${label}" on the board: ${headers.join(" | ")}`);
      return row.locator("th, td").nth(at);
    };
    expect(await under("Rank").textContent()).toMatch(/^\s*1\s*$/);
    expect(await under("Overall").textContent()).toMatch(/^58\.3/);
    expect(await under("API chaining").textContent()).toMatch(/^50\.0/);
    expect(await under("Multi-hop multi-source + policy").textContent()).toMatch(/^66\.7/);
    await screenshot(board, `vakra-path-board-${engine}`);

    await row.getByRole("link", { name: agent, exact: true }).click();
    await board.waitForURL(new RegExp(`/submissions/${id}$`));
    await board.getByRole("heading", { name: agent }).first().waitFor();
    const entry = (await board.textContent("main")) ?? "";
    expect(entry).toMatch(/Rank 1 of 1.*Overall score\s*58\.3/s);
    // Where it lost points: the dialogue init's policy rule blocks, and the wrong answer.
    expect(await board.locator("#items tbody").textContent()).toMatch(/c1-barrel-02.*Lost at correctness.*c4-policy-01.*Lost at policy/s);
    await screenshot(board, `vakra-path-entry-${engine}`);
  }, 240_000);
});
