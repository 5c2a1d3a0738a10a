/** Reading evaluation datasets and outputs: schema errors with paths, multi-turn expansion, files. */
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { DiagnosticSink, formatDiagnostic } from "@/lib/formats/diagnostic";
import { readEvalDataset } from "@/lib/formats/eval-dataset";
import { loadEvalDataset } from "@/lib/formats/eval-load";
import { readOutputsFile } from "@/lib/formats/eval-outputs";

const work = mkdtempSync(path.join(tmpdir(), "agentboard-evalds-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function read(value: unknown) {
  const sink = new DiagnosticSink("dataset.json");
  const drafts = readEvalDataset(value, sink);
  return { drafts, messages: sink.items.map(formatDiagnostic) };
}

function write(rel: string, content: unknown): string {
  const file = path.join(work, rel);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, typeof content === "string" ? content : JSON.stringify(content));
  return file;
}

describe("dataset schema", () => {
  it("reads single-turn items with their routing and reference calls", () => {
    const { drafts, messages } = read([
      { id: 7, query: "q", ground_truth: 3, evaluation_method: ["qa", "trajectory"], trajectory_ground_truth: [{ step: 1, name: "a", params: { x: 1 } }, { name: "b" }] },
    ]);
    expect(messages).toEqual([]);
    expect(drafts).toEqual([
      {
        id: "7",
        // NAT writes a numeric id back as a number, and reads a non-string ground truth as Python does.
        numericId: 7,
        query: "q",
        groundTruth: "3",
        groundTruthRaw: 3,
        methods: ["qa", "trajectory"],
        // A call without a step follows the one before it.
        trajectoryGroundTruth: [{ step: 1, name: "a", params: { x: 1 } }, { step: 2, name: "b", params: {} }],
        // As written, for NAT's expected_tool_calls and workflow_output.json.
        trajectoryGroundTruthRaw: [{ step: 1, name: "a", params: { x: 1 } }, { name: "b" }],
        conversation: null,
        inlineOutput: null,
        path: "$[0]",
        record: { id: 7, query: "q", ground_truth: 3, evaluation_method: ["qa", "trajectory"], trajectory_ground_truth: [{ step: 1, name: "a", params: { x: 1 } }, { name: "b" }] },
      },
    ]);
  });

  it("names file, record and JSON path for every schema error, and drops nothing silently", () => {
    const { drafts, messages } = read([
      { id: "a", query: "q", evaluation_method: ["qa"] },
      { id: "a", query: "q2", evaluation_method: ["qa"] },
      { id: "b", query: "q3" },
      { id: "c", query: "q4", evaluation_method: "qa" },
      { id: "d", query: "[multi-turn]", conversation: [{ turn_id: "t1", query: "hi", evaluation_method: ["qa"] }, { turn_id: "t2", evaluation_method: ["qa"] }] },
      { id: "e", query: " ", evaluation_method: [] },
      { query: "no id", evaluation_method: ["qa"] },
      { id: "f", conversation: [{ query: "x" }] },
      { id: "g", conversation: [] },
      { id: "h", query: "q", evaluation_method: ["qa"], trajectory_ground_truth: [{ step: -1, name: "x" }, { params: [] }] },
      "not an object",
    ]);
    expect(drafts.map((d) => d.id)).toEqual(["a"]);
    expect(messages).toEqual([
      'dataset.json record 1 at $[1].id: id "a" appears twice (first at $[0]); every item and expanded turn needs its own id',
      'dataset.json record 2 at $[2].evaluation_method: "evaluation_method" is required: a list of evaluator ids such as ["qa", "trajectory"]',
      "dataset.json record 3 at $[3].evaluation_method: expected a list of evaluator ids, found a string",
      "dataset.json record 4 at $[4].conversation[1].query: a turn needs a query",
      'dataset.json record 5 at $[5].query: a single-turn entry needs a non-empty "query"',
      "dataset.json record 5 at $[5].evaluation_method: expected at least one evaluator id",
      "dataset.json record 6 at $[6].id: expected a non-empty string or number id, found nothing",
      'dataset.json record 7 at $[7].conversation[0].evaluation_method: "evaluation_method" is required on each turn (or on the entry, besides "multi_turn"): a list of evaluator ids such as ["qa"]',
      'dataset.json record 8 at $[8].conversation: a multi-turn entry needs at least one turn in "conversation"',
      'dataset.json record 9 at $[9].trajectory_ground_truth[0].step: expected "step" to be a non-negative integer, found a number',
      'dataset.json record 9 at $[9].trajectory_ground_truth[1].name: a tool call needs a non-empty "name"',
      "dataset.json record 10 at $[10]: expected a dataset entry object, found a string",
    ]);
  });

  it("refuses a file that is not a list", () => {
    expect(read({ id: "a" }).messages).toEqual(["dataset.json at $: expected a JSON array of dataset entries, found an object"]);
  });

  it("expands a conversation into {id}_{turn_id} items, numbering turns without an id", () => {
    const { drafts, messages } = read([
      {
        id: "conv",
        query: "[multi-turn]",
        evaluation_method: ["multi_turn", "qa"],
        conversation: [{ query: "first", ground_truth: "A" }, { turn_id: 7, query: "second", evaluation_method: ["trajectory"], trajectory_ground_truth: [] }],
      },
    ]);
    expect(messages).toEqual([]);
    expect(drafts.map((d) => [d.id, d.query, d.methods, d.conversation])).toEqual([
      // The first turn inherits the entry's methods, minus the multi_turn marker.
      ["conv_turn_1", "first", ["qa"], { id: "conv", turnId: "turn_1", index: 0, turnCount: 2 }],
      ["conv_7", "second", ["trajectory"], { id: "conv", turnId: "7", index: 1, turnCount: 2 }],
    ]);
    expect(drafts[0]!.path).toBe("$[0].conversation[0]");
  });

  it("rejects an expanded id that collides with another item, and a repeated turn_id", () => {
    const { messages } = read([
      { id: "c_t1", query: "q", evaluation_method: ["qa"] },
      { id: "c", conversation: [{ turn_id: "t1", query: "x", evaluation_method: ["qa"] }] },
      { id: "d", conversation: [{ turn_id: "t", query: "x", evaluation_method: ["qa"] }, { turn_id: "t", query: "y", evaluation_method: ["qa"] }] },
    ]);
    expect(messages).toEqual([
      'dataset.json record 1 at $[1].conversation[0]: id "c_t1" appears twice (first at $[0]); every item and expanded turn needs its own id',
      'dataset.json record 2 at $[2].conversation[1].turn_id: turn_id "t" appears twice in this conversation (first at $[2].conversation[0])',
    ]);
  });
});

describe("outputs", () => {
  it("reads outputs keyed by id, or NAT records where only generated_answer is the agent's", () => {
    const sink = new DiagnosticSink("outputs.json");
    const keyed = readOutputsFile({ a: { answer: "A", tool_calls: [{ function: { name: "f", arguments: '{"x": 1}' } }] }, b: {} }, sink);
    expect(keyed.get("a")).toMatchObject({ answer: "A", toolCalls: [{ step: 1, name: "f", params: { x: 1 } }] });
    expect(keyed.get("b")).toMatchObject({ answer: null, toolCalls: null, events: null });
    const nat = readOutputsFile([{ id: 1, question: "q", answer: "reference", generated_answer: null, intermediate_steps: [] }], sink);
    expect(nat.get("1")).toMatchObject({ answer: null, events: [] });
    expect(sink.items).toEqual([]);
  });

  it("reports bad outputs at their path", () => {
    const sink = new DiagnosticSink("outputs.json");
    readOutputsFile([{ id: "a", generated_answer: {} }, { generated_answer: "x" }, { id: "a", report: 3 }, { id: "c", report: {}, report_path: "r.md" }, { id: "c", tool_calls: "x" }], sink);
    expect(sink.items.map(formatDiagnostic)).toEqual([
      "outputs.json record 0 at $[0].generated_answer: expected the generated answer as a string, found an object",
      'outputs.json record 1 at $[1].id: expected each output record to carry its item\'s "id", found nothing',
      "outputs.json record 2 at $[2].report: expected the report as a JSON object or a markdown string, found a number",
      'outputs.json record 3 at $[3].report_path: give "report" or "report_path", not both',
      "outputs.json record 4 at $[4].tool_calls: expected a list of tool calls, found a string",
    ]);
  });
});

describe("loading from disk", () => {
  it("joins outputs, reads reports and references, and builds each turn's history", async () => {
    const dataset = write("ds/dataset.json", [
      { id: "r1", query: "report", ground_truth: "refs/r1.json", evaluation_method: ["report"] },
      { id: "r2", query: "report", ground_truth: "refs/missing.json", evaluation_method: ["report"] },
      { id: "q1", query: "q", ground_truth: "x", evaluation_method: ["qa"], generated_answer: "inline" },
      { id: "conv", query: "[multi-turn]", conversation: [{ query: "one", evaluation_method: ["qa"] }, { query: "two", evaluation_method: ["qa"] }, { query: "three", evaluation_method: ["qa"] }] },
    ]);
    write("ds/refs/r1.json", { title: "T" });
    write("out/reports/r1.md", "# T\n## S\n| k | v |");
    const outputs = write("out/outputs.json", {
      r1: { report_path: "reports/r1.md", timestamps: [1, 2] },
      r2: { report: '{"title": "inline json string"}' },
      conv_turn_1: { generated_answer: "<agent-think>hmm</agent-think>first answer" },
      conv_turn_3: { generated_answer: "third" },
      stray: { generated_answer: "?" },
    });
    const r = await loadEvalDataset({ datasetFile: dataset, outputsFile: outputs, reportMethods: new Set(["report"]), displayName: (f) => path.relative(work, f) });
    expect(r.errorCount).toBe(0);
    expect(r.diagnostics.map(formatDiagnostic)).toEqual(['out/outputs.json at $.stray: outputs for id "stray" match no dataset item or turn; ignored']);
    const byId = new Map(r.items.map((i) => [i.id, i]));
    expect(byId.get("r1")!.referenceReport).toEqual({ ok: true, value: { title: "T" }, source: "ds/refs/r1.json" });
    expect(byId.get("r1")!.output!.report).toEqual({ ok: true, value: { title: "T", S: { k: "v" } }, source: "out/reports/r1.md", markdown: "# T\n## S\n| k | v |" });
    expect(byId.get("r2")!.referenceReport).toEqual({ ok: false, error: "cannot read the reference report ds/refs/missing.json: ENOENT", source: "ds/refs/missing.json" });
    expect(byId.get("r2")!.output!.report).toEqual({ ok: true, value: { title: "inline json string" }, source: "inline JSON" });
    expect(byId.get("q1")!.output!.answer).toBe("inline");
    expect(byId.get("q1")!.referenceReport).toBeNull();
    expect(byId.get("conv_turn_1")!.history).toEqual([]);
    expect(byId.get("conv_turn_2")!.output).toBeNull();
    // Think blocks are dropped from the history; a turn without output contributes an empty answer.
    expect(byId.get("conv_turn_3")!.history).toEqual([
      { turnId: "turn_1", query: "one", answer: "first answer" },
      { turnId: "turn_2", query: "two", answer: "" },
    ]);
  });

  it("reads JSON Lines, and reports syntax errors with line and column", async () => {
    const jsonl = write("lines.jsonl", '{"id": "a", "query": "q", "evaluation_method": ["qa"]}\n\n{"id": "b", "query": "q", "evaluation_method": ["qa"]}\n');
    const ok = await loadEvalDataset({ datasetFile: jsonl, reportMethods: new Set() });
    expect(ok.items.map((i) => i.id)).toEqual(["a", "b"]);
    const broken = write("broken.json", '[{"id": "a",\n  "query": }]');
    const bad = await loadEvalDataset({ datasetFile: broken, reportMethods: new Set(), displayName: () => "broken.json" });
    expect(bad.errorCount).toBe(1);
    expect(formatDiagnostic(bad.diagnostics[0]!)).toBe("broken.json: invalid JSON at line 2, column 12 (offset 24): expected a value (string, number, object, array, true, false or null), found \"}]\"");
    const badLines = write("bad.jsonl", '{"id": "a"}\n{"id": \n');
    const bl = await loadEvalDataset({ datasetFile: badLines, reportMethods: new Set(), displayName: () => "bad.jsonl" });
    expect(bl.diagnostics.map(formatDiagnostic)[0]).toMatch(/^bad\.jsonl record 1: line 2: invalid JSON at line 1, column 8/);
  });

  it("says so when a markdown report holds nothing", async () => {
    const dataset = write("empty/dataset.json", [{ id: "r", query: "q", ground_truth: "ref.json", evaluation_method: ["report"], report: "just\n\n" }]);
    write("empty/ref.json", { a: 1 });
    const r = await loadEvalDataset({ datasetFile: dataset, reportMethods: new Set(["report"]) });
    expect(r.items[0]!.output!.report).toMatchObject({ ok: true, value: { text: "just" } });
    const d2 = write("empty2/dataset.json", [{ id: "r", query: "q", ground_truth: "ref.json", evaluation_method: ["report"], report: "<img src=x>" }]);
    const r2 = await loadEvalDataset({ datasetFile: d2, reportMethods: new Set(["report"]) });
    expect(r2.items[0]!.output!.report).toEqual({ ok: false, error: "the markdown report (inline markdown) has no title, sections or fields", source: "inline markdown" });
  });
});
