/**
 * The verdicts grader answers only from a run's exported verdicts: a request the run asked gets
 * the run's grade, anything else is unjudged ("not in the exported verdicts"), never a guess.
 * Runs judged by the OpenAI grader (through a fake fetch: no network) are re-scored from their
 * export with the same numbers, waterfall and evaluators (qa, trajectory, report fields and
 * field discovery) alike.
 */
import path from "node:path";
import { describe, expect, it } from "vitest";
import { loadBenchmark, type Benchmark } from "@/lib/benchmark/load-benchmark";
import { createRecordedReplay } from "@/lib/replay/recorded-replay";
import type { GradeRequest } from "@/lib/judges/grader";
import { createGrader, JudgeSettingsError, type JudgeSettings } from "@/lib/judges/judge-settings";
import { scoreBundle } from "@/lib/aggregate/score-bundle";
import type { ScoreResults } from "@/lib/aggregate/score-results";
import { buildVerdictExport } from "@/lib/scoring/verdict-export";
import { parseVerdictExport, type VerdictExport } from "@/lib/judges/verdict-file";
import { NVIDIA_DEMO_DIR } from "@/scripts/demo/build-demo";
import { fakeJudgeFetch } from "../../helpers/fake-judge-fetch";
import { GOOD_BUNDLE, MINI_BENCHMARK } from "../../helpers/mini-fixtures";

const OPENAI: JudgeSettings = { kind: "openai", model: "judge-m", baseUrl: "http://127.0.0.1:9", concurrency: 4, maxAttempts: 1 };

async function score(benchmark: Benchmark, bundle: string, grader = createGrader(OPENAI, { transport: { fetch: fakeJudgeFetch } })): Promise<ScoreResults> {
  const run = await scoreBundle(benchmark, bundle, { grader, replay: createRecordedReplay() });
  if (run.kind !== "scored") throw new Error("expected the bundle to score");
  return run.results;
}

const verdictsGrader = (verdicts: VerdictExport, benchmark: Benchmark) => createGrader({ kind: "verdicts", concurrency: 1 }, { verdicts, keySalt: benchmark.content!.keySalt });
const numbers = (r: ScoreResults) => r.items.map((i) => [i.capability, i.uuid, i.status, i.stage, i.score]);

describe("the verdicts grader", () => {
  it("answers a request the run asked with the run's grade, and anything else as unjudged", async () => {
    const benchmark = await loadBenchmark(MINI_BENCHMARK);
    const results = await score(benchmark, GOOD_BUNDLE);
    const verdicts = buildVerdictExport(results, results.items, { includePrivate: true });
    expect(Object.keys(verdicts.grades).length).toBeGreaterThan(0);
    const grader = verdictsGrader(verdicts, benchmark);
    expect(grader).toMatchObject({ id: "verdicts:openai:judge-m", model: "judge-m", readsPrompts: true });

    // ts-1's groundedness request, as the waterfall asked it.
    const item = results.items.find((i) => i.uuid === "ts-1")!;
    const used = item.grades!.find((g) => g.kind === "groundedness")!;
    const asked: GradeRequest = { kind: "groundedness", question: "How many ships docked in 2020?", answer: "42 ships docked in 2020.", answerValue: "42 ships docked in 2020.", evidence: ["[[42]]"] };
    const hit = await grader.grade(asked);
    expect(hit).toMatchObject({ outcome: used.outcome, score: used.score, reason: used.reason, cacheHit: true });

    const miss = await grader.grade({ ...asked, answer: "43 ships docked in 2020." });
    expect(miss).toMatchObject({ outcome: "unjudged", score: null, reason: "not in the exported verdicts" });
    // Keys are salted with the benchmark's ground truth: another benchmark's salt finds nothing.
    const other = createGrader({ kind: "verdicts", concurrency: 1 }, { verdicts, keySalt: "another benchmark" });
    expect((await other.grade(asked)).outcome).toBe("unjudged");
  });

  it("re-scores a run from its export with the same numbers and the same manifest digests, asking no model", async () => {
    const benchmark = await loadBenchmark(MINI_BENCHMARK);
    const results = await score(benchmark, GOOD_BUNDLE);
    // Through JSON and the parser, as a file or the API delivers it.
    const parsed = parseVerdictExport(JSON.parse(JSON.stringify(buildVerdictExport(results, results.items, { includePrivate: false }))));
    if (!parsed.ok) throw new Error(parsed.error);
    const again = await score(benchmark, GOOD_BUNDLE, verdictsGrader(parsed.verdicts, benchmark));
    expect(numbers(again)).toEqual(numbers(results));
    expect(again.manifest.verdicts.digest).toBe(results.manifest.verdicts.digest);
    expect(again.manifest.verdicts.gradesDigest).toBe(results.manifest.verdicts.gradesDigest);
  });

  it("turns a missing verdict into an unjudged grade and a judge_error item, never a guess", async () => {
    const benchmark = await loadBenchmark(MINI_BENCHMARK);
    const results = await score(benchmark, GOOD_BUNDLE);
    const verdicts = buildVerdictExport(results, results.items, { includePrivate: true });
    const dropped = results.items.find((i) => i.uuid === "ts-2")!.grades![0]!.key;
    delete verdicts.grades[dropped];
    const again = await score(benchmark, GOOD_BUNDLE, verdictsGrader(verdicts, benchmark));
    const item = again.items.find((i) => i.uuid === "ts-2")!;
    expect(item).toMatchObject({ status: "judge_error", score: 0 });
    expect(item.grades!.find((g) => g.key === dropped)).toMatchObject({ outcome: "unjudged", reason: "not in the exported verdicts" });
    expect(numbers(again).filter((n) => n[1] !== "ts-2")).toEqual(numbers(results).filter((n) => n[1] !== "ts-2"));
  });

  it("re-scores evaluator capabilities (qa, trajectory, report fields, field discovery) from a private export; a public one withholds discovery", async () => {
    const benchmark = await loadBenchmark(NVIDIA_DEMO_DIR);
    const bundle = path.join(NVIDIA_DEMO_DIR, "submissions/reference-agent");
    const results = await score(benchmark, bundle);
    const kinds = new Set(results.items.flatMap((i) => (i.grades ?? []).map((g) => `${g.kind}:${g.outcome}`)));
    expect([...kinds].sort()).toEqual(["field_discovery:scored", "qa:scored", "report_field:scored", "trajectory:scored"]);

    const own = buildVerdictExport(results, results.items, { includePrivate: true });
    const again = await score(benchmark, bundle, verdictsGrader(own, benchmark));
    expect(numbers(again)).toEqual(numbers(results));
    expect(again.manifest.verdicts.digest).toBe(results.manifest.verdicts.digest);

    // Public: field discovery names reference fields, so those grades are withheld and their items cannot be re-derived.
    const pub = buildVerdictExport(results, results.items, { includePrivate: false });
    const withheld = Object.values(pub.grades).filter((g) => g.withheld);
    expect(withheld.length).toBeGreaterThan(0);
    expect(withheld.every((g) => g.kind === "field_discovery" && g.matches === undefined)).toBe(true);
    const partly = await score(benchmark, bundle, verdictsGrader(pub, benchmark));
    const changed = partly.items.filter((i, k) => i.status !== results.items[k]!.status);
    expect(changed.length).toBeGreaterThan(0);
    expect(changed.every((i) => i.status === "judge_error" && i.grades!.some((g) => /withheld/.test(g.reason)))).toBe(true);
  });

  it("refuses the verdicts of a rules run (no model to key them by) and a benchmark not loaded", async () => {
    const benchmark = await loadBenchmark(MINI_BENCHMARK);
    const rules = await score(benchmark, GOOD_BUNDLE, createGrader({ kind: "rules", concurrency: 1 }));
    const verdicts = buildVerdictExport(rules, rules.items, { includePrivate: true });
    expect(verdicts.grades).toEqual({});
    expect(() => verdictsGrader(verdicts, benchmark)).toThrow(JudgeSettingsError);
    expect(() => createGrader({ kind: "verdicts", concurrency: 1 }, { verdicts })).toThrow(/key salt/);
  });
});
