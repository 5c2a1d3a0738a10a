/**
 * Calibration files (`calibration/*.jsonl`): good cases read as written; every bad line is
 * refused on its own with the file, the line, the JSON path and what was expected; the set is
 * checked against the benchmark's capabilities; and the bounds hold.
 */
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadCalibrationSet } from "@/lib/benchmark/load-calibration";
import { loadBenchmarkSpec } from "@/lib/benchmark/load-benchmark";
import { CALIBRATION_LIMITS, formatCalibrationProblem, readCalibrationCases } from "@/lib/formats/calibration-case";
import { MINI_BENCHMARK } from "../../helpers/mini-fixtures";

const FIXTURES = path.resolve(import.meta.dirname, "../../fixtures/calibration");
const bytes = (name: string) => readFileSync(path.join(FIXTURES, name));
const work = mkdtempSync(path.join(tmpdir(), "agentboard-calibration-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe("reading calibration cases", () => {
  it("reads each stage's fields as written, skipping blank lines, with where each case is", () => {
    const { cases, problems } = readCalibrationCases("calibration/mini-cases.jsonl", bytes("mini-cases.jsonl"));
    expect(problems).toEqual([]);
    expect(cases.map((c) => [c.id, c.stage, c.capability, c.label, c.line])).toEqual([
      ["sel-1", "correctness", "tool_selection", "pass", 1],
      ["sel-2", "correctness", "tool_selection", "fail", 2],
      ["multi-1", "groundedness", "multiturn", "pass", 3],
      ["multi-2", "groundedness", "multiturn", "fail", 5],
    ]);
    expect(cases[2]).toMatchObject({ evidence: ['{"berth": 2, "ship": "Aurora"}'], labelledBy: "harbor-maintainer", file: "calibration/mini-cases.jsonl" });
    expect(cases[2]).not.toHaveProperty("reference");
  });

  it("refuses each bad line alone, naming file, line, JSON path and what was expected", () => {
    const seen = new Map<string, string>();
    readCalibrationCases("calibration/mini-cases.jsonl", bytes("mini-cases.jsonl"), seen);
    const { cases, problems } = readCalibrationCases("calibration/bad-cases.jsonl", bytes("bad-cases.jsonl"), seen);
    const lines = problems.map(formatCalibrationProblem);
    expect(lines).toEqual([
      'calibration/bad-cases.jsonl:1: $.label: expected "pass", "fail" or a score from 0 to 1, found "maybe"',
      "calibration/bad-cases.jsonl:2: $.evidence: the correctness judge does not read evidence: remove it",
      "calibration/bad-cases.jsonl:3: $.evidence[1]: expected each piece of evidence as a string, found a number",
      expect.stringMatching(/^calibration\/bad-cases\.jsonl:4: not JSON \(.+\); expected one case as a JSON object on the line$/),
      'calibration/bad-cases.jsonl:5: $.id: the case id "sel-1" is used twice (first at calibration/mini-cases.jsonl:1); every case needs its own id',
      "calibration/bad-cases.jsonl:6: $.reference[0].params: expected the parameters as an object, found a string",
      'calibration/bad-cases.jsonl:7: $: Unrecognized key: "note"',
    ]);
    // Line 8 is well formed (its capability is the benchmark's to check).
    expect(cases.map((c) => c.id)).toEqual(["b-8"]);
  });

  it("holds each stage to the fields its judge reads and the labels it answers", () => {
    const line = (o: Record<string, unknown>) => new TextEncoder().encode(JSON.stringify({ id: "x", capability: "c", question: "q", labelledBy: "me", ...o }));
    const problemsOf = (o: Record<string, unknown>) => readCalibrationCases("f.jsonl", line(o)).problems.map((p) => p.message);
    expect(problemsOf({ stage: "groundedness", answer: "a", label: "pass" })).toEqual(["$.evidence: the groundedness judge reads evidence (a list of strings, possibly empty): it is required"]);
    expect(problemsOf({ stage: "groundedness", answer: "a", evidence: [], reference: "r", label: "pass" })).toEqual(["$.reference: the groundedness judge does not read a reference: remove it"]);
    expect(problemsOf({ stage: "correctness", answer: "a", reference: "r", label: 0.5 })).toEqual(['$.label: the correctness judge answers pass or fail: label it "pass" or "fail", not a score']);
    expect(problemsOf({ stage: "qa", answer: "a", reference: "r", label: 1.5 })).toEqual(["$.label: expected a score label from 0 to 1"]);
    expect(problemsOf({ stage: "qa", reference: "r", label: 1 })).toEqual(["$.answer: the answer is required"]);
    expect(problemsOf({ stage: "trajectory", answer: "call it", reference: [], label: 1 })).toEqual(["$.answer: expected the agent's tool calls as a list of {step, name, params}, found a string"]);
    expect(problemsOf({ stage: "qa", answer: { a: 1 }, reference: "r", label: 1 })).toEqual(["$.answer: expected a string, number, boolean or a list of them, found an object"]);
    expect(problemsOf({ stage: "judging", answer: "a", label: 1 })).toEqual(['$.stage: expected the stage as one of "correctness", "groundedness", "qa", "trajectory", "report_field"']);
    // Every stage's well-formed case reads.
    expect(problemsOf({ stage: "qa", answer: "a", reference: "r", label: 0.25 })).toEqual([]);
    expect(problemsOf({ stage: "report_field", answer: "a", reference: "r", label: "fail" })).toEqual([]);
    expect(problemsOf({ stage: "trajectory", answer: [{ name: "get_x", params: { id: 1 } }], reference: [{ step: 1, name: "get_x", params: { id: 1 } }], label: 1 })).toEqual([]);
  });

  it("bounds a file, a line and the evidence", () => {
    const big = new Uint8Array(CALIBRATION_LIMITS.fileBytes + 1);
    expect(readCalibrationCases("big.jsonl", big).problems.map(formatCalibrationProblem)).toEqual([`big.jsonl: the file is ${CALIBRATION_LIMITS.fileBytes + 1} bytes; a calibration file may hold at most ${CALIBRATION_LIMITS.fileBytes} bytes (split it)`]);
    const long = new TextEncoder().encode(`{"id": "${"x".repeat(CALIBRATION_LIMITS.lineChars)}"}`);
    expect(readCalibrationCases("long.jsonl", long).problems[0]!.message).toMatch(/^the line is \d+ characters; a case may take at most 1048576$/);
    const many = JSON.stringify({ id: "e", stage: "groundedness", capability: "c", question: "q", answer: "a", evidence: Array.from({ length: CALIBRATION_LIMITS.evidence + 1 }, () => "x"), label: "pass", labelledBy: "me" });
    expect(readCalibrationCases("e.jsonl", new TextEncoder().encode(many)).problems[0]!.message).toBe(`$.evidence: expected at most ${CALIBRATION_LIMITS.evidence} pieces of evidence`);
    expect(readCalibrationCases("bin.jsonl", new Uint8Array([0x7b, 0xff, 0x7d])).problems[0]!.message).toBe("the file is not valid UTF-8; expected one JSON object per line, UTF-8 encoded");
  });
});

describe("a benchmark's calibration set", () => {
  it("reads calibration/*.jsonl in name order and checks each case's capability and stage against the benchmark", async () => {
    const root = path.join(work, "bench");
    cpSync(MINI_BENCHMARK, root, { recursive: true });
    mkdirSync(path.join(root, "calibration"));
    cpSync(path.join(FIXTURES, "mini-cases.jsonl"), path.join(root, "calibration/a.jsonl"));
    writeFileSync(
      path.join(root, "calibration/b.jsonl"),
      [
        { id: "q-1", stage: "qa", capability: "tool_selection", question: "q", reference: "r", answer: "a", label: 1, labelledBy: "me" },
        { id: "c-9", stage: "correctness", capability: "cranes", question: "q", reference: "r", answer: "a", label: "pass", labelledBy: "me" },
      ]
        .map((o) => JSON.stringify(o))
        .join("\n"),
    );
    writeFileSync(path.join(root, "calibration/notes.txt"), "not read");
    const { spec } = await loadBenchmarkSpec(root);
    const set = await loadCalibrationSet(root, spec);
    expect(set.files).toEqual(["calibration/a.jsonl", "calibration/b.jsonl"]);
    expect(set.cases.map((c) => c.id)).toEqual(["sel-1", "sel-2", "multi-1", "multi-2"]);
    expect(set.problems.map(formatCalibrationProblem)).toEqual([
      'calibration/b.jsonl:1: $.stage: capability "tool_selection" is scored by the waterfall, which never asks a qa judge; expected "correctness" or "groundedness"',
      'calibration/b.jsonl:2: $.capability: the benchmark has no capability "cranes"; expected one of "tool_selection", "multiturn"',
    ]);
  });

  it("says how to start when the benchmark has none", async () => {
    const set = await loadCalibrationSet(MINI_BENCHMARK, (await loadBenchmarkSpec(MINI_BENCHMARK)).spec);
    expect(set.problems.map(formatCalibrationProblem)).toEqual(["calibration: the benchmark has no calibration/ folder: add labelled judge cases as calibration/*.jsonl (docs/judges.md)"]);
  });
});
