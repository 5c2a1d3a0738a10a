/**
 * VAKRA's output checker (validate_output.py, pydantic in lax mode) as facts: which forms it
 * takes and which it rejects. The expectations were taken from running VAKRA's own checker on
 * these records once (not at test time: no Python here).
 */
import { describe, expect, it } from "vitest";
import { vakraSchemaFindings } from "@/lib/formats/vakra-submission-schema";
import { JsonNumber } from "@/lib/formats/lossless-json";

const record = () => ({
  uuid: "u-1",
  domain: "cider_house",
  status: "success",
  error: "",
  duration_s: 1,
  output: [{ turn_id: 0, query: "How many presses?", answer: "4", sequence: { tool_call: [{ name: "count_presses", arguments: {} }] } }],
});
type Rec = ReturnType<typeof record>;
const withRecord = (edit: (r: Rec & Record<string, unknown>) => void) => {
  const r = record() as Rec & Record<string, unknown>;
  edit(r);
  return r;
};
const turn = (r: Rec) => r.output[0] as Record<string, unknown>;

const cases: [string, (r: Rec & Record<string, unknown>) => void, string | null][] = [
  ["turn_id as a digit string", (r) => (turn(r).turn_id = "1"), null],
  ["turn_id with spaces", (r) => (turn(r).turn_id = " 2 "), null],
  ["turn_id as the string 1.0", (r) => (turn(r).turn_id = "1.0"), null],
  ["turn_id as the float 1.0", (r) => (turn(r).turn_id = new JsonNumber("1.0")), null],
  ["turn_id as true", (r) => (turn(r).turn_id = true), null],
  ["turn_id with a fraction", (r) => (turn(r).turn_id = 1.5), "$[0].output[0].turn_id"],
  ["turn_id null", (r) => (turn(r).turn_id = null), "$[0].output[0].turn_id"],
  ["turn_id not a number", (r) => (turn(r).turn_id = "x"), "$[0].output[0].turn_id"],
  ["duration_s as a numeric string", (r) => (r.duration_s = "3.1" as never), null],
  ["duration_s null", (r) => (r.duration_s = null as never), "$[0].duration_s"],
  ["duration_s text", (r) => (r.duration_s = "abc" as never), "$[0].duration_s"],
  ["answer as a number", (r) => (turn(r).answer = 4), "$[0].output[0].answer"],
  ["answer as a list", (r) => (turn(r).answer = ["4"]), "$[0].output[0].answer"],
  ["uuid as a number", (r) => (r.uuid = 7 as never), "$[0].uuid"],
  ["error null", (r) => (r.error = null as never), "$[0].error"],
  ["status other than success or error", (r) => (r.status = "done"), "$[0].status"],
  ["sequence as a list", (r) => (turn(r).sequence = [{ tool_call: [] }]), "$[0].output[0].sequence"],
  ["sequence without tool_call", (r) => (turn(r).sequence = {}), "$[0].output[0].sequence.tool_call"],
  ["arguments as a JSON string", (r) => ((turn(r).sequence as Rec["output"][0]["sequence"]).tool_call[0]!.arguments = "{}" as never), "$[0].output[0].sequence.tool_call[0].arguments"],
  ["a call without arguments", (r) => delete ((turn(r).sequence as Rec["output"][0]["sequence"]).tool_call[0] as Partial<{ arguments: unknown }>).arguments, "$[0].output[0].sequence.tool_call[0].arguments"],
  ["keys it does not name", (r) => ((r.usage = { tokens: 3 }), (turn(r).sequence as Record<string, unknown>).tool_response = [4]), null],
];

describe("VAKRA's submission schema", () => {
  it.each(cases)("%s", (_name, edit, rejectedAt) => {
    const findings = vakraSchemaFindings([withRecord(edit)]);
    if (rejectedAt === null) expect(findings).toEqual([]);
    else expect(findings).toEqual([expect.objectContaining({ record: 0, path: rejectedAt })]);
  });

  it("rejects a file that is not a non-empty array, and names the record of each finding", () => {
    expect(vakraSchemaFindings({})).toEqual([{ path: "$", message: "expected a top-level array of records, found an object" }]);
    expect(vakraSchemaFindings([])).toEqual([{ path: "$", message: "expected at least one record; the array is empty" }]);
    const [f] = vakraSchemaFindings([record(), withRecord((r) => delete (r as Partial<Rec>).status)]);
    expect(f).toEqual({ record: 1, uuid: "u-1", path: "$[1].status", message: '"status" is required ("success" or "error")' });
  });

  it("stops listing at the bound it is given", () => {
    const bad = Array.from({ length: 50 }, () => ({}));
    expect(vakraSchemaFindings(bad, 10)).toHaveLength(10);
  });
});
