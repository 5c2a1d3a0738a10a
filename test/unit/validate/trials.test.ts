/**
 * Bundles of trials (`trial_1/ … trial_k/`): each trial validated as a bundle (diagnostics name
 * the trial in the path), the same items in every trial, folders numbered 1..k without gaps,
 * nothing beside them, at most `maxTrials`, at least benchmark.yaml's `trials.min`; metadata
 * once at the top. Crafted folder bundles against a crafted benchmark in a temp dir, and the
 * NVIDIA-style demo's evaluator outputs (report folders included) copied into trials.
 */
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { indexBenchmark } from "@/lib/validate/ground-truth-index";
import { BenchmarkError, loadBenchmark, type Benchmark } from "@/lib/benchmark/load-benchmark";
import { createNoReplay } from "@/lib/replay/recorded-replay";
import { createGrader } from "@/lib/judges/judge-settings";
import { scoreBundle } from "@/lib/aggregate/score-bundle";
import { mapLayout } from "@/lib/validate/bundle-layout";
import { renderReportMarkdown } from "@/lib/validate/report";
import { trialsOf, validateBundle } from "@/lib/validate/validate-bundle";
import { tsWorker } from "../../helpers/ts-worker";

const CAP1 = "capability_1_bi_apis";
const CAP2 = "capability_2_dashboard_apis";
const YAML = `
slug: tiny-trials
title: Tiny trials
version: 1
capabilities:
  - id: api_chaining
    label: API chaining
    directory: ${CAP1}
  - id: tool_selection
    label: Tool selection
    directory: ${CAP2}
`;

type Json = Record<string, unknown>;
const gt = (uuid: string, domain: string): Json => ({
  uuid,
  domain,
  additional_instructions: "",
  output: [{ turn_id: 0, query: `question of ${uuid}`, answer: "42", sequence: { tool_call: [{ name: "get_answer", arguments: { id: uuid } }], tool_response: [42] } }],
});
const pred = (uuid: string, domain: string, answer = "42"): Json => ({
  uuid,
  domain,
  status: "success",
  error: "",
  duration_s: 1,
  output: [{ turn_id: 0, query: "q", answer, sequence: { tool_call: [{ name: "get_answer", arguments: { id: uuid } }] } }],
});

let root: string;
let benchmark: Benchmark;
let n = 0;
const NVIDIA = path.resolve(import.meta.dirname, "../../../benchmarks/demo-nvidia");

function write(file: string, content: string): void {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, content);
}

/** A bundle folder: keys are paths inside it, values written as JSON unless strings. */
function bundle(files: Record<string, unknown>): string {
  const dir = path.join(root, "bundles", `b${++n}`);
  mkdirSync(dir, { recursive: true });
  for (const [rel, v] of Object.entries(files)) write(path.join(dir, rel), typeof v === "string" ? v : JSON.stringify(v));
  return dir;
}

/** One trial's files under `trial_<t>/` (or `prefix`), the full item set unless told otherwise. */
function trial(t: number | string, over: Record<string, unknown> = {}, prefix = `trial_${t}/`): Record<string, unknown> {
  return {
    [`${prefix}${CAP1}/alpha.json`]: [pred("a1", "alpha"), pred("a2", "alpha", t === 2 ? "41" : "42")],
    [`${prefix}${CAP1}/beta.json`]: [pred("b1", "beta")],
    [`${prefix}${CAP2}/alpha.json`]: [pred("t1", "alpha")],
    ...over,
  };
}

const errors = (r: { errors: { code: string; file: string; uuid?: string }[] }) => r.errors.map((e) => [e.code, e.file, e.uuid ?? null]);

beforeAll(async () => {
  root = mkdtempSync(path.join(tmpdir(), "agentboard-trials-"));
  const bench = path.join(root, "benchmark");
  write(path.join(bench, "benchmark.yaml"), YAML);
  write(path.join(bench, "groundtruth", CAP1, "alpha.json"), JSON.stringify([gt("a1", "alpha"), gt("a2", "alpha")]));
  write(path.join(bench, "groundtruth", CAP1, "beta.json"), JSON.stringify([gt("b1", "beta")]));
  write(path.join(bench, "groundtruth", CAP2, "alpha.json"), JSON.stringify([gt("t1", "alpha")]));
  benchmark = await loadBenchmark(bench);
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("a bundle of trials", () => {
  it("validates each trial as a bundle, reads the metadata at the top once, and keeps every trial's predictions", async () => {
    const dir = bundle({ ...trial(1), ...trial(2), ...trial(3), "metadata.json": { agent_name: "three-runs" } });
    const { report, submission } = await validateBundle(dir, benchmark);
    expect(errors(report)).toEqual([]);
    expect(report.valid).toBe(true);
    expect(report.summary).toMatchObject({ trials: 3, dialogues: 12, records: 12, submittedCapabilities: ["api_chaining", "tool_selection"] });
    expect(report.metadata).toEqual({ agent_name: "three-runs" });
    expect(report.coverage.api_chaining).toMatchObject({ expected: 3, predicted: 3, missing: 0 });
    const trials = trialsOf(submission!);
    expect(trials).toHaveLength(3);
    expect(trials.map((t) => (t.capabilities.get("api_chaining")!.get("a2")!.turns[0]!.answer))).toEqual(["42", "41", "42"]);
    expect(renderReportMarkdown(report)).toContain("3 trials");
  });

  it("strips a wrapper folder around the trials, and reads one trial folder alone as one trial", async () => {
    const wrapped = await validateBundle(bundle({ ...trial(1, {}, "output/trial_1/"), ...trial(2, {}, "output/trial_2/") }), benchmark);
    expect(wrapped.report).toMatchObject({ valid: true, summary: { trials: 2 } });
    const alone = await validateBundle(bundle(trial(1)), benchmark);
    expect(alone.report).toMatchObject({ valid: true, summary: { trials: 1 } });
    expect(alone.submission!.trials).toBeUndefined();
    const plain = await validateBundle(bundle(trial(1, {}, "")), benchmark);
    expect(plain.report).toMatchObject({ valid: true, summary: { trials: 1 } });
  });

  it("names the trial in every diagnostic's path", async () => {
    const dir = bundle({ ...trial(1), ...trial(2, { [`trial_2/${CAP2}/alpha.json`]: [pred("t1", "alpha"), pred("t1", "alpha")] }) });
    const { report } = await validateBundle(dir, benchmark);
    expect(errors(report)).toEqual([["duplicate_uuid", `trial_2/${CAP2}/alpha.json`, "t1"]]);
  });

  it("refuses trials that cover different items, naming the trial, the capability's file and the uuid", async () => {
    // Trial 3 has no folder for the second capability at all.
    const third = trial(3);
    delete third[`trial_3/${CAP2}/alpha.json`];
    const dir = bundle({ ...trial(1), ...trial(2, { [`trial_2/${CAP1}/alpha.json`]: [pred("a1", "alpha")] }), ...third });
    const { report } = await validateBundle(dir, benchmark);
    expect(report.valid).toBe(false);
    expect(errors(report)).toEqual([
      ["trial_items_differ", `trial_2/${CAP1}/alpha.json`, "a2"],
      ["trial_items_differ", `trial_3/${CAP2}`, null],
    ]);
    expect(report.errors[0]!.message).toBe("item is in trial_1 but not in trial_2: every trial must cover the same items");
    expect(report.errors[1]!.message).toContain("trial_3 has no predictions for this capability and trial_1 has");
    // An item trial 1 lacks is named in the trial that has it.
    const extra = await validateBundle(bundle({ ...trial(1, { [`trial_1/${CAP1}/beta.json`]: [] }), ...trial(2) }), benchmark);
    expect(errors(extra.report)).toEqual([["trial_items_differ", `trial_2/${CAP1}/beta.json`, "b1"]]);
    expect(extra.report.errors[0]!.message).toBe("item is in trial_2 but not in trial_1: every trial must cover the same items");
  });

  it("refuses gaps in the numbering, badly numbered folders and a trial without files", async () => {
    const gap = await validateBundle(bundle({ ...trial(1), ...trial(3), ...trial(4) }), benchmark);
    expect(errors(gap.report)).toEqual([["trial_gap", "trial_2", null]]);
    expect(gap.report.errors[0]!.message).toBe("trial folders must be numbered 1 to 4 without gaps: trial_2 is missing");
    const bad = await validateBundle(bundle({ ...trial(1), ...trial("01"), ...trial(0) }), benchmark);
    expect(errors(bad.report)).toEqual([
      ["bad_trial_folder", "trial_0", null],
      ["bad_trial_folder", "trial_01", null],
    ]);
    const empty = await validateBundle(bundle({ ...trial(1), "trial_2/notes.txt": "nothing here" }), benchmark);
    expect(errors(empty.report)).toContainEqual(["empty_trial", "trial_2", null]);
  });

  it("refuses capability folders (or any other folder) beside the trial folders", async () => {
    const { report } = await validateBundle(bundle({ ...trial(1), ...trial(2), [`${CAP2}/alpha.json`]: [pred("t1", "alpha")], "extras/readme.json": [] }), benchmark);
    expect(errors(report)).toEqual([
      ["mixed_trial_layout", CAP2, null],
      ["mixed_trial_layout", "extras", null],
    ]);
    expect(report.errors[0]!.message).toContain("every capability folder goes inside trial_1/ … trial_k/");
  });

  it("reads at most maxTrials trials, and says the rest were not read", async () => {
    const { report } = await validateBundle(bundle({ ...trial(1), ...trial(2), ...trial(3) }), benchmark, { limits: { maxTrials: 2 } });
    expect(errors(report)).toEqual([["too_many_trials", "trial_3", null]]);
    expect(report.errors[0]!.message).toBe("trials are numbered up to 2 at most (limits.maxTrials): this folder is not read");
    expect(report.summary).toMatchObject({ trials: 2, dialogues: 8 });
    // A folder numbered far beyond the limit is one error, not a count of gaps.
    const far = await validateBundle(bundle({ ...trial(1), ...trial(99_999_999) }), benchmark);
    expect(errors(far.report)).toEqual([["too_many_trials", "trial_99999999", null]]);
    expect(far.report.summary.trials).toBe(1);
  });

  it("ignores a metadata file inside a trial, with a warning", async () => {
    const { report } = await validateBundle(bundle({ ...trial(1, { "trial_1/metadata.json": { agent_name: "inner" } }), ...trial(2), "submission.yaml": "agent_name: outer\n" }), benchmark);
    expect(report.valid).toBe(true);
    expect(report.metadata).toEqual({ agent_name: "outer" });
    expect(report.warnings.map((w) => [w.code, w.file])).toContainEqual(["trial_metadata", "trial_1/metadata.json"]);
  });

  it("gives the same report when only ids are kept, on this thread or on worker threads", async () => {
    const dir = bundle({ ...trial(1), ...trial(2, { [`trial_2/${CAP1}/alpha.json`]: [pred("a1", "alpha")] }), ...trial(3) });
    const full = (await validateBundle(dir, benchmark)).report;
    const index = indexBenchmark(benchmark);
    const same = (r: typeof full) => expect({ ...r, bundle: { ...r.bundle, location: "" } }).toEqual({ ...full, bundle: { ...full.bundle, location: "" } });
    same((await validateBundle(dir, index, { keepPredictions: false })).report);
    same((await validateBundle(dir, index, { keepPredictions: false, threads: { entry: tsWorker("lib/validate/validate-worker.ts"), count: 2, minBytes: 0 } })).report);
  });

  it("lays out paths per trial: the mapping alone", () => {
    const layout = mapLayout(["trial_2/capability_1_bi_apis/alpha.json", "trial_1/capability_1_bi_apis/alpha.json", "metadata.json"], benchmark.capabilities.map((c) => c.spec));
    expect(layout).toMatchObject({ trials: 2, trialDirs: ["trial_1/", "trial_2/"], metadataPath: "metadata.json", diagnostics: [] });
    expect(layout.domainFiles.map((f) => [f.trial, f.path])).toEqual([
      [1, "trial_1/capability_1_bi_apis/alpha.json"],
      [2, "trial_2/capability_1_bi_apis/alpha.json"],
    ]);
  });
});

describe("benchmark.yaml trials.min", () => {
  let strict: Benchmark;
  beforeAll(async () => {
    const dir = path.join(root, "benchmark-min");
    cpSync(path.join(root, "benchmark"), dir, { recursive: true });
    write(path.join(dir, "benchmark.yaml"), `${YAML}trials: { min: 3 }\n`);
    strict = await loadBenchmark(dir);
  });

  it("refuses a bundle with fewer trials, a plain one included", async () => {
    const two = await validateBundle(bundle({ ...trial(1), ...trial(2) }), strict);
    expect(two.report.errors.map((e) => e.code)).toEqual(["too_few_trials"]);
    expect(two.report.errors[0]!.message).toContain("at least 3 trials (benchmark.yaml trials.min); the bundle has 2");
    const plain = await validateBundle(bundle(trial(1, {}, "")), strict);
    expect(plain.report.errors[0]!.message).toContain("the bundle has 1 (a bundle without trial_N/ folders is one trial)");
    const three = await validateBundle(bundle({ ...trial(1), ...trial(2), ...trial(3) }), strict);
    expect(three.report.valid).toBe(true);
  });

  it("names the key when the setting is wrong", async () => {
    for (const [yaml, want] of [
      ["trials: { min: 0 }", "trials.min: expected at least 1 trial"],
      ["trials: { min: 2.5 }", "trials.min: expected a whole number of trials"],
      ["trials: { min: 40 }", "trials.min: expected at most 32 trials"],
      ["trials: { minimum: 3 }", "trials"],
    ] as const) {
      const dir = path.join(root, `benchmark-bad-${++n}`);
      cpSync(path.join(root, "benchmark"), dir, { recursive: true });
      write(path.join(dir, "benchmark.yaml"), `${YAML}${yaml}\n`);
      const problems = await loadBenchmark(dir).then(
        () => [],
        (err: unknown) => (err instanceof BenchmarkError ? err.problems : [String(err)]),
      );
      expect(problems.join("\n"), yaml).toContain(want);
    }
  });
});

describe("evaluator capabilities in trials (the NVIDIA-style demo's outputs and report folders)", () => {
  let nvidia: Benchmark;
  beforeAll(async () => {
    nvidia = await loadBenchmark(NVIDIA);
  });
  const copyTrials = (k: number) => {
    const dir = path.join(root, "bundles", `nv${++n}`);
    for (let t = 1; t <= k; t++) cpSync(path.join(NVIDIA, "submissions/reference-agent"), path.join(dir, `trial_${t}`), { recursive: true, filter: (f) => !f.endsWith("metadata.json") });
    cpSync(path.join(NVIDIA, "submissions/reference-agent/metadata.json"), path.join(dir, "metadata.json"));
    return dir;
  };

  it("reads each trial's outputs and the reports they name, and scores every trial", async () => {
    const dir = copyTrials(2);
    const out = await scoreBundle(nvidia, dir, { grader: createGrader({ kind: "rules", concurrency: 16 }), replay: createNoReplay() });
    expect(out.kind).toBe("scored");
    if (out.kind !== "scored") return;
    expect(out.report.warnings.filter((w) => w.code === "ignored_file")).toEqual([]);
    expect(out.results.trials).toBe(2);
    const single = await scoreBundle(nvidia, path.join(NVIDIA, "submissions/reference-agent"), { grader: createGrader({ kind: "rules", concurrency: 16 }), replay: createNoReplay() });
    if (single.kind !== "scored") throw new Error("the reference agent should score");
    // Two identical trials: the same mean as one, no spread.
    expect(out.results.overall.score).toBeCloseTo(single.results.overall.score, 10);
    expect(out.results.trialStats.overall.sd).toBe(0);
    expect(out.results.items.filter((i) => i.trial === 2)).toHaveLength(single.results.items.length);
  });

  it("refuses a trial whose outputs lack an item the others have", async () => {
    const dir = copyTrials(2);
    const file = path.join(dir, "trial_2/qa/loading_dock.json");
    const outputs = JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown> | unknown[];
    const [dropped] = Array.isArray(outputs) ? [String((outputs.shift() as { id: string }).id)] : (() => {
      const id = Object.keys(outputs)[0]!;
      delete outputs[id];
      return [id];
    })();
    writeFileSync(file, JSON.stringify(outputs));
    const { report } = await validateBundle(dir, nvidia);
    expect(errors(report)).toEqual([["trial_items_differ", "trial_2/qa/loading_dock.json", dropped]]);
  });
});
