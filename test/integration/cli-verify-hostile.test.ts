/**
 * `agentboard verify <entry URL>` against a hostile server, through the real CLI process: an
 * answer of 60 MB (30 million levels deep) is cut at the size cap, a deeply nested one is
 * refused by depth before it is parsed, both within a small heap; a server claiming 1,000
 * verdict pages is stopped at the page cap; a redirect to another origin is not followed;
 * answers of another entry's run are bad input (exit 2), never an internal error (70). The
 * honest pages of a run (two of them, one behind a same-origin redirect) still verify.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { VerdictExport } from "@/lib/judges/verdict-file";
import { startFakeEntryServer, type FakeEntryServer } from "../helpers/fake-entry-server";
import { GOOD_BUNDLE, MINI_BENCHMARK } from "../helpers/mini-fixtures";
import { runCli } from "../helpers/run-cli";

const work = mkdtempSync(path.join(tmpdir(), "agentboard-verify-hostile-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** The good bundle's run as a server would show it: its manifest, and its verdicts in pages of two items. */
let manifest: { bundle: { sha256: string } } & Record<string, unknown>;
let verdicts: VerdictExport;
beforeAll(async () => {
  const out = path.join(work, "results.json");
  const v = path.join(work, "verdicts.json");
  const r = await runCli(["score", GOOD_BUNDLE, "--benchmark", MINI_BENCHMARK, "--out", out, "--verdicts-out", v, "--quiet"]);
  expect(r.code, r.stderr).toBe(0);
  manifest = JSON.parse(readFileSync(out, "utf8")).manifest;
  verdicts = JSON.parse(readFileSync(v, "utf8"));
  expect(verdicts.items).toHaveLength(4);
});

/** Page `n` of `pages` (`size` items a page, `total` in all) holding `items`. */
const page = (n: number, pages: number, size: number, items = verdicts.items.slice((n - 1) * size, n * size), total = verdicts.items.length): VerdictExport => ({
  ...verdicts,
  private: false,
  page: { number: n, pages, size, items: total },
  items,
});

/** An entry `id` served honestly: its summary and its verdicts in two pages. */
function serveEntry(s: FakeEntryServer, id: number) {
  s.json(`/api/submissions/${id}`, { id, state: "published", manifest });
  s.json(`/api/submissions/${id}/verdicts?page=1`, page(1, 2, 2));
  s.json(`/api/submissions/${id}/verdicts?page=2`, page(2, 2, 2));
}

/** verify with a heap of 160 MB: reading a hostile answer must not need more. */
const verify = (url: string, env: Record<string, string> = {}) =>
  runCli(["verify", url, "--bundle", GOOD_BUNDLE, "--benchmark", MINI_BENCHMARK, "--quiet"], { NODE_OPTIONS: "--max-old-space-size=160", ...env });

let server: FakeEntryServer;
beforeEach(async () => {
  server = await startFakeEntryServer();
});
afterEach(() => server.close());

describe("agentboard verify <entry URL> against a hostile server", () => {
  it("verifies an honest entry whose verdicts come in two pages, one behind a same-origin redirect", async () => {
    serveEntry(server, 1);
    server.redirect("/api/submissions/1/verdicts?page=2", "/mirror/page-2");
    server.json("/mirror/page-2", page(2, 2, 2));
    const r = await verify(`${server.origin}/submissions/1`);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^IDENTICAL: every number of .*\/submissions\/1 was re-derived \(4 items\)/);
    expect(server.requests).toEqual(["/api/submissions/1", "/api/submissions/1/verdicts?page=1", "/api/submissions/1/verdicts?page=2", "/mirror/page-2"]);
  });

  it("cuts a 60 MB answer (30 million levels deep) at the size cap, with a size error, and stops reading", async () => {
    server.stream("/api/submissions/2", [
      { byte: "[", count: 30_000_000 },
      { byte: "]", count: 30_000_000 },
    ]);
    const r = await verify(`${server.origin}/submissions/2`);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(`error: ${server.origin}/api/submissions/2: the answer is larger than 32 MiB (AGENTBOARD_VERIFY_MAX_RESPONSE_MB=32); stopped reading it`);
    // The client went away after the cap: the server got rid of little more than 32 MiB (socket buffers).
    expect(server.bytesSent("/api/submissions/2")).toBeLessThan(45_000_000);
  });

  it("refuses a deeply nested answer under the size cap by its depth, before parsing it", async () => {
    server.stream("/api/submissions/3", [
      { byte: "[", count: 15_000_000 },
      { byte: "]", count: 15_000_000 },
    ]);
    const r = await verify(`${server.origin}/submissions/3`);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(new RegExp(`^error: ${server.origin}/api/submissions/3: value nested more than 64 levels deep; expected at most 64 \\(at \\$\\[0\\]\\[0\\]\\S*; AGENTBOARD_VERIFY_MAX_JSON_DEPTH=64\\)$`, "m"));
  });

  it("the caps follow the environment, and a bad value is refused with the variable's name", async () => {
    server.json("/api/submissions/4", { id: 4, manifest, pad: "x".repeat(2 * 1024 * 1024) });
    const small = await verify(`${server.origin}/submissions/4`, { AGENTBOARD_VERIFY_MAX_RESPONSE_MB: "1" });
    expect(small.code).toBe(2);
    expect(small.stderr).toContain("the answer is larger than 1 MiB (AGENTBOARD_VERIFY_MAX_RESPONSE_MB=1)");
    const bad = await verify(`${server.origin}/submissions/4`, { AGENTBOARD_VERIFY_MAX_PAGES: "0" });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('AGENTBOARD_VERIFY_MAX_PAGES must be a whole number from 1 to 100000, not "0"');
    expect(server.requests).toEqual(["/api/submissions/4"]);
  });

  it("stops at the page cap when the server claims 1,000 pages of verdicts", async () => {
    server.json("/api/submissions/5", { id: 5, manifest });
    for (let n = 1; n <= 1000; n++) server.json(`/api/submissions/5/verdicts?page=${n}`, page(n, 1000, 2_000, verdicts.items, 2_000_000));
    const r = await verify(`${server.origin}/submissions/5`);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(`error: ${server.origin}/api/submissions/5/verdicts?page=1: the run's verdicts fill 1000 pages; at most 50 are read (AGENTBOARD_VERIFY_MAX_PAGES=50)`);
    expect(server.requests.filter((p) => p.includes("/verdicts"))).toEqual(["/api/submissions/5/verdicts?page=1"]);
    // A lower cap stops an honest two-page run too.
    serveEntry(server, 6);
    const capped = await verify(`${server.origin}/submissions/6`, { AGENTBOARD_VERIFY_MAX_PAGES: "1" });
    expect(capped.code).toBe(2);
    expect(capped.stderr).toContain("the run's verdicts fill 2 pages; at most 1 are read (AGENTBOARD_VERIFY_MAX_PAGES=1)");
  });

  it("refuses a redirect to another port (another origin) and never asks there", async () => {
    const other = await startFakeEntryServer();
    try {
      serveEntry(other, 7);
      server.redirect("/api/submissions/7", `${other.origin}/api/submissions/7`);
      const r = await verify(`${server.origin}/submissions/7`);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain(`error: ${server.origin}/api/submissions/7 redirects to ${other.origin}/api/submissions/7, another origin than ${server.origin} (scheme, host and port must stay the same): not followed`);
      expect(other.requests).toEqual([]);
    } finally {
      await other.close();
    }
  });

  it("exits 2 when the verdicts are another entry's run (a later page or the first), naming both bundles", async () => {
    const another = "f".repeat(64);
    server.json("/api/submissions/8", { id: 8, manifest });
    server.json("/api/submissions/8/verdicts?page=1", page(1, 2, 2));
    server.json("/api/submissions/8/verdicts?page=2", { ...page(2, 2, 2), bundle: { sha256: another } });
    const later = await verify(`${server.origin}/submissions/8`);
    expect(later.code, later.stderr).toBe(2);
    expect(later.stderr).toContain(`error: ${server.origin}/api/submissions/8/verdicts?page=2: these verdicts are of a run of another entry (bundle sha256 ${another.slice(0, 12)}), not of entry 8's run (bundle sha256 ${manifest.bundle.sha256.slice(0, 12)})`);
    expect(later.stderr).not.toContain("internal error");

    server.json("/api/submissions/9", { id: 9, manifest });
    server.json("/api/submissions/9/verdicts?page=1", { ...page(1, 1, 4, verdicts.items), bundle: { sha256: another } });
    const first = await verify(`${server.origin}/submissions/9`);
    expect(first.code, first.stderr).toBe(2);
    expect(first.stderr).toContain("these verdicts are of a run of another entry");
  });

  it("prints a server's uuid with its terminal escapes replaced", async () => {
    const evil = { ...verdicts.items[0]!, uuid: "ts-9\u001b]0;pwned\u0007\u009b2J\u202e" };
    server.json("/api/submissions/12", { id: 12, manifest });
    server.json("/api/submissions/12/verdicts?page=1", page(1, 1, 5, [...verdicts.items, evil], 5));
    const r = await verify(`${server.origin}/submissions/12`);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toContain("tool_selection/ts-9\uFFFD]0;pwned\uFFFD\uFFFD2J\uFFFD: ");
    expect(r.stdout).not.toMatch(/[\u001b\u0007\u009b\u202e]/);
  });

  it("exits 2 when the server answers another entry than the URL names", async () => {
    serveEntry(server, 10);
    server.json("/api/submissions/11", { id: 10, manifest });
    const r = await verify(`${server.origin}/submissions/11`);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(`error: ${server.origin}/api/submissions/11 answered entry 10, not entry 11`);
  });
});
