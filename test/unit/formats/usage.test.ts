/** Reading a `usage` object: both spellings, totals, and hostile values as warnings with JSON paths. */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadBenchmark } from "@/lib/benchmark/load-benchmark";
import { DiagnosticSink } from "@/lib/formats/diagnostic";
import { JsonNumber } from "@/lib/formats/lossless-json";
import { readPredictionFile } from "@/lib/formats/read-dialogues";
import { MAX_USAGE_COST_USD, MAX_USAGE_TOKENS, readUsage, type UsageWarning } from "@/lib/formats/usage";
import { validateBundle } from "@/lib/validate/validate-bundle";
import { GOOD_BUNDLE, MINI_BENCHMARK } from "../../helpers/mini-fixtures";
import { tsWorker } from "../../helpers/ts-worker";

function read(raw: unknown) {
  const warnings: UsageWarning[] = [];
  const usage = readUsage(raw, "$[3].usage", (w) => warnings.push(w));
  return { usage, warnings };
}

describe("readUsage", () => {
  it("reads input/output tokens, their OpenAI spellings, and dollars", () => {
    expect(read({ input_tokens: 1200, output_tokens: 300, cost_usd: 0.0123 })).toEqual({
      usage: { inputTokens: 1200, outputTokens: 300, totalTokens: 1500, costUsd: 0.0123 },
      warnings: [],
    });
    expect(read({ prompt_tokens: 10, completion_tokens: 5, cost: 2 }).usage).toEqual({ inputTokens: 10, outputTokens: 5, totalTokens: 15, costUsd: 2 });
    // Lossless JSON numbers (how bundles are read) count as numbers.
    expect(read({ total_tokens: new JsonNumber("900"), cost_usd: new JsonNumber("0.5") }).usage).toEqual({ inputTokens: null, outputTokens: null, totalTokens: 900, costUsd: 0.5 });
  });

  it("keeps total_tokens when only the total is known, and prefers the sum when both disagree (with a warning)", () => {
    expect(read({ total_tokens: 77 }).usage).toEqual({ inputTokens: null, outputTokens: null, totalTokens: 77, costUsd: null });
    const r = read({ input_tokens: 10, output_tokens: 5, total_tokens: 99 });
    expect(r.usage?.totalTokens).toBe(15);
    expect(r.warnings).toEqual([{ path: "$[3].usage.total_tokens", message: expect.stringContaining("is not input + output tokens (15)") }]);
    expect(read({ input_tokens: 10, output_tokens: 5, total_tokens: 15 }).warnings).toEqual([]);
  });

  it("takes the first spelling present and ignores other keys", () => {
    expect(read({ input_tokens: 1, prompt_tokens: 2, cost_usd: 3, cost: 4, model: "x", nested: { deep: [1] } }).usage).toEqual({ inputTokens: 1, outputTokens: null, totalTokens: null, costUsd: 3 });
  });

  it("is null without usage, or with an object that holds none of the fields", () => {
    expect(read(undefined)).toEqual({ usage: null, warnings: [] });
    expect(read(null)).toEqual({ usage: null, warnings: [] });
    expect(read({})).toEqual({ usage: null, warnings: [] });
    expect(read({ input_tokens: null, model: "gpt" })).toEqual({ usage: null, warnings: [] });
  });

  it("warns with the JSON path for what is not a usage object", () => {
    for (const raw of ["lots", 12, [1, 2], true]) {
      const r = read(raw);
      expect(r.usage).toBeNull();
      expect(r.warnings).toEqual([{ path: "$[3].usage", message: expect.stringMatching(/^expected a usage object .* found (a string|a number|an array|a boolean); ignored$/) }]);
    }
  });

  it("leaves out hostile values field by field, each with a warning naming its path", () => {
    const r = read({
      input_tokens: -5,
      output_tokens: 1.5,
      total_tokens: "1000",
      cost_usd: Infinity,
    });
    expect(r.usage).toBeNull();
    expect(r.warnings.map((w) => w.path)).toEqual(["$[3].usage.input_tokens", "$[3].usage.output_tokens", "$[3].usage.total_tokens", "$[3].usage.cost_usd"]);
    expect(r.warnings[0]!.message).toBe("expected a non-negative whole number of tokens, found -5; ignored");
    expect(r.warnings[1]!.message).toBe("expected a whole number of tokens, found 1.5; ignored");
    expect(r.warnings[2]!.message).toBe("expected a non-negative whole number of tokens, found a string; ignored");
    expect(r.warnings[3]!.message).toBe("expected a non-negative number of US dollars, found Infinity; ignored");
    // A good field beside bad ones is still read.
    expect(read({ input_tokens: { $gt: 0 }, output_tokens: 7, cost_usd: NaN }).usage).toEqual({ inputTokens: null, outputTokens: 7, totalTokens: null, costUsd: null });
  });

  it("refuses values beyond the bounds, so sums over a bundle stay exact and pages readable", () => {
    const r = read({ input_tokens: MAX_USAGE_TOKENS + 1, output_tokens: 1e308, cost_usd: MAX_USAGE_COST_USD * 2, total_tokens: MAX_USAGE_TOKENS });
    expect(r.usage).toEqual({ inputTokens: null, outputTokens: null, totalTokens: MAX_USAGE_TOKENS, costUsd: null });
    expect(r.warnings.map((w) => w.path)).toEqual(["$[3].usage.input_tokens", "$[3].usage.output_tokens", "$[3].usage.cost_usd"]);
    expect(r.warnings[0]!.message).toContain("above the token bound");
    expect(r.warnings[2]!.message).toContain("above the dollar bound");
    expect(100_000 * MAX_USAGE_TOKENS * 2).toBeLessThan(Number.MAX_SAFE_INTEGER);
  });

  it("never reads inherited keys", () => {
    const proto = Object.create({ input_tokens: 5 }) as Record<string, unknown>;
    expect(read(proto).usage).toBeNull();
    expect(read(JSON.parse('{"__proto__": {"input_tokens": 5}, "output_tokens": 2}')).usage).toEqual({ inputTokens: null, outputTokens: 2, totalTokens: null, costUsd: null });
  });
});

describe("usage in a bundle", () => {
  it("is read per record, with warnings that name file, record, uuid and path", () => {
    const sink = new DiagnosticSink("capability_2_dashboard_apis/harbor.json");
    const record = (uuid: string, usage: unknown) => ({ uuid, domain: "harbor", status: "success", error: "", duration_s: 1, usage, output: [{ turn_id: 0, query: "q", answer: "a", sequence: { tool_call: [] } }] });
    const read = readPredictionFile([record("u1", { input_tokens: 3, output_tokens: 4 }), record("u2", { cost_usd: "free" })], sink, { fileDomain: "harbor" });
    expect(read.map((r) => r.dialogue.usage)).toEqual([{ inputTokens: 3, outputTokens: 4, totalTokens: 7, costUsd: null }, null]);
    const w = sink.store.items.filter((d) => d.code === "bad_usage");
    expect(w).toEqual([{ severity: "warning", code: "bad_usage", file: "capability_2_dashboard_apis/harbor.json", record: 1, uuid: "u2", path: "$[1].usage.cost_usd", message: expect.stringContaining("US dollars") }]);
    expect(sink.store.errorCount).toBe(0);
  });

  const dirs: string[] = [];
  afterAll(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  /** The mini good bundle with usage added to its records and metadata. */
  function bundleWith(recordUsage: (i: number) => unknown, metaUsage: unknown): string {
    const dir = mkdtempSync(path.join(tmpdir(), "agentboard-usage-"));
    dirs.push(dir);
    cpSync(GOOD_BUNDLE, dir, { recursive: true });
    const file = path.join(dir, "output/capability_2_dashboard_apis/harbor.json");
    const records = JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>[];
    records.forEach((r, i) => {
      const u = recordUsage(i);
      if (u !== undefined) r.usage = u;
    });
    writeFileSync(file, JSON.stringify(records));
    const meta = path.join(dir, "output/metadata.json");
    writeFileSync(meta, JSON.stringify({ ...JSON.parse(readFileSync(meta, "utf8")), ...(metaUsage !== undefined ? { usage: metaUsage } : {}) }));
    return dir;
  }

  it("warns about bad metadata usage by path, and says that records' usage wins over it", async () => {
    const benchmark = await loadBenchmark(MINI_BENCHMARK);
    const bad = await validateBundle(bundleWith(() => undefined, { input_tokens: "many", cost_usd: 3 }), benchmark);
    expect(bad.report.valid).toBe(true);
    expect(bad.report.warnings.filter((w) => w.code === "bad_usage")).toEqual([expect.objectContaining({ file: "output/metadata.json", path: "$.usage.input_tokens" })]);
    expect(bad.report.warningCounts.usage_ignored).toBeUndefined();

    const bothDir = bundleWith((i) => ({ input_tokens: 10 * (i + 1), output_tokens: 1 }), { cost_usd: 3 });
    const both = await validateBundle(bothDir, benchmark);
    const ignored = [expect.objectContaining({ file: "output/metadata.json", path: "$.usage" })];
    expect(both.report.warnings.filter((w) => w.code === "usage_ignored")).toEqual(ignored);
    // The CLI keeps no predictions and may read the files on worker threads: the same warnings.
    const unkept = await validateBundle(bothDir, benchmark, { keepPredictions: false });
    expect(unkept.report.warnings).toEqual(both.report.warnings);
    const threaded = await validateBundle(bothDir, benchmark, { keepPredictions: false, threads: { entry: tsWorker("lib/validate/validate-worker.ts"), count: 1, minBytes: 0, callingThread: false } });
    expect(threaded.report.warnings).toEqual(both.report.warnings);
  });
});
