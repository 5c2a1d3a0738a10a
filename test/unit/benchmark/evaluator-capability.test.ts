/**
 * Capabilities scored by an evaluator (qa, trajectory, report) instead of the waterfall:
 * the spec option, the dataset ground truth, the outputs bundle and the scoring route.
 * Benchmarks and bundles are written to a temporary folder per test.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { BenchmarkError, loadBenchmark, parseBenchmarkSpec, type Benchmark } from "@/lib/benchmark/load-benchmark";
import type { Grader } from "@/lib/judges/grader";
import { createRulesGrader } from "@/lib/judges/rules-grader";
import type { ItemResult } from "@/lib/scoring/item-result";
import { buildResults } from "@/lib/aggregate/score-results";
import { scoreSubmission } from "@/lib/scoring/score-submission";
import { createNoReplay } from "@/lib/replay/recorded-replay";
import { validateBundle } from "@/lib/validate/validate-bundle";
import { gaveUp, scriptedGrader } from "../../helpers/scripted-grader";

const root = mkdtempSync(path.join(tmpdir(), "agentboard-evalcap-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let n = 0;

type Files = Record<string, unknown>;

/** Writes files (objects as JSON, strings as they are) under a new folder. */
function folder(files: Files): string {
  const dir = path.join(root, `f${n++}`);
  for (const [rel, content] of Object.entries(files)) {
    const file = path.join(dir, rel);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, typeof content === "string" ? content : JSON.stringify(content, null, 2));
  }
  return dir;
}

const YAML = `slug: mini-eval
title: Mini evaluators
version: "1"
showGroundTruth: true
capabilities:
  - id: answers
    label: Answers
    directory: qa
    scorer: qa
  - id: tools
    label: Tools
    directory: trajectory
    scorer: trajectory
  - id: reports
    label: Reports
    directory: report
    scorer: report
    evaluator:
      metrics: metrics.yaml
`;

const METRICS = `report:
  method: average
  fields:
    title: { method: exact_match }
    Summary:
      method: average
      fields:
        Camera: { method: exact_match }
        Vehicles: { method: f1 }
`;

const QA_GT = [
  { id: "count", query: "How many trucks?", ground_truth: "3 trucks", evaluation_method: ["qa"] },
  { id: "gate", query: "Which gate?", ground_truth: "Gate B", evaluation_method: ["qa"] },
  {
    id: "conv",
    evaluation_method: ["multi_turn"],
    conversation: [
      { turn_id: 1, query: "Which camera saw the truck?", ground_truth: "cam-07", evaluation_method: ["qa"] },
      { turn_id: 2, query: "Find its clips.", evaluation_method: ["trajectory"] },
    ],
  },
  { id: "elsewhere", query: "Draw a map.", ground_truth: "n/a", evaluation_method: ["report"] },
];

const TRAJ_GT = [
  {
    id: "clips",
    query: "Find the truck clips and summarise them.",
    evaluation_method: ["trajectory"],
    trajectory_ground_truth: [
      { step: 1, name: "search_clips", params: { object: "truck" } },
      { step: 2, name: "summarise_clip", params: { clip_id: "c1" } },
    ],
  },
];

const REPORT_GT = [{ id: "incident", query: "Report the incident.", ground_truth: "refs/incident.json", evaluation_method: ["report"] }];
const REFERENCE = { title: "Near miss", Summary: { Camera: "cam-07", Vehicles: "forklift, box truck" } };

function benchmarkFolder(over: Files = {}): string {
  return folder({
    "benchmark.yaml": YAML,
    "metrics.yaml": METRICS,
    "groundtruth/qa/dock.json": QA_GT,
    "groundtruth/trajectory/dock.json": TRAJ_GT,
    "groundtruth/report/dock.json": REPORT_GT,
    "groundtruth/report/refs/incident.json": REFERENCE,
    ...over,
  });
}

async function problemsOf(dir: string): Promise<string[]> {
  try {
    await loadBenchmark(dir);
  } catch (err) {
    if (err instanceof BenchmarkError) return err.problems;
    throw err;
  }
  throw new Error("expected the benchmark to be refused");
}

const GOOD_OUTPUTS: Files = {
  "qa/dock.json": { count: { generated_answer: "<agent-think>count them</agent-think>3 trucks" }, gate: { generated_answer: "Gate A" }, conv_1: { generated_answer: "cam-07" }, conv_2: { tool_calls: [] } },
  "trajectory/dock.json": [
    {
      id: "clips",
      tool_calls: [
        { step: 1, name: "search_clips", params: { object: "truck" } },
        { step: 2, name: "summarise_clip", params: { clip_id: "c1" } },
      ],
    },
  ],
  "report/dock.json": { incident: { report_path: "reports/incident.md" } },
  "report/reports/incident.md": "# Near miss\n\n## Summary\n\n| Field | Value |\n|---|---|\n| Camera | cam-07 |\n| Vehicles | forklift |\n",
  "metadata.json": { agent_name: "tester" },
};

describe("benchmark.yaml: the scorer option", () => {
  const head = `slug: s\ntitle: T\nversion: 1\ncapabilities:\n  - id: a\n    label: A\n    directory: a\n`;
  const problems = (extra: string) => {
    try {
      parseBenchmarkSpec(head + extra);
    } catch (err) {
      return (err as BenchmarkError).problems;
    }
    return [];
  };

  it("reads evaluator options with the eval.yaml defaults", () => {
    const spec = parseBenchmarkSpec(head + "    scorer: trajectory\n    evaluator: { toolSchemas: tools.json }\n");
    expect(spec.capabilities[0]).toMatchObject({ scorer: "trajectory", evaluator: { type: "trajectory", toolSchemas: "tools.json", agentSelectedToolsOnly: true } });
    expect(parseBenchmarkSpec(head).capabilities[0]).toMatchObject({ scorer: "waterfall", evaluator: undefined });
  });

  it("names every misplaced or missing option by its key", () => {
    expect(problems("    scorer: report\n")).toEqual(["benchmark.yaml: capabilities[0].evaluator.metrics: expected a file path"]);
    expect(problems("    evaluator: { prompt: x }\n")).toEqual(["benchmark.yaml: capabilities[0].evaluator: evaluator options apply only to capabilities scored by qa, trajectory or report; this one uses the waterfall"]);
    expect(problems("    scorer: qa\n    policies: true\n")).toEqual(["benchmark.yaml: capabilities[0].policies: applies only to waterfall capabilities; the qa scorer has no policies"]);
    expect(problems("    scorer: qa\n    evaluator: { judge: rules }\n")).toEqual(["benchmark.yaml: capabilities[0].evaluator.judge: the judge is chosen per scoring run (the benchmark's judge); remove evaluator.judge"]);
    expect(problems("    scorer: qa\n    evaluator: { promt: x }\n")).toEqual(['benchmark.yaml: capabilities[0].evaluator: Unrecognized key: "promt"']);
    expect(problems("    scorer: summary\n")[0]).toMatch(/^benchmark\.yaml: capabilities\[0\]\.scorer: Invalid option/);
  });
});

describe("dataset ground truth", () => {
  it("keeps the items routed to each capability, conversation turns with their history", async () => {
    const b = await loadBenchmark(benchmarkFolder());
    const [qa, traj, report] = b.capabilities;
    expect(qa?.kind).toBe("dataset");
    expect([...qa!.byUuid.keys()]).toEqual(["count", "gate", "conv_1"]);
    if (qa?.kind !== "dataset") throw new Error("unreachable");
    // conv_2 is scored elsewhere but stays as history; "elsewhere" is left out with a warning.
    expect(qa.entries.get("dock")!.map((e) => e.uuid)).toEqual(["count", "gate", "conv_1", "conv_2", "elsewhere"]);
    expect(b.warnings).toEqual([expect.objectContaining({ code: "unrouted_items", file: "groundtruth/qa/dock.json", message: "1 item(s) are not routed to qa (their evaluation_method lacks it); left out of this capability" })]);
    expect([...traj!.byUuid.keys()]).toEqual(["clips"]);
    const incident = report?.kind === "dataset" ? report.byUuid.get("incident") : undefined;
    expect(incident?.referenceReport).toMatchObject({ ok: true, value: REFERENCE });
  });

  it("refuses items their evaluator cannot score, naming the file and path", async () => {
    const problems = await problemsOf(
      benchmarkFolder({
        "groundtruth/qa/dock.json": [{ id: "q", query: "Which?", evaluation_method: ["qa"] }],
        "groundtruth/trajectory/dock.json": [{ id: "t", query: "Do it.", evaluation_method: ["trajectory"] }],
        "groundtruth/report/dock.json": [{ id: "r", query: "Report.", ground_truth: "refs/none.json", evaluation_method: ["report"] }],
      }),
    );
    expect(problems).toEqual([
      'groundtruth/qa/dock.json (uuid q) at $[0]: a qa item needs "ground_truth": the reference answer',
      'groundtruth/trajectory/dock.json (uuid t) at $[0]: a trajectory item needs "trajectory_ground_truth", or the capability needs evaluator.toolSchemas to judge it without one',
      "groundtruth/report/dock.json (uuid r) at $[0]: cannot read the reference report groundtruth/report/refs/none.json: ENOENT",
    ]);
  });

  it("refuses a broken metrics file, a capability with no routed item and dataset schema errors", async () => {
    const problems = await problemsOf(
      benchmarkFolder({
        "metrics.yaml": "report:\n  fields:\n    title: { method: cosine }\n",
        "groundtruth/qa/dock.json": [{ id: "x", query: "?", ground_truth: "y", evaluation_method: ["report"] }],
        "groundtruth/trajectory/dock.json": [{ id: "t", query: "Do it." }],
      }),
    );
    expect(problems).toContainEqual(expect.stringMatching(/^benchmark\.yaml: capabilities\[2\]\.evaluator\.metrics: metrics\.yaml: report\.fields\.title\.method/));
    expect(problems).toContain('groundtruth/qa: no item is routed to qa (expected evaluation_method to include "qa")');
    expect(problems).toContain('groundtruth/trajectory/dock.json record 0 at $[0].evaluation_method: "evaluation_method" is required: a list of evaluator ids such as ["qa", "trajectory"]');
  });
});

describe("outputs bundles", () => {
  it("accepts outputs keyed by id or as records, with reports in bundle files", async () => {
    const b = await loadBenchmark(benchmarkFolder());
    const { report, submission } = await validateBundle(folder(GOOD_OUTPUTS), b);
    expect(report.errors).toEqual([]);
    expect(report.warnings).toEqual([]);
    expect(report.valid).toBe(true);
    expect(report.summary.submittedCapabilities).toEqual(["answers", "tools", "reports"]);
    expect(report.coverage.answers).toMatchObject({ submitted: true, expected: 3, predicted: 3, missing: 0 });
    expect(submission!.outputs.get("reports")!.get("incident")!.report).toMatchObject({ ok: true, value: { title: "Near miss", Summary: { Camera: "cam-07" } } });
  });

  it("names unknown ids, wrong domain files, unreadable reports and paths out of the bundle", async () => {
    const b = await loadBenchmark(benchmarkFolder({ "groundtruth/qa/yard.json": [{ id: "yard-1", query: "?", ground_truth: "x", evaluation_method: ["qa"] }] }));
    const { report } = await validateBundle(
      folder({
        "qa/dock.json": { count: { generated_answer: "3" }, nope: { generated_answer: "?" }, "yard-1": { generated_answer: "x" } },
        "report/dock.json": { incident: { report_path: "../../secret.md" } },
        "trajectory/dock.json": [{ id: "clips", report_path: "missing.md" }],
      }),
      b,
    );
    expect(report.valid).toBe(false);
    expect(report.errors.map((e) => `${e.code} ${e.file} ${e.path}: ${e.message}`)).toEqual([
      "unknown_id qa/dock.json $.nope: id is not an item of qa",
      'wrong_domain_file qa/dock.json $["yard-1"]: item belongs to domain "yard"; expected it in yard.json',
      "bad_report report/dock.json $.incident.report_path: cannot read the report ../../secret.md: the path leads outside the bundle",
      "bad_report trajectory/dock.json $[0].report_path: cannot read the report trajectory/missing.md: not in the bundle",
    ]);
  });

  it("refuses outputs nested deeper than any real one, before scoring has to recurse into them", async () => {
    const b = await loadBenchmark(benchmarkFolder());
    // Written as text: even JSON.stringify overflows the stack on it.
    const params = `${'{"p":'.repeat(10_000)}1${"}".repeat(10_000)}`;
    const { report } = await validateBundle(folder({ "trajectory/dock.json": `{"clips":{"tool_calls":[{"step":1,"name":"search_clips","params":${params}}]}}` }), b);
    expect(report.valid).toBe(false);
    expect(report.errors).toEqual([
      expect.objectContaining({ code: "too_deep", file: "trajectory/dock.json", path: `$.clips.tool_calls[0].params${".p".repeat(60)}`, message: "value nested more than 64 levels deep; expected plain records, tool calls and answers" }),
    ]);
  });

  it("warns about files in an evaluator folder that are neither outputs nor named reports", async () => {
    const b = await loadBenchmark(benchmarkFolder());
    const { report } = await validateBundle(folder({ ...GOOD_OUTPUTS, "trajectory/run1/dock.json": [], "report/reports/draft.md": "# Draft" }), b);
    expect(report.valid).toBe(true);
    expect(report.warnings.map((w) => `${w.code} ${w.file}`)).toEqual(["ignored_file report/reports/draft.md", "ignored_file trajectory/run1/dock.json"]);
  });

  it("warns about outputs that lack what the evaluator needs", async () => {
    const b = await loadBenchmark(benchmarkFolder());
    const { report } = await validateBundle(folder({ "qa/dock.json": { count: { tool_calls: [] } } }), b);
    expect(report.valid).toBe(true);
    expect(report.warnings).toEqual([expect.objectContaining({ code: "unscorable_output", uuid: "count", message: "the output has no generated_answer; the item scores 0" })]);
    expect(report.coverage.answers).toMatchObject({ expected: 3, predicted: 1, missing: 2 });
  });
});

describe("scoring evaluator capabilities", () => {
  async function score(b: Benchmark, files: Files, grader: Grader = createRulesGrader()): Promise<{ items: ItemResult[]; byId: Map<string, ItemResult> }> {
    const { report, submission } = await validateBundle(folder(files), b);
    expect(report.errors).toEqual([]);
    const items = await scoreSubmission(b, submission!, { grader, replay: createNoReplay() });
    return { items, byId: new Map(items.map((i) => [i.uuid, i])) };
  }

  it("routes each item to its capability's evaluator and aggregates like any capability", async () => {
    const b = await loadBenchmark(benchmarkFolder());
    const { items, byId } = await score(b, GOOD_OUTPUTS);
    expect(items.map((i) => `${i.capability}/${i.uuid}`)).toEqual(["answers/count", "answers/gate", "answers/conv_1", "tools/clips", "reports/incident"]);
    expect(byId.get("count")).toMatchObject({ scorer: "qa", status: "scored", bucket: "evaluated", stage: "qa", score: 1, weight: 1, evaluation: { kind: "qa", status: "scored", judge: "rules" } });
    expect(byId.get("gate")).toMatchObject({ status: "scored", score: 0 });
    expect(byId.get("clips")).toMatchObject({ status: "scored", stage: "trajectory", score: 1, evaluation: { judge: "program" } });
    const incident = byId.get("incident")!;
    expect(incident).toMatchObject({ status: "scored", stage: "report" });
    // title and camera match exactly; vehicles "forklift" against "forklift, box truck": token F1 0.5.
    expect(incident.score).toBeCloseTo((1 + (1 + 0.5) / 2) / 2, 6);
    const { report, submission } = await validateBundle(folder(GOOD_OUTPUTS), b);
    expect(report.valid).toBe(true);
    const results = buildResults(b, submission!, items, { judge: { id: "rules" }, replay: "none", verified: false, createdAt: new Date(0) });
    expect(results.capabilities.answers).toMatchObject({ submitted: true, nItems: 3, score: (2 / 3) * 100 });
    expect(results.overall.score).toBeCloseTo(((2 / 3) * 100 + 100 + incident.score * 100) / 3, 6);
  });

  it("scores missing outputs and outputs without what the evaluator needs as 0, saying why", async () => {
    const b = await loadBenchmark(benchmarkFolder());
    const { byId } = await score(b, { "qa/dock.json": { count: { tool_calls: [] } }, "report/dock.json": { incident: { generated_answer: "no report" } } });
    expect(byId.get("count")).toMatchObject({ status: "agent_error", score: 0, stage: "qa", reason: "the output has no generated_answer" });
    expect(byId.get("gate")).toMatchObject({ status: "missing", score: 0, reason: "no output for this item" });
    expect(byId.get("incident")).toMatchObject({ status: "agent_error", score: 0, reason: "the output has no report (report or report_path)" });
    expect(byId.get("clips")).toMatchObject({ status: "missing", score: 0 });
  });

  it("gives conversation turns the agent's earlier answers and makes a judge fault a judge_error", async () => {
    const yaml = YAML.replace("    scorer: trajectory\n", "    scorer: trajectory\n    evaluator: { toolSchemas: tools.json }\n");
    const b = await loadBenchmark(
      benchmarkFolder({
        "benchmark.yaml": yaml,
        "tools.json": [{ name: "search_clips", description: "Finds clips", parameters: { type: "object", properties: { object: { type: "string" } } } }],
        "groundtruth/trajectory/dock.json": QA_GT.slice(2),
      }),
    );
    const { grader, grades: seen } = scriptedGrader({
      id: "openai:fake",
      grade: (req) => {
        if (req.kind === "qa" && req.facts.answer === "Gate A") return gaveUp("judge failed after 3 attempts: HTTP 500", "openai:fake");
        return { score: 0.75, reasoning: "plausible" };
      },
    });
    // A conversation's outputs go whole into each capability's file: the earlier turns are its history.
    const outputs = { ...GOOD_OUTPUTS, "trajectory/dock.json": { conv_1: { generated_answer: "cam-07" }, conv_2: { tool_calls: [{ step: 1, name: "search_clips", params: { object: "truck" } }] } } };
    const { byId } = await score(b, outputs, grader);
    expect(byId.get("conv_2")).toMatchObject({ capability: "tools", status: "scored", score: 0.75, evaluation: { details: { mode: "reference_free", conversation_history: [{ turn_id: "1", query: "Which camera saw the truck?", answer: "cam-07" }] } } });
    const trajectoryPrompt = seen.find((r) => r.kind === "trajectory")!.messages.map((m) => m.content).join("\n");
    expect(trajectoryPrompt).toContain("cam-07");
    expect(byId.get("gate")).toMatchObject({
      status: "judge_error",
      score: 0,
      reason: "the openai:fake judge gave no usable reply",
      detail: "judge failed after 3 attempts: HTTP 500",
      evaluation: { status: "error" },
    });
    expect(byId.get("count")).toMatchObject({ status: "scored", score: 0.75 });
  });

  it("scores waterfall and evaluator capabilities of one benchmark with one grader", async () => {
    const yaml = YAML.replace("capabilities:\n", "capabilities:\n  - id: lookups\n    label: Lookups\n    directory: capability_2_dashboard_apis\n");
    const dialogue = (answer: unknown) => ({
      uuid: "ships",
      domain: "harbor",
      additional_instructions: "",
      output: [{ turn_id: 0, query: "How many ships docked in 2020?", answer, sequence: { tool_call: [{ name: "get_docked_ships", arguments: { year: 2020 } }], tool_response: [[[42]]] } }],
    });
    const b = await loadBenchmark(benchmarkFolder({ "benchmark.yaml": yaml, "groundtruth/capability_2_dashboard_apis/harbor.json": [dialogue([[42]])] }));
    expect(b.capabilities.map((c) => `${c.spec.id}:${c.spec.scorer}`)).toEqual(["lookups:waterfall", "answers:qa", "tools:trajectory", "reports:report"]);
    const { grader, requests } = scriptedGrader({ id: "openai:fake", decide: () => true, grade: () => 0.75 });
    const outputs = { ...GOOD_OUTPUTS, "capability_2_dashboard_apis/harbor.json": [{ ...dialogue("42 ships docked in 2020."), status: "success", error: "", duration_s: 1 }] };
    const { byId } = await score(b, outputs, grader);
    // Without replay the waterfall asks the grader for correctness; the qa items ask the same grader for a score.
    expect(byId.get("ships")).toMatchObject({ scorer: "waterfall", capability: "lookups", status: "scored", stage: "correctness", score: 1 });
    const ships = byId.get("ships")!;
    expect(ships.scorer === "waterfall" && ships.verdicts.find((v) => v.stage === "correctness")).toMatchObject({ outcome: "pass", judge: "openai:fake" });
    expect(byId.get("count")).toMatchObject({ scorer: "qa", status: "scored", score: 0.75, evaluation: { judge: "openai:fake" } });
    // The report's metrics need no judge; every other capability asked this one grader.
    expect(new Set(requests.map((r) => r.kind))).toEqual(new Set(["correctness", "qa", "trajectory"]));
    expect(byId.get("clips")).toMatchObject({ scorer: "trajectory", status: "scored", score: 0.75, evaluation: { judge: "openai:fake" } });
  });
});
