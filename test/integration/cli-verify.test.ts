/**
 * `agentboard verify` through the real CLI process: identical on untouched entries (the mini
 * benchmark, and the demo's strong agent with MCP replay, each scored into a temporary
 * database by `submit` and `worker`), and different, with the kind named, when the bundle, the
 * benchmark, the Agentboard version or a judge verdict changes.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { VerdictExport } from "@/lib/judges/verdict-file";
import type { VerifyReport } from "@/lib/scoring/verify-report";
import { zipToFile } from "@/lib/storage/folder-zip";
import { openBundle } from "@/lib/validate/bundle-source";
import { DEMO_DIR } from "@/scripts/demo/build-demo";
import { startFakeOpenAiServer, type FakeOpenAiServer } from "../helpers/fake-openai-server";
import { GOOD_BUNDLE, MINI_BENCHMARK } from "../helpers/mini-fixtures";
import { runCli } from "../helpers/run-cli";

const work = mkdtempSync(path.join(tmpdir(), "agentboard-verify-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Submits a bundle into a new database and scores it with a worker; returns the database and the entry id. */
async function scoredEntry(name: string, bundle: string, benchmark: string): Promise<{ db: string; id: string }> {
  const db = path.join(work, `${name}.db`);
  const submitted = await runCli(["submit", bundle, "--benchmark", benchmark, "--db", db]);
  expect(submitted.code, submitted.stderr).toBe(0);
  const worker = await runCli(["worker", "--db", db, "--until-idle"]);
  expect(worker.code, worker.stderr).toBe(0);
  return { db, id: String((JSON.parse(submitted.stdout) as { submissionId: number }).submissionId) };
}

const verify = (target: string, ...args: string[]) => runCli(["verify", target, ...args, "--quiet"]);
const report = (stdout: string) => JSON.parse(stdout) as VerifyReport;

describe("agentboard verify on an entry in the local database", () => {
  let entry: { db: string; id: string };
  beforeAll(async () => {
    entry = await scoredEntry("mini", GOOD_BUNDLE, MINI_BENCHMARK);
  });

  it("reports identical on the untouched entry, per capability and run field", async () => {
    const r = await verify(entry.id, "--db", entry.db, "--bundle", GOOD_BUNDLE, "--benchmark", MINI_BENCHMARK);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^IDENTICAL: every number of entry \d+ \(local database\) was re-derived \(4 items\)/);
    for (const kind of ["bundle", "benchmark", "version", "judge", "replay"]) expect(r.stdout).toMatch(new RegExp(`^  ${kind}\\s+identical`, "m"));
    expect(r.stdout).toContain("identical  Tool selection (tool_selection): 50.0, 2 items");
    expect(r.stdout).toContain("identical  Multi-source + policy (multiturn): 66.7, 2 items");
    const json = await verify(entry.id, "--db", entry.db, "--bundle", GOOD_BUNDLE, "--benchmark", MINI_BENCHMARK, "--json");
    expect(report(json.stdout)).toMatchObject({ identical: true, kinds: [], run: [], counts: { items: 4, identical: 4, different: 0 } });
  });

  it("names the bundle and the item when one answer changes", async () => {
    const bundle = path.join(work, "edited-bundle");
    cpSync(GOOD_BUNDLE, bundle, { recursive: true });
    const file = path.join(bundle, "output/capability_2_dashboard_apis/harbor.json");
    writeFileSync(file, readFileSync(file, "utf8").replace("42 ships docked in 2020.", "41 ships docked in 2020."));
    const r = await verify(entry.id, "--db", entry.db, "--bundle", bundle, "--benchmark", MINI_BENCHMARK, "--json");
    expect(r.code, r.stderr).toBe(1);
    const rep = report(r.stdout);
    expect(rep.kinds).toEqual(["bundle"]);
    expect(rep.run).toEqual([{ kind: "bundle", message: expect.stringMatching(/^the bundle's sha256 is [0-9a-f]{12}, the run's was [0-9a-f]{12}$/) }]);
    expect(rep.items).toEqual([expect.objectContaining({ capability: "tool_selection", uuid: "ts-1", recorded: expect.objectContaining({ score: 1 }), rescored: expect.objectContaining({ score: 0 }), why: [expect.objectContaining({ kind: "bundle" })] })]);
    expect(rep.capabilities.find((c) => c.capability === "tool_selection")).toMatchObject({ identical: false, recorded: 50, rescored: 0, different: 1 });
    expect(rep.capabilities.find((c) => c.capability === "multiturn")).toMatchObject({ identical: true });
    const text = await verify(entry.id, "--db", entry.db, "--bundle", bundle, "--benchmark", MINI_BENCHMARK);
    expect(text.stdout).toMatch(/^DIFFERENT \(bundle\): 1 of 4 items differ/);
    expect(text.stdout).toMatch(/tool_selection\/ts-1: scored groundedness 1 → scored groundedness 0 — bundle/);
  });

  it("takes the ZIP a folder entry downloads as (its files, hashed as the folder is), and tells a changed one apart", async () => {
    const zipOf = async (dir: string, file: string) => {
      const opened = await openBundle(dir);
      if (!opened.ok) throw new Error(`cannot open ${dir}`);
      try {
        return await zipToFile(opened.source.files.map((f) => ({ path: f.path, absPath: f.absPath! })), path.join(work, file));
      } finally {
        await opened.source.close();
      }
    };
    const same = await verify(entry.id, "--db", entry.db, "--bundle", await zipOf(GOOD_BUNDLE, "download.zip"), "--benchmark", MINI_BENCHMARK, "--json");
    expect(same.code, same.stdout).toBe(0);
    expect(report(same.stdout)).toMatchObject({ identical: true, kinds: [] });
    const edited = path.join(work, "edited-for-zip");
    cpSync(GOOD_BUNDLE, edited, { recursive: true });
    const answers = path.join(edited, "output/capability_2_dashboard_apis/harbor.json");
    writeFileSync(answers, `${readFileSync(answers, "utf8")}\n`);
    const other = await verify(entry.id, "--db", entry.db, "--bundle", await zipOf(edited, "edited.zip"), "--benchmark", MINI_BENCHMARK, "--json");
    expect(other.code).toBe(1);
    expect(report(other.stdout).kinds).toEqual(["bundle"]);
  });

  it("names the benchmark (its ground truth) when a ground-truth value changes", async () => {
    const benchmark = path.join(work, "edited-benchmark");
    cpSync(MINI_BENCHMARK, benchmark, { recursive: true });
    const file = path.join(benchmark, "groundtruth/capability_2_dashboard_apis/harbor.json");
    writeFileSync(file, readFileSync(file, "utf8").replace(`"answer": [["Sea Dragon"]]`, `"answer": [["Ocean Queen"]]`));
    const r = await verify(entry.id, "--db", entry.db, "--bundle", GOOD_BUNDLE, "--benchmark", benchmark, "--json");
    expect(r.code, r.stderr).toBe(1);
    const rep = report(r.stdout);
    expect(rep.kinds).toEqual(["benchmark"]);
    expect(rep.run[0]!.message).toMatch(/content hash .*\(ground truth differ\)$/);
    expect(rep.items.map((i) => [i.uuid, i.recorded?.score, i.rescored?.score, i.why.map((w) => w.kind)])).toEqual([["ts-2", 0, 1, ["benchmark"]]]);
  });

  it("exits 2 on usage errors: a missing option, a target that is none of the three forms, an entry not in the database", async () => {
    expect((await runCli(["verify", entry.id, "--benchmark", MINI_BENCHMARK, "--db", entry.db])).code).toBe(2);
    const bad = await verify("nonsense", "--bundle", GOOD_BUNDLE, "--benchmark", MINI_BENCHMARK);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("expected an entry id, an entry's URL");
    const none = await verify("99", "--db", entry.db, "--bundle", GOOD_BUNDLE, "--benchmark", MINI_BENCHMARK);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain("no entry 99 in the database");
  });
});

describe("agentboard verify on a results.json", () => {
  it("names the version when the results' manifest names another Agentboard version, though every item is identical", async () => {
    const out = path.join(work, "rules-results.json");
    const scored = await runCli(["score", GOOD_BUNDLE, "--benchmark", MINI_BENCHMARK, "--out", out, "--quiet"]);
    expect(scored.code, scored.stderr).toBe(0);
    expect((await verify(out, "--bundle", GOOD_BUNDLE, "--benchmark", MINI_BENCHMARK)).code).toBe(0);
    const results = JSON.parse(readFileSync(out, "utf8"));
    results.manifest.agentboard.version = "0.0.1";
    const older = path.join(work, "older-results.json");
    writeFileSync(older, JSON.stringify(results));
    const r = await verify(older, "--bundle", GOOD_BUNDLE, "--benchmark", MINI_BENCHMARK, "--json");
    expect(r.code, r.stderr).toBe(1);
    const rep = report(r.stdout);
    expect(rep.kinds).toEqual(["version"]);
    expect(rep.run).toEqual([{ kind: "version", message: expect.stringMatching(/^Agentboard here is \S+, the run was scored by 0\.0\.1$/) }]);
    expect(rep.counts).toEqual({ items: 4, identical: 4, different: 0 });
  });

  describe("judged by an LLM (the fake judge), re-scored from its exported verdicts", () => {
    let fake: FakeOpenAiServer;
    const dir = path.join(work, "openai-run");
    const results = path.join(dir, "results.json");
    const verdicts = path.join(dir, "verdicts.json");
    beforeAll(async () => {
      fake = await startFakeOpenAiServer();
      const r = await runCli(["score", GOOD_BUNDLE, "--benchmark", MINI_BENCHMARK, "--judge", "openai", "--judge-model", "fake-judge", "--judge-base-url", fake.baseUrl, "--out", results, "--verdicts-out", verdicts, "--quiet"]);
      expect(r.code, r.stderr).toBe(0);
    });
    afterAll(() => fake.close());

    it("reports identical from the verdicts beside results.json, without asking the judge", async () => {
      const asked = fake.requestCount;
      expect(asked).toBeGreaterThan(0);
      const exported = JSON.parse(readFileSync(verdicts, "utf8")) as VerdictExport;
      expect(exported).toMatchObject({ schema: "agentboard.verdicts/1", judge: { id: "openai:fake-judge", kind: "openai", model: "fake-judge" }, private: true });
      expect(Object.keys(exported.grades)).toHaveLength(JSON.parse(readFileSync(results, "utf8")).manifest.verdicts.grades);
      const r = await verify(results, "--bundle", GOOD_BUNDLE, "--benchmark", MINI_BENCHMARK);
      expect(r.code, r.stdout + r.stderr).toBe(0);
      expect(r.stdout).toMatch(/^IDENTICAL/);
      expect(r.stdout).toMatch(/^ {2}judge\s+identical\s+openai fake-judge, \d+ verdicts/m);
      expect(fake.requestCount).toBe(asked);
    });

    it("names the judge and the item when one exported verdict is edited", async () => {
      const edited = JSON.parse(readFileSync(verdicts, "utf8")) as VerdictExport;
      const item = edited.items.find((i) => i.uuid === "ts-2")!;
      const key = item.grades.find((k) => edited.grades[k]!.kind === "correctness")!;
      expect(edited.grades[key]).toMatchObject({ outcome: "pass", score: 1 });
      edited.grades[key] = { ...edited.grades[key]!, outcome: "fail", score: 0 };
      const file = path.join(work, "edited-verdicts.json");
      writeFileSync(file, JSON.stringify(edited));
      const asked = fake.requestCount;
      const r = await verify(results, "--bundle", GOOD_BUNDLE, "--benchmark", MINI_BENCHMARK, "--verdicts", file, "--json");
      expect(r.code, r.stderr).toBe(1);
      const rep = report(r.stdout);
      expect(rep.kinds).toEqual(["judge"]);
      expect(rep.run).toEqual([{ kind: "judge", message: "1 verdict(s) in the verdicts file differ from the run's" }]);
      expect(rep.items).toEqual([expect.objectContaining({ uuid: "ts-2", recorded: expect.objectContaining({ score: 1 }), rescored: expect.objectContaining({ stage: "correctness", score: 0 }), why: [{ kind: "judge", message: "1 verdict(s) differ from the run's (correctness: pass → fail)" }] })]);
      expect(fake.requestCount).toBe(asked);
    });

    it("says a verdict is missing when the file lacks one", async () => {
      const cut = JSON.parse(readFileSync(verdicts, "utf8")) as VerdictExport;
      const key = cut.items.find((i) => i.uuid === "ts-1")!.grades[0]!;
      delete cut.grades[key];
      const file = path.join(work, "cut-verdicts.json");
      writeFileSync(file, JSON.stringify(cut));
      const rep = report((await verify(results, "--bundle", GOOD_BUNDLE, "--benchmark", MINI_BENCHMARK, "--verdicts", file, "--json")).stdout);
      expect(rep.kinds).toEqual(["judge"]);
      expect(rep.run).toEqual([{ kind: "judge", message: "1 of the run's verdict(s) are missing from the verdicts file" }]);
      expect(rep.items).toEqual([expect.objectContaining({ uuid: "ts-1", rescored: expect.objectContaining({ status: "judge_error" }), why: [expect.objectContaining({ kind: "judge", message: expect.stringMatching(/^1 verdict\(s\) not in the exported verdicts/) })] })]);
    });

    it("scores with the verdicts judge too (score --judge verdicts): the run's table, no request to the judge", async () => {
      const asked = fake.requestCount;
      const out = path.join(work, "from-verdicts.json");
      const r = await runCli(["score", GOOD_BUNDLE, "--benchmark", MINI_BENCHMARK, "--judge", "verdicts", "--judge-verdicts", verdicts, "--out", out, "--quiet"]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain("judge verdicts:openai:fake-judge");
      const original = JSON.parse(readFileSync(results, "utf8"));
      const again = JSON.parse(readFileSync(out, "utf8"));
      expect(again.overall.score).toBe(original.overall.score);
      expect(again.manifest.verdicts.digest).toBe(original.manifest.verdicts.digest);
      expect(fake.requestCount).toBe(asked);
    });

    it("refuses a verdict file that is not one (exit 2)", async () => {
      const file = path.join(work, "not-verdicts.json");
      writeFileSync(file, JSON.stringify({ schema: "something else" }));
      const r = await verify(results, "--bundle", GOOD_BUNDLE, "--benchmark", MINI_BENCHMARK, "--verdicts", file);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain("not an Agentboard verdict export");
    });
  });
});

describe("agentboard verify on the demo", () => {
  it("reports the strong agent identical (its panel of deterministic judges run again, MCP replay), scored into a temporary database", async () => {
    const bundle = path.join(DEMO_DIR, "submissions/strong-agent");
    const entry = await scoredEntry("demo", bundle, DEMO_DIR);
    const r = await verify(entry.id, "--db", entry.db, "--bundle", bundle, "--benchmark", DEMO_DIR, "--json");
    expect(r.code, r.stderr).toBe(0);
    const rep = report(r.stdout);
    expect(rep).toMatchObject({ identical: true, counts: { items: 300, identical: 300, different: 0 } });
    expect(rep.capabilities.map((c) => [c.capability, c.recorded?.toFixed(1)])).toEqual([
      ["api_chaining", "90.7"],
      ["multihop", "81.3"],
      ["multiturn", "88.9"],
      ["tool_selection", "80.0"],
    ]);
  }, 180_000);
});
