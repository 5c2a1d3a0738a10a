/**
 * `./agentboard ingest` on a database with no benchmark (GitHub submissions go to the default
 * one) refuses before it speaks to GitHub, and says what registers one, in the launcher's terms.
 * A board's first benchmark is its default (a VAKRA import registered by `submit` takes GitHub
 * submissions); the demo's loader or `isDefault` moves it.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { eq } from "drizzle-orm";
import { afterAll, describe, expect, it } from "vitest";
import { closeDatabase, connectDatabase } from "@/db/client";
import { benchmarks } from "@/db/schema";
import { defaultVersionId, registerBenchmark } from "@/lib/submissions/benchmarks";
import { ENGINES, freshDatabase } from "../helpers/engines";
import { GOOD_BUNDLE, MINI_BENCHMARK, tickingClock } from "../helpers/mini-fixtures";
import { runCli } from "../helpers/run-cli";

const work = mkdtempSync(path.join(tmpdir(), "agentboard-ingest-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

it("exits 2 naming what registers a benchmark, and the launcher, never `npm run cli`", async () => {
  // Port 9 (discard) on loopback: GitHub is configured, and never reached.
  const r = await runCli(["ingest", "--repo", "bench-org/bench", "--db", path.join(work, "empty.db")], { GITHUB_TOKEN: "t", GITHUB_API_URL: "http://127.0.0.1:9" });
  expect(r.code, r.stderr).toBe(2);
  expect(r.stderr).toContain("error: no benchmark in the database for new submissions: `./agentboard submit <bundle> --benchmark <folder>` registers one (a board's first benchmark is its default), or `npm run start:demo` loads the demo");
  expect(r.stderr).not.toMatch(/npm run cli|npx agentboard/);
});

const now = tickingClock();
const DEMO = path.resolve(import.meta.dirname, "../../benchmarks/demo");

describe.each(ENGINES)("the default benchmark (%s)", (engine) => {
  it("is a board's first benchmark, until another is registered as the default", async () => {
    const t = await freshDatabase(engine);
    try {
      const defaultSlug = async () => (await t.db.select({ slug: benchmarks.slug }).from(benchmarks).where(eq(benchmarks.isDefault, true))).map((b) => b.slug);
      expect(await defaultVersionId(t.db)).toBeUndefined();
      const mini = await registerBenchmark(t.db, MINI_BENCHMARK, { now: now() });
      expect(await defaultVersionId(t.db)).toBe(mini.versionId);
      const [first] = await defaultSlug();
      await registerBenchmark(t.db, DEMO, { now: now() });
      expect(await defaultSlug()).toEqual([first]);
      const demo = await registerBenchmark(t.db, DEMO, { isDefault: true, now: now() });
      expect(await defaultVersionId(t.db)).toBe(demo.versionId);
      expect((await defaultSlug()).length).toBe(1);
    } finally {
      await t.close();
    }
  });
});

it("moves the default to the benchmark `submit --default` names", async () => {
  const db = path.join(work, "two.db");
  const other = path.join(work, "other-benchmark");
  cpSync(MINI_BENCHMARK, other, { recursive: true });
  const yaml = path.join(other, "benchmark.yaml");
  writeFileSync(yaml, readFileSync(yaml, "utf8").replace(/^slug: .*$/m, "slug: other-mini"));
  const defaults = async () => {
    const t = await connectDatabase(db);
    try {
      return (await t.select({ slug: benchmarks.slug }).from(benchmarks).where(eq(benchmarks.isDefault, true))).map((b) => b.slug);
    } finally {
      await closeDatabase(t);
    }
  };
  expect((await runCli(["submit", GOOD_BUNDLE, "--benchmark", MINI_BENCHMARK, "--db", db])).code).toBe(0);
  const [first] = await defaults();
  expect((await runCli(["submit", GOOD_BUNDLE, "--benchmark", other, "--db", db, "--agent", "second"])).code).toBe(0);
  expect(await defaults()).toEqual([first]);
  const moved = await runCli(["submit", GOOD_BUNDLE, "--benchmark", other, "--db", db, "--agent", "third", "--default"]);
  expect(moved.code, moved.stderr).toBe(0);
  expect(await defaults()).toEqual(["other-mini"]);
});
