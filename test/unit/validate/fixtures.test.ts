/**
 * The VAKRA-shaped fixtures in test/fixtures/vakra-shapes behave as their README says,
 * validated against the fixture folder itself as the benchmark (groundtruth/ without
 * benchmark.yaml: VAKRA defaults).
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { dialogueCapability, loadBenchmark, type Benchmark } from "../../../lib/benchmark/load-benchmark";
import type { Diagnostic } from "../../../lib/formats/diagnostic";
import { formatDiagnostic } from "../../../lib/formats/diagnostic";
import { mdDiagnostic } from "../../../lib/validate/report";
import { validateBundle } from "../../../lib/validate/validate-bundle";

const here = path.dirname(fileURLToPath(import.meta.url));
const FIXTURES = path.resolve(here, "../../fixtures/vakra-shapes");
const PREDICTIONS = path.join(FIXTURES, "predictions");

const CAP1_FILE = "capability_1_bi_apis/cider_house.json";
const CAP4_FILE = "capability_4_multiturn/regatta.json";
const UUID_A = "0b4f8c2e-6a51-4f7e-9d3a-1c2b3a4d5e61";
const UUID_B = "7e2d9a10-3b44-4c8f-8e21-5f6a7b8c9d02";
const UUID_REGATTA = "c3a1e5f7-9b2d-4e6f-a1c3-e5f7a9b1d3f5";

// beforeEach, not beforeAll: a failing beforeAll would mark every test "skipped".
let benchmark: Benchmark;
beforeEach(async () => {
  benchmark ??= await loadBenchmark(FIXTURES);
});

async function validate(caseDir: string) {
  return validateBundle(path.join(PREDICTIONS, caseDir), benchmark);
}

/** The single error of a rejected bundle. */
async function onlyError(caseDir: string): Promise<Diagnostic> {
  const { report } = await validate(caseDir);
  expect(report.valid).toBe(false);
  expect(report.summary.errors).toBe(1);
  expect(report.errors).toHaveLength(1);
  return report.errors[0]!;
}

describe("fixture benchmark (VAKRA defaults)", () => {
  it("loads the ground truth with the four default capabilities and no warnings", () => {
    expect(benchmark.spec.slug).toBe("vakra");
    expect(benchmark.capabilities.map((c) => c.spec.directory)).toEqual([
      "capability_1_bi_apis",
      "capability_2_dashboard_apis",
      "capability_3_multihop_reasoning",
      "capability_4_multiturn",
    ]);
    expect(benchmark.warnings).toEqual([]);
    const cap1 = benchmark.capabilities[0]!;
    expect([...cap1.domains.keys()]).toEqual(["cider_house"]);
    expect([...cap1.byUuid.keys()]).toEqual([UUID_A, UUID_B]);
    const cap4 = dialogueCapability(benchmark.capabilities[3]!);
    const regatta = cap4.byUuid.get(UUID_REGATTA);
    expect(regatta?.turns.map((t) => t.turnId)).toEqual([0, 1]);
    expect(regatta?.policy).toEqual({ denyTools: ["query_regatta"] });
    expect(regatta?.turns[1]?.answer).toEqual([[41.2587]]);
  });
});

describe("valid fixture bundles", () => {
  it("ok/: a clean capability-4 prediction of the last turn only", async () => {
    const { report, submission } = await validate("ok");
    expect(report.valid).toBe(true);
    expect(report.summary).toMatchObject({ errors: 0, warnings: 0, records: 1, dialogues: 1, submittedCapabilities: ["multiturn"] });
    expect(report.bundle.kind).toBe("folder");
    expect(report.coverage.multiturn).toMatchObject({ submitted: true, expected: 1, predicted: 1, missing: 0 });
    expect(report.coverage.api_chaining).toMatchObject({ submitted: false, expected: 2, predicted: 0, missing: 2 });
    const d = submission?.capabilities.get("multiturn")?.get(UUID_REGATTA);
    expect(d?.turns.map((t) => t.turnId)).toEqual([1]);
    expect(d?.turns[0]?.calls.map((c) => c.name)).toEqual(["get_crew_average_time"]);
  });

  it("wild-shapes/: read with one warning of each expected code", async () => {
    const { report, submission } = await validate("wild-shapes");
    expect(report.valid).toBe(true);
    expect(report.summary.errors).toBe(0);
    expect(report.summary.dialogues).toBe(2);
    expect(report.warningCounts).toEqual({ sequence_list: 1, turn_id_string: 1, answer_list: 1, prelude_in_prediction: 1 });
    const byCode = new Map(report.warnings.map((w) => [w.code, w]));
    expect(byCode.get("sequence_list")).toMatchObject({ file: CAP1_FILE, record: 0, uuid: UUID_A, path: "$[0].output[0].sequence" });
    expect(byCode.get("turn_id_string")).toMatchObject({ file: CAP1_FILE, record: 0, uuid: UUID_A, path: "$[0].output[0].turn_id" });
    expect(byCode.get("answer_list")).toMatchObject({ file: CAP1_FILE, record: 0, uuid: UUID_A, path: "$[0].output[0].answer" });
    expect(byCode.get("prelude_in_prediction")).toMatchObject({ file: CAP1_FILE, record: 0, uuid: UUID_A, path: "$[0].output[0].sequence.tool_call[0]" });
    // The normalised shapes the scorer will see.
    const d = submission?.capabilities.get("api_chaining")?.get(UUID_A);
    expect(d?.turns[0]?.turnId).toBe(0);
    expect(d?.turns[0]?.answer).toEqual(["7"]);
    expect(d?.turns[0]?.calls.map((c) => c.name)).toEqual(["get_data", "select_data_equal_to", "compute_data_count"]);
    expect(report.coverage.api_chaining).toMatchObject({ submitted: true, expected: 2, predicted: 2, missing: 0 });
  });

  it("policy-violation/: valid (the policy is a scoring matter, not a format error)", async () => {
    const { report, submission } = await validate("policy-violation");
    expect(report.valid).toBe(true);
    expect(report.summary.errors).toBe(0);
    expect(report.summary.warnings).toBe(0);
    const calls = submission?.capabilities.get("multiturn")?.get(UUID_REGATTA)?.turns[0]?.calls.map((c) => c.name);
    expect(calls).toEqual(["query_regatta", "get_crew_average_time"]);
  });

  it("agent-error/: a status error record with empty output is valid", async () => {
    const { report, submission } = await validate("agent-error");
    expect(report.valid).toBe(true);
    expect(report.summary.errors).toBe(0);
    expect(report.summary.warnings).toBe(0);
    const d = submission?.capabilities.get("api_chaining")?.get(UUID_A);
    expect(d).toMatchObject({ status: "error", error: "agent timed out", durationS: 600, turns: [] });
    expect(report.coverage.api_chaining?.domains.cider_house).toEqual({ expected: 2, predicted: 1, missing: 1, missingUuids: [UUID_B] });
  });

  describe("a prediction holding several distinct turns", () => {
    let dir: string;
    beforeEach(() => {
      dir = mkdtempSync(path.join(tmpdir(), "agentboard-fixtures-"));
      cpSync(path.join(PREDICTIONS, "ok"), dir, { recursive: true });
      const file = path.join(dir, CAP4_FILE);
      const records = JSON.parse(readFileSync(file, "utf8")) as { output: unknown[] }[];
      records[0]!.output.unshift({ turn_id: 0, query: "Which crew won?", answer: "Blue Heron", sequence: { tool_call: [{ name: "get_top_crew_by_year", arguments: { year: "2019" } }] } });
      writeFileSync(file, JSON.stringify(records));
    });
    afterEach(() => rmSync(dir, { recursive: true, force: true }));

    it("is fine: no error, no warning", async () => {
      const { report, submission } = await validateBundle(dir, benchmark);
      expect(report.valid).toBe(true);
      expect(report.summary.errors).toBe(0);
      expect(report.summary.warnings).toBe(0);
      expect(submission?.capabilities.get("multiturn")?.get(UUID_REGATTA)?.turns.map((t) => t.turnId)).toEqual([0, 1]);
    });
  });
});

describe("bad fixture bundles are rejected with a precise diagnostic", () => {
  it("duplicate-uuid", async () => {
    const e = await onlyError("bad/duplicate-uuid");
    expect(e).toMatchObject({ severity: "error", code: "duplicate_uuid", file: CAP1_FILE, record: 1, uuid: UUID_A, path: "$[1].uuid" });
    expect(e.message).toContain(`${CAP1_FILE} record 0`);
    expect(formatDiagnostic(e)).toBe(`${CAP1_FILE} record 1 (uuid ${UUID_A}) at $[1].uuid: ${e.message}`);
  });

  it("two-predicted-turns: the same turn_id twice", async () => {
    const e = await onlyError("bad/two-predicted-turns");
    expect(e).toMatchObject({ code: "duplicate_turn_id", file: CAP1_FILE, record: 0, uuid: UUID_A, path: "$[0].output[1].turn_id" });
    expect(e.message).toContain("turn_id 0");
    expect(e.message).toContain("$[0].output[0]");
  });

  it("empty-tool-name", async () => {
    const e = await onlyError("bad/empty-tool-name");
    expect(e).toMatchObject({ code: "empty_tool_name", file: CAP1_FILE, record: 0, uuid: UUID_A, path: "$[0].output[0].sequence.tool_call[0].name" });
    expect(e.message).toContain("empty string");
  });

  it("domain-mismatch: the record's domain differs from the file name", async () => {
    const e = await onlyError("bad/domain-mismatch");
    expect(e).toMatchObject({ code: "domain_mismatch", file: CAP1_FILE, record: 0, uuid: UUID_B, path: "$[0].domain" });
    expect(e.message).toContain('"regatta"');
    expect(e.message).toContain('"cider_house"');
  });

  it("unknown-uuid: not in the ground truth", async () => {
    const e = await onlyError("bad/unknown-uuid");
    expect(e).toMatchObject({ code: "unknown_uuid", file: CAP1_FILE, record: 0, uuid: "00000000-0000-0000-0000-000000000000", path: "$[0].uuid" });
    expect(e.message).toContain("capability_1_bi_apis");
  });

  it("not-an-array: names the file and the JSON path $ (there is no record or uuid)", async () => {
    const e = await onlyError("bad/not-an-array");
    expect(e).toMatchObject({ code: "not_an_array", file: CAP1_FILE, path: "$" });
    expect(e.record).toBeUndefined();
    expect(e.uuid).toBeUndefined();
    expect(e.message).toContain("found an object");
  });

  it("truncated-json: names the file and the line, column and offset of the end", async () => {
    const e = await onlyError("bad/truncated-json");
    expect(e).toMatchObject({ code: "json_syntax", file: CAP1_FILE });
    const size = readFileSync(path.join(PREDICTIONS, "bad/truncated-json", CAP1_FILE)).length;
    expect(e.message).toContain(`line 1, column ${size + 1} (offset ${size})`);
    expect(e.message).toContain("truncated");
  });

  it("not-utf8: names the file and the offending byte and offset", async () => {
    const e = await onlyError("bad/not-utf8");
    expect(e).toMatchObject({ code: "not_utf8", file: CAP1_FILE });
    // `[{"uuid":"` is 10 bytes, then 0xff.
    expect(e.message).toContain("invalid byte 0xff at byte offset 10");
  });

  it("renders every located diagnostic with its file, record, uuid and path in markdown", async () => {
    const { report } = await validate("bad/empty-tool-name");
    const line = mdDiagnostic(report.errors[0]!);
    expect(line).toBe(
      `- \`empty_tool_name\` \`${CAP1_FILE}\` record 0 (uuid \`${UUID_A}\`) at \`$[0].output[0].sequence.tool_call[0].name\`: tool name is an empty string; expected a non-empty string`,
    );
  });
});
