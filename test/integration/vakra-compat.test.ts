/**
 * compat: vakra reproduces VAKRA's scorer item by item. Each case is a hand-made VAKRA-shaped
 * record written as JSON text (so `314328.0` stays what the file says), scored through the
 * engine's one entry point with the bundle's own responses, and checked against the value
 * VAKRA's rules give (docs/vakra.md, "Differences from VAKRA"; every record is inline, nothing is read from outside the repository).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadBenchmark } from "@/lib/benchmark/load-benchmark";
import { createRecordedReplay } from "@/lib/replay/recorded-replay";
import type { WaterfallItemResult } from "@/lib/scoring/item-result";
import { scoreBundle } from "@/lib/aggregate/score-bundle";
import { buildVakraOutputs } from "@/lib/scoring/vakra-output";
import { scriptedGrader, type StageRequest } from "../helpers/scripted-grader";

const tmp = mkdtempSync(path.join(tmpdir(), "agentboard-vakra-compat-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const CAP2 = "capability_2_dashboard_apis";
const CAP4 = "capability_4_multiturn";

interface Case {
  compat?: "strict" | "vakra";
  /** Ground-truth records of `d.json`, as JSON text. */
  groundTruth: string;
  /** Prediction records of `d.json`, as JSON text. */
  prediction: string;
  /** `input/<cap>/d.json`, as JSON text. */
  input?: string;
  capability?: typeof CAP2 | typeof CAP4;
  extraYaml?: string;
  decide?: (req: StageRequest) => boolean;
}

let n = 0;
async function score(c: Case) {
  const dir = path.join(tmp, `case-${n++}`);
  const cap = c.capability ?? CAP2;
  const write = (rel: string, text: string) => {
    mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    writeFileSync(path.join(dir, rel), text);
  };
  const capYaml =
    cap === CAP2
      ? `  - { id: tool_selection, label: Tool selection, directory: ${CAP2} }`
      : `  - { id: multiturn, label: Multi-turn, directory: ${CAP4}, policies: true }`;
  write(
    "bench/benchmark.yaml",
    `slug: t\ntitle: T\nversion: "1"\ncompat: ${c.compat ?? "vakra"}\n${c.extraYaml ?? ""}capabilities:\n${capYaml}\npolicyTable:\n  - text: "Do not use document retrievers."\n    denyTools: ["query_*"]\n`,
  );
  write(`bench/groundtruth/${cap}/d.json`, c.groundTruth);
  if (c.input) write(`bench/input/${cap}/d.json`, c.input);
  write(`bundle/${cap}/d.json`, c.prediction);
  const benchmark = await loadBenchmark(path.join(dir, "bench"));
  const judge = scriptedGrader({ decide: c.decide ?? (() => true) });
  const out = await scoreBundle(benchmark, path.join(dir, "bundle"), { grader: judge.grader, replay: createRecordedReplay() });
  if (out.kind !== "scored") throw new Error(`not scored: ${JSON.stringify(out.report.errors.slice(0, 3))}`);
  const item = out.results.items[0] as WaterfallItemResult;
  const stage = (s: string) => item.verdicts.find((v) => v.stage === s);
  const asked = <K extends StageRequest["kind"]>(kind: K) => judge.decisions.filter((d): d is Extract<StageRequest, { kind: K }> => d.kind === kind);
  return { item, stage, asked, benchmark, submission: out.submission, results: out.results };
}

/** A ground-truth record: one turn whose responses and answer are JSON text. */
const gt = (responses: string, answer = '"x"', turns = "") =>
  `[{"uuid": "u1", "domain": "d", "output": [${turns}{"turn_id": 9, "query": "How many Rows?", "answer": ${answer}, "sequence": {"tool_call": [{"name": "get_rows", "arguments": {}}], "tool_response": ${responses}}}]}]`;
const pred = (responses: string, answer = '"x"', status = "success") =>
  `[{"uuid": "u1", "domain": "d", "status": "${status}", "error": "", "duration_s": 1.0, "output": [{"turn_id": 9, "query": "How many Rows?", "answer": ${answer}, "sequence": {"tool_call": [{"name": "get_rows", "arguments": {}}], "tool_response": ${responses}}}]}]`;

async function exact(compat: "strict" | "vakra", gtResponses: string, predResponses: string) {
  const { stage } = await score({ compat, groundTruth: gt(gtResponses), prediction: pred(predResponses) });
  return stage("exact")!.outcome;
}

describe("exact match compares Python's str() of each response (compat: vakra)", () => {
  it("keeps a float written 314328.0 apart from the integer 314328", async () => {
    expect(await exact("vakra", "[[[314328.0]]]", "[[[314328]]]")).toBe("fail");
    expect(await exact("vakra", "[[[314328.0]]]", "[[[314328.0]]]")).toBe("pass");
    // Strict mode compares values, as it always has.
    expect(await exact("strict", "[[[314328.0]]]", "[[[314328]]]")).toBe("pass");
  });

  it("keeps integers beyond 2^53 apart, in both modes", async () => {
    for (const compat of ["vakra", "strict"] as const) {
      expect(await exact(compat, '[{"id": 9007199254740993}]', '[{"id": 9007199254740992}]')).toBe("fail");
      expect(await exact(compat, '[{"id": 9007199254740993}]', '[{"id": 9007199254740993}]')).toBe("pass");
    }
  });

  it("keeps the file's key order, integer-like keys included", async () => {
    expect(await exact("vakra", '[{"2": "b", "1": "a"}]', '[{"1": "a", "2": "b"}]')).toBe("fail");
    expect(await exact("vakra", '[{"2": "b", "1": "a"}]', '[{"2": "b", "1": "a"}]')).toBe("pass");
    expect(await exact("strict", '[{"2": "b", "1": "a"}]', '[{"1": "a", "2": "b"}]')).toBe("pass");
  });

  it("renders None as the empty string, not 'None'", async () => {
    expect(await exact("vakra", "[null]", '[""]')).toBe("pass");
    expect(await exact("vakra", "[null]", '["None"]')).toBe("fail");
  });

  it("renders floats of 1e13 and more with their shortest digits, and escapes as repr does", async () => {
    expect(await exact("vakra", "[[-29742088339035.062]]", '["[-29742088339035.062]"]')).toBe("pass");
    expect(await exact("vakra", '[["a\\u00a0b"]]', `["['a\\\\xa0b']"]`)).toBe("pass");
    expect(await exact("vakra", '[["a\\u200bb", "c\\u2028d"]]', `["['a\\\\u200bb', 'c\\\\u2028d']"]`)).toBe("pass");
  });
});

describe("what VAKRA's judges are sent", () => {
  const correctnessReference = async (answer: string) => {
    const r = await score({ groundTruth: gt("[[[1]]]", answer), prediction: pred("[[[2]]]", '"something else"') });
    return r.asked("correctness")[0]!.reference;
  };

  it("stringifies reference answers as _stringify_answer does", async () => {
    expect(await correctnessReference("[[null]]")).toBe("none");
    expect(await correctnessReference("[[25.0]]")).toBe("25.0");
    expect(await correctnessReference("[[[1.25]]]")).toBe("[1.25]");
    expect(await correctnessReference('[["Ada", 3], ["Bo", 4]]')).toBe("ada, bo");
    expect(await correctnessReference("[[true], []]")).toBe("true");
    expect(await correctnessReference("25.0")).toBe("25.0");
  });

  it("sends the question, reference and prediction lower-cased with whitespace collapsed", async () => {
    const r = await score({ groundTruth: gt("[[[1]]]", '"  Blue\\n\\tHeron "'), prediction: pred("[[[2]]]", '"The  BLUE Heron"') });
    const req = r.asked("correctness")[0]!;
    expect([req.question, req.reference, req.answer]).toEqual(["how many rows?", "blue heron", "the blue heron"]);
  });

  it("passes an empty answer against an empty reference without asking the judge", async () => {
    const r = await score({ groundTruth: gt("[[[1]]]", '""'), prediction: pred("[[[2]]]", "null") });
    expect(r.asked("correctness")).toHaveLength(0);
    expect(r.stage("correctness")!.outcome).toBe("pass");
    expect(r.item.score).toBe(1); // grounded by the scripted judge
    const strict = await score({ compat: "strict", groundTruth: gt("[[[1]]]", '""'), prediction: pred("[[[2]]]", "null"), decide: () => false });
    expect(strict.asked("correctness")).toHaveLength(1);
    expect(strict.item.score).toBe(0);
  });

  it("never cuts the groundedness evidence; strict mode cuts it to its limit and says so", async () => {
    const long = JSON.stringify(`Heron ${"filler ".repeat(5_000)}`); // the fact is at the start of a 35,000-character response
    const responses = `[${long}, "short"]`;
    const vakra = await score({ groundTruth: gt(responses), prediction: pred(responses) });
    const sent = vakra.asked("groundedness")[0]!.evidence;
    expect(sent.join("").length).toBeGreaterThan(35_000);
    expect(sent[0]!.startsWith("heron filler")).toBe(true);
    expect(vakra.stage("groundedness")!.reason).not.toContain("truncated");

    const strict = await score({ compat: "strict", groundTruth: gt(responses), prediction: pred(responses), extraYaml: "evidenceMaxChars: 1000\n" });
    const cut = strict.asked("groundedness")[0]!.evidence;
    expect(cut.join("").length).toBeLessThan(1_100);
    expect(cut.at(-1)).toBe("short");
    expect(strict.stage("groundedness")!.reason).toContain("evidence truncated");
  });

  it("reads str(None) as 'none' in the groundedness evidence", async () => {
    const r = await score({ groundTruth: gt("[null]"), prediction: pred('[null, {"Name": "Ada"}]') });
    expect(r.asked("groundedness")[0]!.evidence).toEqual(["none", "{'name': 'ada'}"]);
  });
});

describe("records VAKRA scores that strict mode does not", () => {
  it("scores a status: error record with a valid turn under compat", async () => {
    const vakra = await score({ groundTruth: gt("[[[1]]]"), prediction: pred("[[[1]]]", '"x"', "error") });
    expect(vakra.item.status).toBe("scored");
    expect(vakra.item.score).toBe(1);
    const strict = await score({ compat: "strict", groundTruth: gt("[[[1]]]"), prediction: pred("[[[1]]]", '"x"', "error") });
    expect(strict.item.status).toBe("agent_error");
    expect(strict.item.score).toBe(0);
  });

  it("reads fields VAKRA ignores or tolerates instead of dropping the record", async () => {
    const record = (fields: string) =>
      `[{"uuid": "u1", "domain": "d", "status": "success", ${fields}, "output": [{"turn_id": 9, "query": "q", "sequence": {"tool_call": [{"name": "get_rows", "arguments": {}}], "tool_response": {"not": "a list"}}}]}]`;
    const r = await score({ groundTruth: gt("[[[1]]]", '""'), prediction: record('"error": 3, "duration_s": "slow"') });
    // No answer is "", a non-list tool_response is no responses: exact match fails, empty meets empty.
    expect(r.item.status).toBe("scored");
    expect(r.stage("exact")!.outcome).toBe("fail");
    expect(r.stage("correctness")!.outcome).toBe("pass");
    expect(r.item.score).toBe(1);
  });

  it("reads an object answer as its Python str()", async () => {
    const r = await score({ groundTruth: gt("[[[1]]]", '[{"b": 2, "a": 1.0}]'), prediction: pred("[[[2]]]", '{"n": null}') });
    const req = r.asked("correctness")[0]!;
    expect([req.reference, req.answer]).toEqual(["{'b': 2, 'a': 1.0}", "{'n': none}"]);
  });

  it("reads a dialogue's policy from input/ when the ground truth has none", async () => {
    const calls = '{"tool_call": [{"name": "query_docs", "arguments": {"question": "q"}}], "tool_response": [["chunk"]]}';
    const groundTruth = `[{"uuid": "u1", "domain": "d", "output": [{"turn_id": 0, "query": "q", "answer": "a", "sequence": ${calls}}]}]`;
    const prediction = `[{"uuid": "u1", "domain": "d", "status": "success", "error": "", "duration_s": 1, "output": [{"turn_id": 0, "query": "q", "answer": "a", "sequence": ${calls}}]}]`;
    const input = `[{"uuid": "u1", "domain": "d", "num_turns": 1, "dialogue": {"turns": [{"turn_id": 0, "query": "q"}]}, "additional_instructions": "Do not use document retrievers."}]`;
    const withInput = await score({ capability: CAP4, groundTruth, prediction, input });
    expect(withInput.stage("policy")!.outcome).toBe("fail");
    expect(withInput.benchmark.warnings.map((w) => w.code)).toContain("policy_from_input");
    const without = await score({ capability: CAP4, groundTruth, prediction });
    expect(without.stage("policy")!.outcome).toBe("skipped");
  });
});

describe("--vakra-out", () => {
  it("counts the ground truth's turns and writes pred_answer as VAKRA stringifies it", async () => {
    const earlier = '{"turn_id": 7, "query": "first", "answer": "a", "sequence": {"tool_call": []}}, {"turn_id": 8, "query": "second", "answer": "b", "sequence": {"tool_call": []}}, ';
    const r = await score({ groundTruth: gt("[[[1]]]", "[[3]]", earlier), prediction: pred("[[[1]]]", "[[3.0], [4]]") });
    const [file] = buildVakraOutputs(r.benchmark, r.submission, r.results.items, { groundTruthDir: (d) => `g/${d}`, bundle: "p" });
    const dialogue = (file!.document as { domains: Record<string, { dialogues: { details: { num_turns: number; per_turn: { pred_answer: unknown }[] } }[] }> }).domains.d!.dialogues[0]!;
    expect(dialogue.details.num_turns).toBe(3);
    expect(dialogue.details.per_turn[0]!.pred_answer).toBe("3.0, 4");
  });
});
