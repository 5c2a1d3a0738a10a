/**
 * A run that keeps each item as a summary (`detail: "summary"`, what `agentboard score` does
 * without an output file) has every figure of the full run: scores, intervals, trial stats,
 * cost, integrity flags, unsupported answers and the manifest's digests. Judged by an LLM
 * judge (the fake one, failing some requests) so grades, verdicts and unsupported answers all
 * take part.
 */
import { readdirSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadBenchmark, type Benchmark } from "@/lib/benchmark/load-benchmark";
import { scoreBundle } from "@/lib/aggregate/score-bundle";
import type { ScoreResults } from "@/lib/aggregate/score-results";
import { createRecordedReplay } from "@/lib/replay/recorded-replay";
import { createGrader, resolveJudgeSettings } from "@/lib/judges/judge-settings";
import { createMemoryGradeCache } from "@/lib/judges/grade-cache";
import { itemDigestLine } from "@/lib/scoring/manifest";
import type { ItemDetail } from "@/lib/scoring/item-summary";
import { DEMO_DIR } from "@/scripts/demo/build-demo";
import { startFakeOpenAiServer, systemPrompt, type FakeOpenAiServer } from "../helpers/fake-openai-server";

/** Fails about a third of the requests, by the request's own text, so the same request always gets the same verdict. */
function mixedVerdicts(body: string, grounded: boolean) {
  let h = 0;
  for (let i = 0; i < body.length; i++) h = (h * 31 + body.charCodeAt(i)) >>> 0;
  const pass = h % 3 !== 0;
  const verdict = grounded ? (pass ? "grounded" : "not grounded") : pass ? "correct" : "incorrect";
  return { content: JSON.stringify({ verdict, reason: `fake: ${verdict}` }) };
}

describe("items kept as summaries", () => {
  let judge: FakeOpenAiServer;
  let benchmark: Benchmark;
  const runs = new Map<string, Record<ItemDetail, ScoreResults>>();

  beforeAll(async () => {
    judge = await startFakeOpenAiServer((req) => mixedVerdicts(req.rawBody, /grounded/i.test(systemPrompt(req))));
    benchmark = await loadBenchmark(DEMO_DIR);
    const settings = resolveJudgeSettings({ flags: { judge: "openai", judgeBaseUrl: judge.baseUrl, judgeModel: "fake" }, env: { OPENAI_API_KEY: "test" } });
    for (const name of readdirSync(path.join(DEMO_DIR, "submissions")).sort()) {
      const pair = {} as Record<ItemDetail, ScoreResults>;
      for (const detail of ["full", "summary"] as const) {
        const grader = createGrader(settings, { cache: createMemoryGradeCache(), keySalt: benchmark.content?.keySalt ?? "" });
        const run = await scoreBundle(benchmark, path.join(DEMO_DIR, "submissions", name), { grader, replay: createRecordedReplay(), detail, now: () => new Date(0) });
        // The demo's invalid sample is refused whatever the detail.
        if (run.kind === "scored") pair[detail] = run.results;
      }
      if (pair.full) runs.set(name, pair);
    }
  }, 120_000);
  afterAll(() => judge?.close());

  it("judged with LLM grades, some failing, on every sample submission", () => {
    expect(runs.size).toBeGreaterThanOrEqual(3);
    const all = [...runs.values()].flatMap((r) => r.full.items);
    expect(all.some((i) => (i.grades ?? []).some((g) => g.outcome === "fail"))).toBe(true);
    expect(all.some((i) => (i.grades ?? []).some((g) => g.outcome === "pass"))).toBe(true);
    expect([...runs.values()].some((r) => Object.values(r.full.unsupportedAnswers.capabilities).some((c) => (c?.unsupported ?? 0) > 0))).toBe(true);
  });

  it("gives every figure of the full run", () => {
    for (const [name, { full, summary }] of runs) {
      const { items: _a, ...fullFigures } = full;
      const { items: _b, ...summaryFigures } = summary;
      expect(summaryFigures, name).toEqual(fullFigures);
      expect(summary.items.map(itemDigestLine), name).toEqual(full.items.map(itemDigestLine));
      expect(summary.items.map((i) => [i.score, i.status, i.bucket, i.weight]), name).toEqual(full.items.map((i) => [i.score, i.status, i.bucket, i.weight]));
    }
  });

  it("keeps no texts, tool responses or diagnostics", () => {
    for (const [name, { full, summary }] of runs) {
      expect(full.items.some((i) => i.trace.some((t) => (t.responses?.length ?? 0) > 0 || t.query !== "")), name).toBe(true);
      for (const i of summary.items) {
        expect(i.trace.every((t) => t.query === "" && t.answer === null && (t.responses?.length ?? 0) === 0), `${name} ${i.uuid}`).toBe(true);
        expect((i.grades ?? []).every((g) => g.reason === "" && g.detail === null), `${name} ${i.uuid}`).toBe(true);
        expect(i.detail).toBeNull();
        if (i.scorer === "waterfall") {
          expect(i.trajectory).toBeNull();
          expect(i.verdicts.every((v) => v.reason === "" && v.detail === null), `${name} ${i.uuid}`).toBe(true);
        }
      }
      const size = (r: ScoreResults) => JSON.stringify(r.items).length;
      expect(size(summary), name).toBeLessThan(size(full) * 0.75);
    }
  });
});
