/**
 * Validation against the ground-truth index (cached or not) and on worker threads reports
 * exactly what validation against the whole ground truth on one thread does; the cache is
 * rebuilt when a ground-truth file changes or the cache file is damaged.
 */
import { mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { indexCacheFile, loadGroundTruthIndex } from "../../../lib/validate/ground-truth-index";
import { loadBenchmark } from "../../../lib/benchmark/load-benchmark";
import type { Diagnostic } from "../../../lib/formats/diagnostic";
import { openBundle } from "../../../lib/validate/bundle-source";
import { startFileThreads, type FileThreadOptions } from "../../../lib/validate/file-threads";
import { defaultValidationLimits } from "../../../lib/validate/limits";
import { checkOutputsFile } from "../../../lib/validate/outputs-file";
import { renderReportMarkdown, type ValidationReport } from "../../../lib/validate/report";
import { validateBundle, type ValidateOptions } from "../../../lib/validate/validate-bundle";
import { recordReaderOf } from "../../../lib/validate/outputs-readers/record-readers";
import { writeAgentBundle, writeSyntheticBenchmark } from "../../../scripts/synthetic/generate";
import { tsWorker } from "../../helpers/ts-worker";

const REPO = path.resolve(import.meta.dirname, "../../..");
const tmp = mkdtempSync(path.join(tmpdir(), "agentboard-gt-index-"));
const root = path.join(tmp, "benchmark");
const bundle = path.join(tmp, "bundle");
const cacheDir = path.join(root, ".agentboard-cache");
const cache = { dir: cacheDir, salt: "test-build" };
/** The worker entry as TypeScript, run through tsx: the same code the bundle's .mjs holds. */
const threads = (more: Partial<FileThreadOptions> = {}): FileThreadOptions => ({
  entry: tsWorker("lib/validate/validate-worker.ts"),
  count: 2,
  minBytes: 0,
  ...more,
});

type Rec = { uuid: string; domain: string; status?: string; error?: string; output: { turn_id: number; sequence: { tool_call: { name: string; arguments: Record<string, unknown> }[] } }[] };
const file = (cap: string, domain: string) => path.join(bundle, cap, `${domain}.json`);
const readRecs = (f: string) => JSON.parse(readFileSync(f, "utf8")) as Rec[];
const writeRecs = (f: string, recs: unknown) => writeFileSync(f, JSON.stringify(recs, null, 1));
const C1 = "capability_1_bi_apis";
const C2 = "capability_2_dashboard_apis";
const C3 = "capability_3_multihop_reasoning";
let domains: string[] = [];

beforeAll(async () => {
  const bench = await writeSyntheticBenchmark(root, { seed: 5, domains: 4, perCapability: [24, 16, 16, 12] });
  await writeAgentBundle(bench, bundle, { name: "index-test", accuracy: 0.6, errorRate: 0.1, missRate: 0.15 }, 3);
  domains = [...bench.groundTruth.get(C1)!.keys()];
  const [d0, d1, d2] = domains as [string, string, string];
  // One of each thing validation finds, spread over several files.
  const a = readRecs(file(C1, d0));
  const moved = readRecs(file(C1, d1));
  a.push({ ...a[0]!, uuid: "not-in-the-ground-truth" }, { ...a[1]! }, { ...moved[0]!, domain: d0 });
  a[2]!.output[0]!.turn_id = 7;
  a[3]!.output[0]!.sequence.tool_call.unshift({ name: "get_data", arguments: { tool_universe_id: a[3]!.uuid } });
  for (let i = 0; i < 6; i++) a.push({ ...a[0]!, uuid: `unknown-${i}` });
  writeRecs(file(C1, d0), a);
  const b = readRecs(file(C2, d0));
  b[0]!.status = "maybe";
  delete b[1]!.error;
  for (let i = 0; i < 4; i++) b.push({ ...b[2]!, uuid: `also-unknown-${i}` });
  writeRecs(file(C2, d0), b);
  // Many findings of one code in one file: a thread's own store drops some and counts them.
  const many = readRecs(file(C1, d1));
  for (const r of many) delete r.error;
  writeRecs(file(C1, d1), many);
  writeFileSync(file(C3, "atlantis"), "[]");
  writeFileSync(file(C3, d1), '[{"uuid": ');
  const c = readRecs(file(C3, d2));
  (c[0] as unknown as { output: { answer: string }[] }).output[0]!.answer = "x".repeat(defaultValidationLimits.maxAnswerChars + 1);
  writeRecs(file(C3, d2), c);
  ageGroundTruth();
});

/** Ground truth written long enough ago that size and mtime alone vouch for it (see RACY_MS). */
function ageGroundTruth(): void {
  const old = new Date(Date.now() - 3_600_000);
  for (const cap of [C1, C2, C3, "capability_4_multiturn"]) for (const d of domains) utimesSync(path.join(root, "groundtruth", cap, `${d}.json`), old, old);
}
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const codes = (ds: Diagnostic[]) => new Set(ds.map((d) => d.code));
const same = (a: ValidationReport, b: ValidationReport) => {
  expect(JSON.stringify(a, null, 2)).toBe(JSON.stringify(b, null, 2));
  expect(renderReportMarkdown(a)).toBe(renderReportMarkdown(b));
};

describe("the ground-truth index", () => {
  let reference: ValidationReport;
  beforeAll(async () => {
    reference = (await validateBundle(bundle, await loadBenchmark(root))).report;
  });

  it("is tested on a bundle with each kind of finding", () => {
    expect(reference.valid).toBe(false);
    for (const c of ["unknown_uuid", "duplicate_uuid", "wrong_domain_file", "unknown_domain", "json_syntax", "bad_status", "string_too_long"]) expect(codes(reference.errors), c).toContain(c);
    for (const c of ["turn_id_mismatch", "prelude_in_prediction", "error_missing"]) expect(Object.keys(reference.warningCounts), c).toContain(c);
    expect(reference.coverage.api_chaining!.missing).toBeGreaterThan(0);
  });

  it("gives byte-identical reports, built, then from the cache, predictions kept or not", async () => {
    rmSync(cacheDir, { recursive: true, force: true });
    const built = await loadGroundTruthIndex(root, cache);
    expect(built.source).toBe("loaded");
    const cached = await loadGroundTruthIndex(root, cache);
    expect(cached.source).toBe("cache");
    same((await validateBundle(bundle, built.index)).report, reference);
    same((await validateBundle(bundle, cached.index, { keepPredictions: false })).report, reference);
    const uncachedRun = await validateBundle(bundle, cached.index, { keepPredictions: false });
    expect(uncachedRun.submission).toBeUndefined();
  });

  it("is rebuilt when a ground-truth file changes, even at the same size", async () => {
    await loadGroundTruthIndex(root, cache);
    const gt = path.join(root, "groundtruth", C2, `${domains[0]}.json`);
    const before = readFileSync(gt, "utf8");
    // A uuid the bundle predicts (and reads without error) in that file.
    const victim = readRecs(file(C2, domains[0]!)).slice(2).find((r) => before.includes(r.uuid))!.uuid;
    // Same length: one hex digit of a uuid changed, so the bundle's prediction of it is now unknown.
    const renamed = victim.slice(0, -1) + (victim.endsWith("0") ? "1" : "0");
    writeFileSync(gt, before.replace(victim, renamed));
    try {
      const after = await loadGroundTruthIndex(root, cache);
      expect(after.source).toBe("loaded");
      const report = (await validateBundle(bundle, after.index, { keepPredictions: false })).report;
      same(report, (await validateBundle(bundle, await loadBenchmark(root))).report);
      expect(report.errors.some((d) => d.code === "unknown_uuid" && d.uuid === victim)).toBe(true);
      expect((await loadGroundTruthIndex(root, cache)).source).toBe("cache-rehashed");
    } finally {
      writeFileSync(gt, before);
    }
    const restored = await loadGroundTruthIndex(root, cache);
    expect(restored.source).toBe("loaded");
    same((await validateBundle(bundle, restored.index)).report, reference);
  });

  it("trusts a touched file only after its sha256 matches", async () => {
    ageGroundTruth();
    await loadGroundTruthIndex(root, cache);
    expect((await loadGroundTruthIndex(root, cache)).source).toBe("cache");
    const gt = path.join(root, "groundtruth", C1, `${domains[1]}.json`);
    const when = new Date(Date.now() - 1_800_000);
    utimesSync(gt, when, when);
    expect((await loadGroundTruthIndex(root, cache)).source).toBe("cache-rehashed");
    expect((await loadGroundTruthIndex(root, cache)).source).toBe("cache");
  });

  it("ignores a damaged or foreign cache file and rebuilds it", async () => {
    const { index } = await loadGroundTruthIndex(root, cache);
    const cacheFile = indexCacheFile(cacheDir, index.spec);
    const good = readFileSync(cacheFile, "utf8");
    const parsed = JSON.parse(good) as { capabilities: { domains: [string, unknown[], number[]][] }[] };
    const wrongShape = structuredClone(parsed);
    wrongShape.capabilities[0]!.domains[0]![1] = [1, 2, 3];
    for (const damaged of ["", "{not json", good.slice(0, good.length / 2), "null", "[]", JSON.stringify({ ...parsed, schema: 999 }), JSON.stringify(wrongShape)]) {
      writeFileSync(cacheFile, damaged);
      const again = await loadGroundTruthIndex(root, cache);
      expect(again.source, damaged.slice(0, 30)).toBe("loaded");
      same((await validateBundle(bundle, again.index, { keepPredictions: false })).report, reference);
      expect(readFileSync(cacheFile, "utf8")).not.toBe(damaged);
    }
    expect((await loadGroundTruthIndex(root, { ...cache, salt: "another-build" })).source).toBe("loaded");
  });

  it("loads benchmarks with evaluator capabilities whole, and caches nothing for them", async () => {
    const demo = path.join(REPO, "benchmarks/demo-nvidia");
    const dir = path.join(tmp, "nvidia-cache");
    const loaded = await loadGroundTruthIndex(demo, { dir, salt: "x" });
    expect(loaded.source).toBe("loaded");
    expect(loaded.index.capabilities.some((c) => c.kind === "dataset")).toBe(true);
    expect(() => readFileSync(indexCacheFile(dir, loaded.index.spec))).toThrow();
  });
});

describe("validation on worker threads", () => {
  it("reports exactly what one thread reports, with small diagnostic caps too", async () => {
    const { index } = await loadGroundTruthIndex(root, cache);
    for (const limits of [{}, { maxDiagnosticsPerCode: 2, maxDiagnostics: 7 }] as ValidateOptions["limits"][]) {
      const one = (await validateBundle(bundle, index, { keepPredictions: false, limits })).report;
      const full = (await validateBundle(bundle, await loadBenchmark(root), { limits })).report;
      same(one, full);
      same((await validateBundle(bundle, index, { keepPredictions: false, limits, threads: threads() })).report, one);
      same((await validateBundle(bundle, index, { keepPredictions: false, limits, threads: threads({ count: 1 }) })).report, one);
    }
    const capped = (await validateBundle(bundle, index, { limits: { maxDiagnosticsPerCode: 2, maxDiagnostics: 7 } })).report;
    expect(capped.errorCounts.unknown_uuid).toBeGreaterThan(2);
    expect(capped.warningCounts.error_missing).toBeGreaterThan(4);
    expect(capped.errors.filter((d) => d.code === "unknown_uuid")).toHaveLength(2);
  });

  it("checks files on the worker threads themselves", async () => {
    const opened = await openBundle(bundle);
    if (!opened.ok) throw new Error("bundle did not open");
    const f = opened.source.files.find((x) => x.path === `${C1}/${domains[0]}.json`)!;
    const job = { path: f.path, domain: domains[0]!, domainKnown: true, pythonValues: true, keep: false, scorer: "waterfall" as const };
    const here = await checkOutputsFile(f, job, recordReaderOf("waterfall"), defaultValidationLimits);
    // This thread cannot read the file: only a worker, reading it from disk, can check it.
    const unreadableHere = { ...f, read: () => Promise.reject(new Error("not on this thread")) };
    const pool = startFileThreads(threads({ callingThread: false }), defaultValidationLimits);
    try {
      const there = await pool.check(unreadableHere, job);
      expect(there).toEqual(here);
      expect(here.reads.length).toBeGreaterThan(10);
      expect(unreadableHere.sha256).toMatch(/^[0-9a-f]{64}$/);
    } finally {
      await pool.close();
    }
  });

  it("falls back to the calling thread when a worker cannot start", async () => {
    const broken = path.join(tmp, "broken-worker.mjs");
    writeFileSync(broken, 'throw new Error("this worker fails at start");\n');
    const { index } = await loadGroundTruthIndex(root, cache);
    const one = (await validateBundle(bundle, index, { keepPredictions: false })).report;
    same((await validateBundle(bundle, index, { keepPredictions: false, threads: { entry: pathToFileURL(broken), count: 2, minBytes: 0 } })).report, one);
  });
});
