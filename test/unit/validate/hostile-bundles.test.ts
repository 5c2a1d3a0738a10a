/**
 * Hostile bundles (issue 12): each is written by the test into a temp dir and must give a
 * correct, bounded report: diagnostics capped with exact counts, limits named, nothing
 * huge copied into the report, and a report that always serialises.
 */
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadBenchmark, type Benchmark } from "../../../lib/benchmark/load-benchmark";
import { DiagnosticSink, DiagnosticStore, type Diagnostic } from "../../../lib/formats/diagnostic";
import { scanJson } from "../../../lib/formats/read-json";
import { isSafeText } from "../../../lib/formats/text-safety";
import { defaultValidationLimits, resolveLimits } from "../../../lib/validate/limits";
import { renderReportMarkdown } from "../../../lib/validate/report";
import { validateBundle, type ValidateOptions } from "../../../lib/validate/validate-bundle";
import { deflateOnce, writeZip } from "../../helpers/zip-writer";

const CAP1 = "capability_1_bi_apis";
const MiB = 1024 ** 2;

const BENCHMARK_YAML = `
slug: hostile
title: Hostile inputs
version: 1
capabilities:
  - id: api_chaining
    label: API chaining
    directory: ${CAP1}
`;

type Json = Record<string, unknown>;

const gtRecord = (uuid: string): Json => ({
  uuid,
  domain: "alpha",
  additional_instructions: "",
  output: [{ turn_id: 0, query: `question of ${uuid}`, answer: "42", sequence: { tool_call: [{ name: "get_answer", arguments: { id: uuid } }], tool_response: [42] } }],
});

const pred = (uuid: string, overrides: Json = {}, turn: Json = {}): Json => ({
  uuid,
  domain: "alpha",
  status: "success",
  error: "",
  duration_s: 1,
  output: [{ turn_id: 0, query: "q", answer: "42", sequence: { tool_call: [{ name: "get_answer", arguments: { id: uuid } }] }, ...turn }],
  ...overrides,
});

let root: string;
let benchmark: Benchmark;
let counter = 0;

function write(file: string, content: string | Buffer): void {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, content);
}

/** A bundle folder: keys are bundle paths, values JSON-serialised unless strings or Buffers. */
function bundle(files: Record<string, unknown>): string {
  const dir = path.join(root, "bundles", `b${++counter}`);
  mkdirSync(dir, { recursive: true });
  for (const [rel, value] of Object.entries(files)) write(path.join(dir, rel), typeof value === "string" || Buffer.isBuffer(value) ? value : JSON.stringify(value));
  return dir;
}

const zipPath = () => path.join(root, `z${++counter}.zip`);

/** Validates, and checks what every report must be: serialisable, and its counts consistent. */
async function validate(location: string, opts: ValidateOptions = {}) {
  const outcome = await validateBundle(location, benchmark, opts);
  const { report } = outcome;
  const json = JSON.stringify(report);
  expect(JSON.parse(json)).toEqual(JSON.parse(JSON.stringify(report)));
  expect(renderReportMarkdown(report).length).toBeGreaterThan(0);
  expect(report.summary.errors).toBe(Object.values(report.errorCounts).reduce((a, b) => a + b, 0));
  expect(report.summary.warnings).toBe(Object.values(report.warningCounts).reduce((a, b) => a + b, 0));
  expect(report.errorsOmitted).toBe(report.summary.errors - report.errors.length);
  expect(report.warningsOmitted).toBe(report.summary.warnings - report.warnings.length);
  return { ...outcome, json };
}

const only = (ds: readonly Diagnostic[], code: string) => ds.filter((d) => d.code === code);

beforeAll(async () => {
  root = mkdtempSync(path.join(tmpdir(), "agentboard-hostile-"));
  const bench = path.join(root, "benchmark");
  write(path.join(bench, "benchmark.yaml"), BENCHMARK_YAML);
  write(path.join(bench, "groundtruth", CAP1, "alpha.json"), JSON.stringify([gtRecord("a1"), gtRecord("a2")]));
  benchmark = await loadBenchmark(bench);
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("many bad records: counted exactly, stored within the caps", () => {
  it("50,000 empty records: one error each, 100 listed, the rest counted as omitted", async () => {
    const dir = bundle({ [`${CAP1}/alpha.json`]: `[${Array(50_000).fill("{}").join(",")}]` });
    const { report, json } = await validate(dir);
    expect(report.valid).toBe(false);
    expect(report.summary.records).toBe(50_000);
    expect(report.summary.errors).toBe(50_000);
    expect(report.errorCounts).toEqual({ bad_uuid: 50_000 });
    expect(report.errors).toHaveLength(defaultValidationLimits.maxDiagnosticsPerCode);
    expect(report.errorsOmitted).toBe(50_000 - defaultValidationLimits.maxDiagnosticsPerCode);
    // The first ones, in file order, each naming its record and path.
    expect(report.errors.slice(0, 3).map((e) => [e.file, e.record, e.path])).toEqual([
      [`${CAP1}/alpha.json`, 0, "$[0].uuid"],
      [`${CAP1}/alpha.json`, 1, "$[1].uuid"],
      [`${CAP1}/alpha.json`, 2, "$[2].uuid"],
    ]);
    expect(json.length).toBeLessThan(100_000);
    expect(renderReportMarkdown(report)).toContain(`… and ${50_000 - 50} more error(s)`);
  });

  it("warnings keep exact per-code counts; the total cap holds across codes and files", async () => {
    const noStatus = Array.from({ length: 300 }, (_, i) => ({ ...pred(i < 2 ? `a${i + 1}` : `x${i}`), status: undefined }));
    const dir = bundle({ [`${CAP1}/alpha.json`]: noStatus, [`${CAP1}/beta.json`]: `[${Array(500).fill("{}").join(",")}]` });
    const { report } = await validate(dir, { limits: { maxDiagnostics: 150, maxDiagnosticsPerCode: 120 } });
    expect(report.warningCounts.status_missing).toBe(300);
    expect(report.errorCounts.unknown_uuid).toBe(298);
    expect(report.errorCounts.unknown_domain).toBe(1);
    expect(report.summary.errors).toBe(299);
    // 150 kept in all: 120 status_missing warnings came first, then 30 unknown_uuid errors.
    expect(report.errors.length + report.warningsOmitted + report.warnings.length).toBeLessThanOrEqual(report.summary.errors + report.summary.warnings);
    expect(report.errors).toHaveLength(30);
    expect(report.warnings).toHaveLength(5);
    expect(report.warningsOmitted).toBe(295);
  });

  it("a store counts 300,000 diagnostics without keeping them", () => {
    const store = new DiagnosticStore({ perCode: 10, total: 25 });
    const sink = new DiagnosticSink("f.json", store);
    for (let i = 0; i < 300_000; i++) sink.error(i % 2 ? "odd" : "even", "bad", { record: i });
    sink.warn("w", "meh");
    expect(sink.errorCount).toBe(300_000);
    expect(store.errorCounts).toEqual({ odd: 150_000, even: 150_000 });
    expect(store.items).toHaveLength(21);
    expect(store.omitted).toBe(300_001 - 21);
  });
});

describe("depth: every JSON file, metadata included", () => {
  const nested = (levels: number) => `${'{"a":'.repeat(levels)}1${"}".repeat(levels)}`;

  it("metadata.json nested 6,000 levels is refused with its JSON path; the report serialises", async () => {
    const dir = bundle({ [`${CAP1}/alpha.json`]: [pred("a1")], "metadata.json": nested(6_000) });
    const { report } = await validate(dir);
    expect(report.valid).toBe(false);
    const [e] = only(report.errors, "too_deep");
    expect(e!.file).toBe("metadata.json");
    expect(e!.path).toBe(`$${".a".repeat(64)}`);
    expect(report.metadata).toBeNull();
  });

  it("submission.yaml nested past the stack is an error, not a crash", async () => {
    const dir = bundle({ [`${CAP1}/alpha.json`]: [pred("a1")], "submission.yaml": `a: ${"[".repeat(20_000)}${"]".repeat(20_000)}\n` });
    const { report } = await validate(dir);
    expect(report.valid).toBe(false);
    expect(only(report.errors, "too_deep").map((e) => e.file)).toEqual(["submission.yaml"]);
    expect(report.metadata).toBeNull();
  });

  it("metadata at exactly the depth limit is kept", async () => {
    const dir = bundle({ [`${CAP1}/alpha.json`]: [pred("a1")], "metadata.json": nested(64) });
    const { report } = await validate(dir);
    expect(report.valid).toBe(true);
    expect(report.metadata).not.toBeNull();
  });

  it("the byte scan finds the same path as the parsed-value check, before parsing", () => {
    const r = scanJson(Buffer.from(`[{"x":[1,{"k\\"ey":${"[".repeat(10)}${"]".repeat(10)}}]}]`), { maxDepth: 8, maxValues: 1e6, maxRecords: 1e6 });
    expect(r).toMatchObject({ ok: false, code: "too_deep", path: '$[0].x[1]["k\\"ey"][0][0][0][0]' });
  });
});

describe("string lengths", () => {
  it("a 3 MB answer is refused with file, record, uuid and JSON path; the string is not copied", async () => {
    const big = "x".repeat(3 * MiB);
    const dir = bundle({ [`${CAP1}/alpha.json`]: [pred("a2"), pred("a1", {}, { answer: big })] });
    const { report, submission, json } = await validate(dir);
    expect(report.valid).toBe(false);
    expect(report.errors).toEqual([
      {
        severity: "error",
        code: "string_too_long",
        file: `${CAP1}/alpha.json`,
        record: 1,
        uuid: "a1",
        path: "$[1].output[0].answer",
        message: `answer is ${3 * MiB} characters long; expected at most ${defaultValidationLimits.maxAnswerChars} (limits.maxAnswerChars)`,
      },
    ]);
    expect(submission?.capabilities.get("api_chaining")?.size ?? 0).toBe(0);
    expect(json.length).toBeLessThan(20_000);
  });

  it("the limit can be lowered (or raised) through ValidateOptions.limits", async () => {
    const dir = bundle({ [`${CAP1}/alpha.json`]: [pred("a1", {}, { answer: "y".repeat(2_000) })] });
    expect((await validate(dir)).report.valid).toBe(true);
    const { report } = await validate(dir, { limits: { maxAnswerChars: 1_000 } });
    expect(report.errors.map((e) => [e.code, e.path])).toEqual([["string_too_long", "$[0].output[0].answer"]]);
    expect(report.errors[0]!.message).toContain("expected at most 1000 (limits.maxAnswerChars)");
  });

  it("a file over maxFileBytes is refused from fs.stat, unread", async () => {
    const dir = bundle({ [`${CAP1}/alpha.json`]: [pred("a1", {}, { answer: "z".repeat(2 * MiB) })] });
    const { report } = await validate(dir, { limits: { maxFileBytes: MiB } });
    expect(report.bundle.sha256).toBeNull();
    expect(report.errors).toHaveLength(1);
    expect(report.errors[0]).toMatchObject({ code: "file_too_large", file: `${CAP1}/alpha.json` });
    expect(report.errors[0]!.message).toContain(`at most ${MiB} are allowed per file (limits.maxFileBytes)`);
  });

  it("each kind of string has its limit: arguments, tool responses, names, query, error, identifiers", async () => {
    const long = (n: number) => "q".repeat(n);
    const records = [
      pred("a1", {}, { sequence: { tool_call: [{ name: "get_answer", arguments: { id: long(100_001) } }], tool_response: [{ rows: long(1_000_001) }] } }),
      pred("a2", { error: long(10_001) }, { query: long(100_001) }),
      pred("a1", {}, { sequence: { tool_call: [{ name: long(257), arguments: {} }] } }),
      pred("a2", { status: long(70_000) }),
      pred(long(300)),
    ];
    const { report, json } = await validate(bundle({ [`${CAP1}/alpha.json`]: records }));
    expect(report.errors.map((e) => [e.record, e.uuid ?? null, e.path, e.message.split(" is ")[0]])).toEqual([
      [0, "a1", "$[0].output[0].sequence.tool_call[0].arguments.id", "tool-call argument"],
      [0, "a1", "$[0].output[0].sequence.tool_response[0].rows", "tool response"],
      [1, "a2", "$[1].error", "error text"],
      [1, "a2", "$[1].output[0].query", "query"],
      [2, "a1", "$[2].output[0].sequence.tool_call[0].name", "name"],
      [3, "a2", "$[3].status", "identifier"],
      [4, null, "$[4].uuid", "identifier"],
    ]);
    // A 70,000-character status is named, not copied.
    expect(json.length).toBeLessThan(20_000);
  });

  it("ids of outputs keyed by id and object keys are bounded too", async () => {
    const limits = resolveLimits({ maxIdentifierChars: 10, maxKeyChars: 20 });
    expect(limits.maxIdentifierChars).toBe(10);
    const dir = bundle({ [`${CAP1}/alpha.json`]: [pred("a1", {}, { sequence: { tool_call: [{ name: "get_answer", arguments: { ["k".repeat(21)]: 1 } }] } })] });
    const { report } = await validate(dir, { limits: { maxKeyChars: 20 } });
    expect(report.errors.map((e) => [e.code, e.uuid, e.message])).toEqual([["string_too_long", "a1", "object key is 21 characters long; expected at most 20 (limits.maxKeyChars)"]]);
  });
});

describe("records and values per file", () => {
  it("one record over maxRecordsPerFile is refused before parsing, naming the first record beyond", async () => {
    const dir = bundle({ [`${CAP1}/alpha.json`]: Array.from({ length: 11 }, () => pred("a1")) });
    const { report } = await validate(dir, { limits: { maxRecordsPerFile: 10 } });
    expect(report.errors).toEqual([
      expect.objectContaining({ code: "too_many_records", file: `${CAP1}/alpha.json`, record: 10, path: "$[10]", message: expect.stringContaining("at most 10 per file (limits.maxRecordsPerFile)") }),
    ]);
    expect(report.summary.records).toBe(0);
    const fine = await validate(dir, { limits: { maxRecordsPerFile: 11 } });
    expect(fine.report.errorCounts.too_many_records).toBeUndefined();
  });

  it("values over maxValuesPerFile are refused before parsing", async () => {
    const dir = bundle({ [`${CAP1}/alpha.json`]: `[[${Array(1_001).fill("0").join(",")}]]` });
    const { report } = await validate(dir, { limits: { maxValuesPerFile: 1_000 } });
    expect(report.errors.map((e) => [e.code, e.path])).toEqual([["too_many_values", "$[0][998]"]]);
  });
});

describe("ZIP entries: ratio on every entry, total and per-entry size", () => {
  it("2,000 entries of 1 MiB at ~1000:1 are refused from the central directory", async () => {
    const bomb = deflateOnce(Buffer.alloc(MiB));
    const file = zipPath();
    writeZip(file, Array.from({ length: 2_000 }, (_, i) => ({ name: `${CAP1}/d${i}.json`, deflated: bomb })));
    const { report } = await validate(file);
    expect(report.bundle.kind).toBe("unknown");
    expect(report.errorCounts.zip_bomb).toBe(2_000);
    expect(report.errorCounts.zip_too_large).toBe(1);
    expect(only(report.errors, "zip_bomb")).toHaveLength(defaultValidationLimits.maxDiagnosticsPerCode);
    expect(report.errorsOmitted).toBe(2_000 + 1 - report.errors.length);
  });

  it("a single 1 MiB entry at ~1000:1 is refused (no size floor on the ratio)", async () => {
    const file = zipPath();
    writeZip(file, [{ name: `${CAP1}/alpha.json`, deflated: deflateOnce(Buffer.alloc(MiB, 0x20)) }]);
    const { report } = await validate(file);
    expect(report.errors.map((e) => [e.code, e.file])).toEqual([["zip_bomb", `${CAP1}/alpha.json`]]);
  });

  it("a 13.5 MB archive holding one 1.9 GiB entry at 147:1 is refused by the per-entry cap", async () => {
    // Random bytes do not compress: the archive is ~13.5 MB and the declared 1.9 GiB makes ~147:1.
    const data = randomBytes(13.5 * 1e6);
    const file = zipPath();
    writeZip(file, [{ name: `${CAP1}/alpha.json`, data, declaredSize: Math.round(1.9 * 1024 ** 3) }]);
    const { report } = await validate(file);
    expect(report.errorCounts).toEqual({ zip_entry_too_large: 1, zip_too_large: 1 });
    expect(only(report.errors, "zip_entry_too_large")[0]!.message).toContain("(limits.maxFileBytes)");
  });

  it("zipLimits (the older option) still overrides the ZIP limits", async () => {
    const file = zipPath();
    writeZip(file, [{ name: `${CAP1}/alpha.json`, data: JSON.stringify([pred("a1")]) }]);
    const { report } = await validate(file, { zipLimits: { maxFileBytes: 10 } });
    expect(report.errorCounts).toEqual({ zip_entry_too_large: 1 });
  });

  it("an entry name with a bidirectional override is refused", async () => {
    const file = zipPath();
    writeZip(file, [{ name: `${CAP1}/al\u202epha.json`, data: "[]" }]);
    const { report } = await validate(file);
    expect(report.errors.map((e) => e.code)).toEqual(["zip_unsafe_path"]);
    expect(report.errors[0]!.message).toContain("U+202E");
    expect(isSafeText(report.errors[0]!.file)).toBe(true);
  });
});

describe("metadata text the GitHub form refuses is refused from the CLI too", () => {
  it.each([
    ["agent_name", "good\u202eevil", "U+202E"],
    ["description", "null\u0000byte", "U+0000"],
    ["maintainer", "bell\u0007", "U+0007"],
    ["homepage", "isolate\u2066x", "U+2066"],
  ])("%s with %j", async (key, value, codePoint) => {
    const dir = bundle({ [`${CAP1}/alpha.json`]: [pred("a1")], "metadata.json": { agent_name: "ok", [key]: value } });
    const { report } = await validate(dir);
    expect(report.valid).toBe(false);
    expect(report.errors).toEqual([expect.objectContaining({ code: "metadata_unsafe_text", file: "metadata.json", path: `$.${key}`, message: expect.stringContaining(codePoint) })]);
    expect(report.metadata).toBeNull();
  });

  it("tabs and newlines in a description are fine", async () => {
    const dir = bundle({ [`${CAP1}/alpha.json`]: [pred("a1")], "metadata.json": { agent_name: "ok", description: "line 1\n\tline 2" } });
    expect((await validate(dir)).report.valid).toBe(true);
  });

  it("long values and too many models are refused with the form's limits", async () => {
    const models = Array.from({ length: 21 }, (_, i) => `m${i}`);
    const dir = bundle({ [`${CAP1}/alpha.json`]: [pred("a1")], "metadata.json": { agent_name: "n".repeat(101), domain: "d".repeat(10_000), models } });
    const { report, json } = await validate(dir);
    expect(report.errors.map((e) => [e.code, e.path, e.message.match(/limits\.\w+/)?.[0]])).toEqual([
      ["metadata_too_long", "$.agent_name", "limits.maxAgentNameChars"],
      ["metadata_too_long", "$.domain", "limits.maxMetadataValueChars"],
      ["metadata_too_long", "$.models", "limits.maxModels"],
    ]);
    expect(report.metadata).toBeNull();
    expect(json.length).toBeLessThan(20_000);
  });

  it("a metadata file over maxMetadataBytes is refused unread", async () => {
    const dir = bundle({ [`${CAP1}/alpha.json`]: [pred("a1")], "metadata.json": { agent_name: "ok", notes: "n".repeat(1_500) } });
    const { report } = await validate(dir, { limits: { maxMetadataBytes: 1_000 } });
    expect(report.errors.map((e) => [e.code, e.file])).toEqual([["file_too_large", "metadata.json"]]);
  });
});
