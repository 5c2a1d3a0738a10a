/**
 * The validator's checks on crafted folder bundles, against a small crafted benchmark
 * written to a temp dir.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadBenchmark, type Benchmark } from "../../../lib/benchmark/load-benchmark";
import type { Diagnostic } from "../../../lib/formats/diagnostic";
import { renderReportMarkdown } from "../../../lib/validate/report";
import { validateBundle } from "../../../lib/validate/validate-bundle";

const CAP1 = "capability_1_bi_apis";
const CAP2 = "capability_2_dashboard_apis";
const CAP4 = "capability_4_multiturn";

const BENCHMARK_YAML = `
slug: tiny
title: Tiny benchmark
version: 3
capabilities:
  - id: api_chaining
    label: API chaining
    directory: ${CAP1}
  - id: tool_selection
    label: Tool selection
    directory: ${CAP2}
  - id: multiturn
    label: Multi-turn
    directory: ${CAP4}
    policies: true
    weights: { multiSource: 2 }
`;

type Json = Record<string, unknown>;

function gtRecord(uuid: string, domain: string, turnIds: number[] = [0]): Json {
  return {
    uuid,
    domain,
    additional_instructions: "",
    output: turnIds.map((turn_id) => ({
      turn_id,
      query: `question ${turn_id} of ${uuid}`,
      answer: "42",
      sequence: { tool_call: [{ name: "get_answer", arguments: { id: uuid } }], tool_response: [42] },
    })),
  };
}

function pred(uuid: string, domain: string, overrides: Json = {}, turnId = 0): Json {
  return {
    uuid,
    domain,
    status: "success",
    error: "",
    duration_s: 1.5,
    output: [{ turn_id: turnId, query: "q", answer: "42", sequence: { tool_call: [{ name: "get_answer", arguments: { id: uuid } }] } }],
    ...overrides,
  };
}

/** A prediction whose single turn is replaced by `turn`. */
function predTurn(uuid: string, domain: string, turn: Json): Json {
  return pred(uuid, domain, { output: [{ turn_id: 0, query: "q", answer: "42", ...turn }] });
}

let root: string;
let benchmark: Benchmark;
let counter = 0;

function write(file: string, content: string | Buffer): void {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, content);
}

/** Writes a bundle folder: keys are bundle paths, values JSON-serialised unless strings/Buffers. */
function bundle(files: Record<string, unknown>): string {
  const dir = path.join(root, "bundles", `b${++counter}`);
  mkdirSync(dir, { recursive: true });
  for (const [rel, value] of Object.entries(files)) {
    write(path.join(dir, rel), typeof value === "string" || Buffer.isBuffer(value) ? value : JSON.stringify(value, null, 2));
  }
  return dir;
}

const codes = (ds: readonly Diagnostic[]) => ds.map((d) => d.code);

beforeAll(async () => {
  root = mkdtempSync(path.join(tmpdir(), "agentboard-checks-"));
  const bench = path.join(root, "benchmark");
  write(path.join(bench, "benchmark.yaml"), BENCHMARK_YAML);
  write(path.join(bench, "groundtruth", CAP1, "alpha.json"), JSON.stringify([gtRecord("a1", "alpha"), gtRecord("a2", "alpha"), gtRecord("a3", "alpha")]));
  write(path.join(bench, "groundtruth", CAP1, "beta.json"), JSON.stringify([gtRecord("b1", "beta"), gtRecord("b2", "beta")]));
  write(path.join(bench, "groundtruth", CAP2, "alpha.json"), JSON.stringify([gtRecord("t1", "alpha")]));
  write(path.join(bench, "groundtruth", CAP4, "gamma.json"), JSON.stringify([gtRecord("m1", "gamma", [0, 1])]));
  benchmark = await loadBenchmark(bench);
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("crafted benchmark", () => {
  it("loads from benchmark.yaml", () => {
    expect(benchmark.spec.slug).toBe("tiny");
    expect(benchmark.spec.version).toBe("3");
    expect(benchmark.capabilities.map((c) => [c.spec.id, [...c.domains.keys()]])).toEqual([
      ["api_chaining", ["alpha", "beta"]],
      ["tool_selection", ["alpha"]],
      ["multiturn", ["gamma"]],
    ]);
    expect(benchmark.warnings).toEqual([]);
  });
});

describe("bundle layout", () => {
  it("an unknown capability folder is an error", async () => {
    const dir = bundle({
      [`${CAP1}/alpha.json`]: [pred("a1", "alpha")],
      "capability_9_mystery/alpha.json": [pred("a1", "alpha")],
      "predictions/alpha.json": [pred("a1", "alpha")],
    });
    const { report } = await validateBundle(dir, benchmark);
    expect(report.valid).toBe(false);
    expect(report.errors).toHaveLength(2);
    expect(report.errors.map((e) => [e.code, e.file])).toEqual([
      ["unknown_capability", "capability_9_mystery"],
      ["unknown_capability", "predictions"],
    ]);
    expect(report.errors[0]!.message).toContain(`${CAP1}, ${CAP2}, ${CAP4}`);
    // The known capability is still read.
    expect(report.coverage.api_chaining?.predicted).toBe(1);
  });

  it("a capability folder named by its capability_N_ prefix is read, with a warning", async () => {
    const dir = bundle({
      "capability_1_whatever/alpha.json": [pred("a1", "alpha"), pred("a2", "alpha")],
    });
    const { report, submission } = await validateBundle(dir, benchmark);
    expect(report.valid).toBe(true);
    expect(report.warnings).toEqual([
      { severity: "warning", code: "capability_dir_alias", file: "capability_1_whatever", message: `read as ${CAP1} (same capability_N_ prefix)` },
    ]);
    expect(report.coverage.api_chaining).toMatchObject({ submitted: true, predicted: 2, missing: 3 });
    expect([...(submission?.capabilities.get("api_chaining")?.keys() ?? [])]).toEqual(["a1", "a2"]);
  });

  it("*_tools.json and run.log files are ignored without a diagnostic", async () => {
    const dir = bundle({
      [`${CAP1}/alpha.json`]: [pred("a1", "alpha")],
      [`${CAP1}/alpha_tools.json`]: "this is not JSON at all",
      [`${CAP1}/run.log`]: "INFO started\n",
      "run.log": "INFO all done\n",
    });
    const { report } = await validateBundle(dir, benchmark);
    expect(report.valid).toBe(true);
    expect(report.summary).toMatchObject({ errors: 0, warnings: 0, records: 1, dialogues: 1 });
    expect(report.bundle.files).toBe(4);
    expect(Object.keys(report.coverage.api_chaining?.domains ?? {})).toEqual(["alpha", "beta"]);
  });

  it("an unknown file at the bundle root is a warning (ignored_file)", async () => {
    const dir = bundle({ [`${CAP1}/alpha.json`]: [pred("a1", "alpha")], "notes.txt": "hello" });
    const { report } = await validateBundle(dir, benchmark);
    expect(report.valid).toBe(true);
    expect(report.warnings.map((w) => [w.code, w.file])).toEqual([["ignored_file", "notes.txt"]]);
  });

  it("a bundle with no prediction files is an error (empty_bundle)", async () => {
    const dir = bundle({ "metadata.json": { agent: "nobody" } });
    const { report } = await validateBundle(dir, benchmark);
    expect(report.valid).toBe(false);
    expect(codes(report.errors)).toEqual(["empty_bundle"]);
  });
});

describe("records and domains", () => {
  it("a uuid in the wrong domain file is an error (wrong_domain_file)", async () => {
    const dir = bundle({ [`${CAP1}/beta.json`]: [pred("b1", "beta"), pred("a2", "beta")] });
    const { report } = await validateBundle(dir, benchmark);
    expect(report.valid).toBe(false);
    expect(report.errors).toHaveLength(1);
    expect(report.errors[0]).toMatchObject({ code: "wrong_domain_file", file: `${CAP1}/beta.json`, record: 1, uuid: "a2", path: "$[1].uuid" });
    expect(report.errors[0]!.message).toContain("alpha.json");
    expect(report.coverage.api_chaining?.domains.beta?.predicted).toBe(1);
    expect(report.coverage.api_chaining?.domains.alpha?.predicted).toBe(0);
  });

  it("a domain file with no ground truth is an error (unknown_domain)", async () => {
    const dir = bundle({ [`${CAP1}/zeta.json`]: [pred("a1", "zeta")] });
    const { report } = await validateBundle(dir, benchmark);
    expect(report.valid).toBe(false);
    expect(report.errors).toHaveLength(1);
    expect(report.errors[0]).toMatchObject({ code: "unknown_domain", file: `${CAP1}/zeta.json` });
    expect(report.errors[0]!.message).toContain('domain "zeta"');
    expect(report.errors[0]!.message).toContain("expected one of alpha, beta");
  });

  it("the same uuid in two domain files of one capability is a duplicate", async () => {
    const dir = bundle({
      [`${CAP1}/alpha.json`]: [pred("a1", "alpha")],
      [`${CAP1}/beta.json`]: [pred("b1", "beta"), pred("a1", "beta")],
    });
    const { report, submission } = await validateBundle(dir, benchmark);
    expect(report.valid).toBe(false);
    expect(report.errors).toHaveLength(1);
    expect(report.errors[0]).toMatchObject({ code: "duplicate_uuid", file: `${CAP1}/beta.json`, record: 1, uuid: "a1", path: "$[1].uuid" });
    expect(report.errors[0]!.message).toContain(`${CAP1}/alpha.json record 0`);
    expect(submission?.capabilities.get("api_chaining")?.size).toBe(2);
  });

  it("the same uuid in two capabilities is checked per capability", async () => {
    const dir = bundle({ [`${CAP1}/alpha.json`]: [pred("a1", "alpha")], [`${CAP2}/alpha.json`]: [pred("a1", "alpha")] });
    const { report } = await validateBundle(dir, benchmark);
    expect(report.errors.map((e) => [e.code, e.file])).toEqual([["unknown_uuid", `${CAP2}/alpha.json`]]);
  });

  it("arguments given as a JSON string are parsed, with a warning", async () => {
    const dir = bundle({
      [`${CAP1}/alpha.json`]: [predTurn("a1", "alpha", { sequence: { tool_call: [{ name: "get_answer", arguments: '{"id": "a1", "n": 2}' }] } })],
    });
    const { report, submission } = await validateBundle(dir, benchmark);
    expect(report.valid).toBe(true);
    expect(report.warnings).toHaveLength(1);
    expect(report.warnings[0]).toMatchObject({ code: "arguments_string", record: 0, uuid: "a1", path: "$[0].output[0].sequence.tool_call[0].arguments" });
    expect(submission?.capabilities.get("api_chaining")?.get("a1")?.turns[0]?.calls[0]?.arguments).toEqual({ id: "a1", n: 2 });
  });

  it("arguments given as an invalid JSON string are an error (bad_arguments)", async () => {
    const dir = bundle({
      [`${CAP1}/alpha.json`]: [predTurn("a1", "alpha", { sequence: { tool_call: [{ name: "get_answer", arguments: '{"id": "a1",' }] } })],
    });
    const { report, submission } = await validateBundle(dir, benchmark);
    expect(report.valid).toBe(false);
    expect(report.errors).toHaveLength(1);
    expect(report.errors[0]).toMatchObject({ code: "bad_arguments", file: `${CAP1}/alpha.json`, record: 0, uuid: "a1", path: "$[0].output[0].sequence.tool_call[0].arguments" });
    expect(codes(report.warnings)).not.toContain("arguments_string");
    expect(submission?.capabilities.get("api_chaining")?.has("a1")).toBe(false);
  });

  it("an arguments string holding a non-object is an error (bad_arguments)", async () => {
    const dir = bundle({
      [`${CAP1}/alpha.json`]: [predTurn("a1", "alpha", { sequence: { tool_call: [{ name: "get_answer", arguments: "[1, 2]" }] } })],
    });
    const { report } = await validateBundle(dir, benchmark);
    expect(codes(report.errors)).toEqual(["bad_arguments"]);
    expect(report.errors[0]!.message).toContain("an array");
  });

  it("a missing sequence is a warning and reads as no tool calls", async () => {
    const dir = bundle({ [`${CAP1}/alpha.json`]: [predTurn("a1", "alpha", {})] });
    const { report, submission } = await validateBundle(dir, benchmark);
    expect(report.valid).toBe(true);
    expect(report.warnings).toHaveLength(1);
    expect(report.warnings[0]).toMatchObject({ code: "sequence_missing", record: 0, uuid: "a1", path: "$[0].output[0].sequence" });
    expect(submission?.capabilities.get("api_chaining")?.get("a1")?.turns[0]?.calls).toEqual([]);
  });

  it("a bad status value is an error (bad_status)", async () => {
    const dir = bundle({ [`${CAP1}/alpha.json`]: [pred("a1", "alpha"), pred("a2", "alpha", { status: "done" })] });
    const { report } = await validateBundle(dir, benchmark);
    expect(report.valid).toBe(false);
    expect(report.errors).toHaveLength(1);
    expect(report.errors[0]).toMatchObject({ code: "bad_status", file: `${CAP1}/alpha.json`, record: 1, uuid: "a2", path: "$[1].status" });
    expect(report.errors[0]!.message).toContain('"done"');
  });

  it("a missing status is a warning and assumed success", async () => {
    const record = pred("a1", "alpha");
    delete record.status;
    const dir = bundle({ [`${CAP1}/alpha.json`]: [record] });
    const { report, submission } = await validateBundle(dir, benchmark);
    expect(report.valid).toBe(true);
    expect(codes(report.warnings)).toEqual(["status_missing"]);
    expect(submission?.capabilities.get("api_chaining")?.get("a1")?.status).toBe("success");
  });

  it("a file starting with a UTF-8 BOM is read, with a warning", async () => {
    const text = JSON.stringify([pred("a1", "alpha")]);
    const dir = bundle({ [`${CAP1}/alpha.json`]: Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text)]) });
    const { report } = await validateBundle(dir, benchmark);
    expect(report.valid).toBe(true);
    expect(report.warnings).toEqual([
      { severity: "warning", code: "utf8_bom", file: `${CAP1}/alpha.json`, message: "file starts with a UTF-8 byte order mark; ignored" },
    ]);
    expect(report.coverage.api_chaining?.predicted).toBe(1);
  });
});

describe("turns", () => {
  it("a single predicted turn with another id than the last ground-truth turn is a warning", async () => {
    const dir = bundle({ [`${CAP4}/gamma.json`]: [pred("m1", "gamma", {}, 0)] });
    const { report } = await validateBundle(dir, benchmark);
    expect(report.valid).toBe(true);
    expect(report.warnings.map((w) => [w.code, w.record, w.uuid, w.path])).toEqual([["turn_id_mismatch", 0, "m1", "$[0].output"]]);
  });

  it("the last turn predicted alongside earlier ones is fine", async () => {
    const p = pred("m1", "gamma", {}, 0);
    const turns = p.output as Json[];
    turns.push({ ...turns[0], turn_id: 1 });
    const dir = bundle({ [`${CAP4}/gamma.json`]: [p] });
    const { report } = await validateBundle(dir, benchmark);
    expect(report.valid).toBe(true);
    expect(report.summary.warnings).toBe(0);
  });
});

describe("coverage and metadata", () => {
  it("counts expected, predicted and missing uuids per domain for a partial bundle", async () => {
    const dir = bundle({ [`${CAP1}/alpha.json`]: [pred("a2", "alpha")] });
    const { report } = await validateBundle(dir, benchmark);
    expect(report.valid).toBe(true);
    expect(report.summary.submittedCapabilities).toEqual(["api_chaining"]);
    expect(report.coverage.api_chaining).toEqual({
      directory: CAP1,
      label: "API chaining",
      submitted: true,
      expected: 5,
      predicted: 1,
      missing: 4,
      domains: {
        alpha: { expected: 3, predicted: 1, missing: 2, missingUuids: ["a1", "a3"] },
        beta: { expected: 2, predicted: 0, missing: 2, missingUuids: ["b1", "b2"] },
      },
    });
    expect(report.coverage.tool_selection).toEqual({
      directory: CAP2,
      label: "Tool selection",
      submitted: false,
      expected: 1,
      predicted: 0,
      missing: 1,
      domains: { alpha: { expected: 1, predicted: 0, missing: 1, missingUuids: ["t1"] } },
    });
    expect(report.coverage.multiturn).toMatchObject({ submitted: false, expected: 1, predicted: 0, missing: 1 });
  });

  it("reads metadata.json into report.metadata", async () => {
    const meta = { agent: "crafted-agent", model: "m-1", tags: ["a", "b"] };
    const dir = bundle({ [`${CAP1}/alpha.json`]: [pred("a1", "alpha")], "metadata.json": meta });
    const { report, submission } = await validateBundle(dir, benchmark);
    expect(report.valid).toBe(true);
    expect(report.metadata).toEqual(meta);
    expect(submission?.metadata).toEqual(meta);
  });

  it("reads submission.yaml into report.metadata", async () => {
    const dir = bundle({ [`${CAP1}/alpha.json`]: [pred("a1", "alpha")], "submission.yaml": "agent: yaml-agent\nruns: 3\n" });
    const { report } = await validateBundle(dir, benchmark);
    expect(report.metadata).toEqual({ agent: "yaml-agent", runs: 3 });
  });

  it("metadata that is not an object is ignored with a warning", async () => {
    const dir = bundle({ [`${CAP1}/alpha.json`]: [pred("a1", "alpha")], "metadata.json": [1, 2] });
    const { report } = await validateBundle(dir, benchmark);
    expect(report.valid).toBe(true);
    expect(report.metadata).toBeNull();
    expect(report.warnings.map((w) => [w.code, w.file])).toEqual([["bad_metadata", "metadata.json"]]);
  });

  it("report.metadata is null without a metadata file", async () => {
    const dir = bundle({ [`${CAP1}/alpha.json`]: [pred("a1", "alpha")] });
    const { report } = await validateBundle(dir, benchmark);
    expect(report.metadata).toBeNull();
  });
});

describe("markdown report", () => {
  it("lists errors before warnings and caps them", async () => {
    const records = ["a1", "a2", "a3"].map((u) => pred(u, "alpha", { status: "bogus" }));
    const dir = bundle({
      [`${CAP1}/alpha.json`]: records,
      [`${CAP1}/beta.json`]: [pred("b1", "beta", { status: "bogus" }), pred("b2", "beta", { status: "bogus" })],
      "capability_1_alias/ignored.txt": "x",
      "capability_2_whatever/alpha.json": [predTurn("t1", "alpha", {})],
    });
    const { report } = await validateBundle(dir, benchmark);
    expect(report.summary.errors).toBe(5);
    expect(report.summary.warnings).toBeGreaterThan(0);
    const md = renderReportMarkdown(report, { maxErrors: 2 });
    expect(md.startsWith("## Validation: ❌ invalid\n")).toBe(true);
    const errorsAt = md.indexOf("### Errors (5)");
    const warningsAt = md.indexOf("### Warnings (");
    expect(errorsAt).toBeGreaterThan(0);
    expect(warningsAt).toBeGreaterThan(errorsAt);
    const errorSection = md.slice(errorsAt, warningsAt);
    expect(errorSection.split("\n").filter((l) => l.startsWith("- `bad_status`"))).toHaveLength(2);
    expect(errorSection).toContain("- … and 3 more error(s)");
    // Warnings come after every error line.
    const lastErrorLine = md.lastIndexOf("- `bad_status`");
    expect(lastErrorLine).toBeLessThan(warningsAt);
    expect(md.indexOf("`sequence_missing`")).toBeGreaterThan(warningsAt);
  });

  it("shows every error, with no 'more' line, under the cap", async () => {
    const dir = bundle({ [`${CAP1}/alpha.json`]: [pred("a1", "alpha", { status: "bogus" }), pred("a2", "alpha", { status: "bogus" })] });
    const { report } = await validateBundle(dir, benchmark);
    const md = renderReportMarkdown(report, { maxErrors: 5 });
    expect(md.split("\n").filter((l) => l.startsWith("- `bad_status`"))).toHaveLength(2);
    expect(md).not.toContain("more error(s)");
  });

  it("escapes HTML from user-controlled text", async () => {
    const dir = bundle({ [`${CAP1}/alpha.json`]: [pred("a1", "<script>alert(1)</script>")] });
    const { report } = await validateBundle(dir, benchmark);
    expect(report.valid).toBe(false);
    expect(report.errors[0]).toMatchObject({ code: "domain_mismatch", record: 0, uuid: "a1", path: "$[0].domain" });
    expect(report.errors[0]!.message).toContain("<script>");
    const md = renderReportMarkdown(report);
    expect(md).not.toContain("<script>");
    expect(md).not.toContain("</script>");
    expect(md).toContain("\\<script\\>alert(1)\\</script\\>");
  });

  it("a valid report says so and has a coverage table", async () => {
    const dir = bundle({ [`${CAP1}/alpha.json`]: [pred("a1", "alpha")] });
    const { report } = await validateBundle(dir, benchmark);
    const md = renderReportMarkdown(report);
    expect(md.startsWith("## Validation: ✅ valid\n")).toBe(true);
    expect(md).not.toContain("### Errors");
    expect(md).toContain("| API chaining (`api_chaining`) | yes | 1 | 5 | 4 |");
    expect(md).toContain("| Tool selection (`tool_selection`) | no | 0 | 1 | 1 |");
    expect(md).toContain("api_chaining/alpha: 2 missing (a2, a3)");
  });
});
