/** The metrics tree with NAT's semantics: parsing, sections, discovery, missing values, errors, VLM sub-score. */
import { describe, expect, it } from "vitest";
import type { EvalItem } from "@/lib/formats/eval-dataset";
import { parseMetricsYaml, type MetricNode } from "@/lib/formats/eval-metrics";
import type { Grade, Grader } from "@/lib/judges/grader";
import { createRulesGrader } from "@/lib/judges/rules-grader";
import { evaluateItem } from "@/lib/evaluators/evaluator";
import { DEFAULT_DISCOVERY_TEMPLATE, DEFAULT_FIELD_TEMPLATE } from "@/lib/evaluators/prompts";
import { createReportEvaluator } from "@/lib/evaluators/report-evaluator";
import { scoreReportTree, type FieldScore } from "@/lib/evaluators/report-tree";
import { gaveUp, scriptedGrader, type DiscoveryRequest, type GradedRequest } from "../../helpers/scripted-grader";

function metrics(yaml: string): MetricNode {
  const r = parseMetricsYaml(yaml, "m.yaml");
  if (!r.ok) throw new Error(r.errors.join("\n"));
  return r.root;
}

const scriptedJudge = (grade: (req: GradedRequest) => number | Grade, discover?: (req: DiscoveryRequest) => { field: string; referenceField: string | null; score: number }[]) => {
  const { grader, ...seen } = scriptedGrader({ grade, ...(discover ? { discover } : {}) });
  return { judge: grader, ...seen };
};

const opts = (judge: Grader, penalizeMissingFields = false, style: "agentboard" | "nat" = "agentboard") => ({ judge, fieldTemplate: DEFAULT_FIELD_TEMPLATE, discoveryTemplate: DEFAULT_DISCOVERY_TEMPLATE, penalizeMissingFields, style });
const child = (f: FieldScore, ...names: string[]) => names.reduce<FieldScore>((acc, n) => acc.fields![n]!, f);

describe("metrics YAML", () => {
  it("defaults every node to llm_judge, sections included, as NAT does", () => {
    const root = metrics("report:\n  method: average\n  fields:\n    Title: {method: exact_match}\n    Summary:\n      allow_dynamic_field_discovery: true\n    Analysis:\n");
    expect(root.method).toBe("average");
    expect(root.fields.map((f) => [f.path, f.method, f.discovery, f.isSection])).toEqual([
      ["report.Title", "exact_match", false, false],
      ["report.Summary", "llm_judge", true, true],
      ["report.Analysis", "llm_judge", false, false],
    ]);
  });

  it("accepts the seed's section judged as a whole with discovery", () => {
    const root = metrics("Overall Report:\n  method: average\n  fields:\n    Vehicles Involved:\n      method: llm_judge\n      allow_dynamic_field_discovery: true  # Handles dynamic vehicle field names\n");
    expect(root.fields[0]).toMatchObject({ method: "llm_judge", discovery: true, isSection: true });
  });

  it("refuses malformed trees with the key's path", () => {
    const errs = (yaml: string) => {
      const r = parseMetricsYaml(yaml, "m.yaml");
      return r.ok ? [] : r.errors;
    };
    expect(errs("a: {}\nb: {}")).toEqual(['m.yaml: expected exactly one root key (e.g. "report:") holding the metrics tree']);
    expect(errs("report:\n  fields:\n    T: {method: fuzzy}")).toEqual(['m.yaml: report.fields.T.method: unknown method "fuzzy"; expected one of exact_match, f1, regex, non_empty, llm_judge, average']);
    expect(errs("report:\n  fields:\n    T: {methd: f1}")[0]).toMatch(/^m\.yaml: report\.fields\.T: Unrecognized key: "methd"/);
    expect(errs("report:\n  fields: {}")).toEqual(['m.yaml: report.fields: "fields" needs at least one field']);
    expect(errs("report:\n  method: average")).toEqual(['m.yaml: report: "average" needs "fields" or "allow_dynamic_field_discovery: true" to average over']);
    expect(errs("report:\n  fields: {T: {method: f1, penalize_missing_fields: true}}")).toEqual(['m.yaml: report.T: "penalize_missing_fields" applies to sections only']);
    expect(errs("report: [")[0]).toMatch(/^m\.yaml: invalid YAML/);
  });
});

describe("report tree", () => {
  const tree = metrics(`
report:
  method: average
  fields:
    title: {method: exact_match}
    Summary:
      method: average
      fields:
        Camera: {method: exact_match}
        Time: {method: regex}
        Vehicles: {method: f1}
        Notes: {method: non_empty}
    Analysis: {description: what the footage shows}
`);
  const reference = { title: "T", Summary: { Camera: "cam-07", Time: "08:4\\d", Vehicles: "forklift, truck", Notes: "n" }, Analysis: "The worker stepped back." };

  it("averages each section over its fields, by hand", async () => {
    const { judge, grades } = scriptedJudge(() => 0.5);
    const actual = { title: "T", Summary: { Camera: "cam-7", Time: "08:43", Vehicles: "truck" }, Analysis: "He stepped back." };
    const r = await scoreReportTree(tree, reference, actual, opts(judge));
    // Summary: Camera 0, Time 1, Vehicles F1 over sets {truck} vs {forklift, truck} = 2/3, Notes 0 (absent).
    expect(child(r, "Summary").score).toBeCloseTo((1 + 2 / 3) / 4, 10);
    expect(child(r, "Summary", "Notes")).toMatchObject({ status: "scored", score: 0, reasoning: "the report lacks this field" });
    expect(child(r, "Analysis")).toMatchObject({ method: "llm_judge", score: 0.5 });
    expect(r.score).toBeCloseTo((1 + (1 + 2 / 3) / 4 + 0.5) / 3, 10);
    expect(grades).toHaveLength(1);
    // NAT's field context: the field's own name.
    expect(grades[0]!.messages[1]!.content).toContain("Field being evaluated: Analysis (what the footage shows)");
    expect(grades[0]!.messages[1]!.content).toContain("He stepped back.");
  });

  it("scores a field the reference lacks against \"\" and a section it lacks as 0, as NAT does", async () => {
    const { judge, grades } = scriptedJudge(() => 1);
    const r = await scoreReportTree(tree, { title: "T", Analysis: "" }, { title: "T", Summary: { Camera: "c" }, Analysis: "" }, opts(judge));
    // The reference has no Summary: an error node that its parent counts as 0.
    expect(child(r, "Summary")).toMatchObject({ status: "error", score: null, error: "Reference at 'report.Summary' is NoneType, expected dict for section" });
    // The judge is asked even about two empty values.
    expect(grades).toHaveLength(1);
    expect(r.score).toBeCloseTo((1 + 0 + 1) / 3, 10);
    const missingField = await scoreReportTree(tree, { ...reference, Summary: { Camera: "cam-07" } }, { ...reference, Summary: { Camera: "cam-07", Vehicles: "truck" } }, opts(judge));
    // Time: regex "" never matches "" only when both... re.fullmatch("", "") matches: 1. Vehicles against "": f1 0. Notes absent both: 0.
    expect(child(missingField, "Summary", "Time")).toMatchObject({ status: "scored", score: 1 });
    expect(child(missingField, "Summary", "Vehicles")).toMatchObject({ status: "scored", score: 0 });
    expect(child(missingField, "Summary").score).toBeCloseTo((1 + 1 + 0 + 0) / 4, 10);
  });

  it("scores an invalid regex 0 and honours Python's inline flags", async () => {
    const { judge } = scriptedJudge(() => 1);
    const bad = await scoreReportTree(tree, { ...reference, Summary: { ...reference.Summary, Time: "08:(4" } }, reference, opts(judge));
    expect(child(bad, "Summary", "Time")).toMatchObject({ status: "scored", score: 0, reasoning: "the reference pattern is not a valid regular expression" });
    const flags = await scoreReportTree(tree, { ...reference, Summary: { ...reference.Summary, Time: "(?i)morning" } }, { ...reference, Summary: { ...reference.Summary, Time: "MORNING" } }, opts(judge));
    expect(child(flags, "Summary", "Time").score).toBe(1);
  });

  it("compares non-text values as Python's str()", async () => {
    const m = metrics("report:\n  method: average\n  fields:\n    Count: {method: exact_match}\n");
    const r = await scoreReportTree(m, { Count: 3.0 }, { Count: "3" }, opts(createRulesGrader()));
    // JSON.parse keeps no "3.0"; the evaluator is fed lossless values, so test the JsonNumber path too.
    expect(child(r, "Count").score).toBe(1);
    const { JsonNumber } = await import("@/lib/formats/lossless-json");
    const lossless = await scoreReportTree(m, { Count: new JsonNumber("3.0") }, { Count: "3" }, opts(createRulesGrader()));
    expect(child(lossless, "Count").score).toBe(0);
    const bool = await scoreReportTree(m, { Count: true }, { Count: "True" }, opts(createRulesGrader()));
    expect(child(bool, "Count").score).toBe(1);
  });

  it("makes a failing judge an item error by default, a 0 in its section under compat nat", async () => {
    const { judge } = scriptedJudge(() => gaveUp("judge failed after 3 attempts: HTTP 500"));
    const r = await scoreReportTree(tree, reference, reference, opts(judge));
    expect(child(r, "Analysis")).toMatchObject({ status: "error", judgeFault: true });
    expect(r).toMatchObject({ status: "error", score: null, judgeFault: true });
    const nat = await scoreReportTree(tree, reference, reference, opts(judge, false, "nat"));
    // title 1; Summary (1 + 0 + 1 + 1) / 4 (the pattern does not match itself); Analysis null → 0.
    expect(nat.score).toBeCloseTo((1 + 0.75 + 0) / 3, 10);
  });

  it("judges a section as a whole when its method is not average, still reporting its fields", async () => {
    const m = metrics("report:\n  method: average\n  fields:\n    V:\n      method: llm_judge\n      fields:\n        A: {method: exact_match}\n");
    const { judge, grades } = scriptedJudge(() => 0.25);
    const r = await scoreReportTree(m, { V: { A: "x" } }, { V: { A: "y" } }, opts(judge));
    expect(child(r, "V")).toMatchObject({ method: "llm_judge", score: 0.25 });
    expect(child(r, "V", "A")).toMatchObject({ score: 0 });
    // The section goes to the judge as JSON with indent 2, as json.dumps writes it.
    expect(grades[0]!.messages[1]!.content).toContain('{\n  "A": "y"\n}');
  });
});

describe("dynamic field discovery", () => {
  const tree = metrics("report:\n  method: average\n  fields:\n    S:\n      method: average\n      allow_dynamic_field_discovery: true\n      fields:\n        Camera: {method: exact_match}\n");
  const reference = { S: { Camera: "c", Severity: "high", Weather: "rain", Extra: "e" } };
  const actual = { S: { Camera: "c", Level: "High", Notes: "n" } };

  it("maps all unlisted fields in one judge call against the whole reference section", async () => {
    const { judge, discoveries } = scriptedJudge(() => 1, () => [
      { field: "Level", referenceField: "Severity", score: 0.9 },
      { field: "Notes", referenceField: null, score: 0 },
    ]);
    const r = await scoreReportTree(tree, reference, actual, opts(judge));
    expect(discoveries).toHaveLength(1);
    expect(Object.keys(discoveries[0]!.actual)).toEqual(["Level", "Notes"]);
    expect(Object.keys(discoveries[0]!.candidates)).toEqual(["Camera", "Severity", "Weather", "Extra"]);
    expect(child(r, "S", "Level")).toMatchObject({ method: "llm_judge_with_field_discovery", score: 0.9, referenceField: "Severity", reference: "high" });
    expect(child(r, "S", "Notes")).toMatchObject({ score: 0, referenceField: null, reference: "[no matching reference field found in LLM response]" });
    expect(child(r, "S").score).toBeCloseTo((1 + 0.9 + 0) / 3, 10);
  });

  it("penalises reference fields nothing covers, when asked (an Agentboard option, off by default)", async () => {
    const { judge } = scriptedJudge(() => 1, () => [
      { field: "Level", referenceField: "Severity", score: 1 },
      { field: "Notes", referenceField: null, score: 0 },
    ]);
    const r = await scoreReportTree(tree, reference, actual, opts(judge, true));
    expect(child(r, "S", "Weather")).toMatchObject({ method: "missing_from_report", score: 0 });
    expect(child(r, "S").fields!.Severity).toBeUndefined();
    expect(child(r, "S").score).toBeCloseTo(2 / 5, 10);
  });

  it("turns a failed discovery call into a judge fault on each discovered field", async () => {
    const { judge } = scriptedJudge(() => 1);
    const r = await scoreReportTree(tree, reference, actual, opts(judge));
    expect(child(r, "S", "Level")).toMatchObject({ status: "error", judgeFault: true });
    expect(child(r, "S", "Level").error).toMatch(/^LLM failed to score this field during discovery/);
    expect(child(r, "S", "Camera")).toMatchObject({ status: "scored", score: 1 });
    expect(r.status).toBe("error");
  });

  it("maps by name with the rules judge", async () => {
    const rules = await scoreReportTree(tree, reference, { S: { Camera: "c", "severity ": "HIGH", weather_today: "rain" } }, opts(createRulesGrader()));
    expect(child(rules, "S", "severity ")).toMatchObject({ referenceField: "Severity", score: 1 });
    expect(child(rules, "S", "weather_today")).toMatchObject({ referenceField: "Weather", score: 1 });
  });
});

describe("report evaluator", () => {
  const m = metrics("report:\n  method: average\n  fields:\n    title: {method: exact_match}\n    Analysis: {method: f1}\n    Summary:\n      method: average\n      fields:\n        Camera: {method: exact_match}\n");
  const item = (over: Partial<EvalItem>): EvalItem => ({
    id: "r",
    query: "write it",
    groundTruth: "ref.json",
    methods: ["report"],
    trajectoryGroundTruth: null,
    conversation: null,
    history: [],
    output: { answer: null, toolCalls: null, events: null, timestamps: [], report: { ok: true, value: { title: "T", Analysis: "a b", Summary: { Camera: "c" } }, source: "inline JSON" } },
    referenceReport: { ok: true, value: { title: "T", Analysis: "a b c d", Summary: { Camera: "x" } }, source: "ref.json" },
    path: "$[0]",
    ...over,
  });

  it("scores the tree and the VLM sub-score", async () => {
    const ev = createReportEvaluator({ name: "report", judge: createRulesGrader(), metrics: m, vlmFields: ["Analysis", "Summary"] });
    const r = await evaluateItem(ev, item({}));
    // title 1; Analysis token F1 of {a, b} vs {a, b, c, d} = 2/3; Summary 0.
    expect(r).toMatchObject({ status: "scored", judge: "rules" });
    expect(r.score).toBeCloseTo((1 + 2 / 3 + 0) / 3, 10);
    expect(r.subScores.vlm_field).toBeCloseTo(1 / 3, 10);
    expect((r.details!.metadata as Record<string, string>).reference_file).toBe("ref.json");
  });

  it("scores a missing report 0 (the agent's failure), makes an unreadable reference an error, and refuses unknown VLM fields up front", async () => {
    const ev = createReportEvaluator({ name: "report", judge: createRulesGrader(), metrics: m });
    expect(await evaluateItem(ev, item({ referenceReport: { ok: false, error: "cannot read the reference report r.json: ENOENT", source: "r.json" } }))).toMatchObject({ status: "error", score: null, error: "cannot read the reference report r.json: ENOENT" });
    expect(await evaluateItem(ev, item({ output: { answer: "x", toolCalls: null, events: null, timestamps: [], report: null } }))).toMatchObject({ status: "scored", score: 0 });
    expect(await evaluateItem(ev, item({ output: null }))).toMatchObject({ status: "scored", score: 0, reasoning: "no agent output for this item" });
    expect(await evaluateItem(ev, item({ methods: ["qa"] }))).toMatchObject({ status: "skipped", score: null, reasoning: "Skipped: not marked for report evaluation" });
    expect(() => createReportEvaluator({ name: "report", judge: createRulesGrader(), metrics: m, vlmFields: ["Analysys"] })).toThrow(/vlmFields: "Analysys" name no field of the metrics tree/);
  });

  it("in NAT's style keeps a VLM field the tree does not list, counting only the fields found (none found: no sub-score)", async () => {
    const ev = createReportEvaluator({ name: "report", judge: createRulesGrader(), metrics: m, vlmFields: ["Analysis", "Analysys"], style: "nat" });
    const r = await evaluateItem(ev, item({}));
    expect(r.subScores.vlm_field).toBeCloseTo(2 / 3, 10);
    const none = createReportEvaluator({ name: "report", judge: createRulesGrader(), metrics: m, vlmFields: ["Nope"], style: "nat" });
    expect((await evaluateItem(none, item({}))).subScores.vlm_field).toBeNull();
  });

  it("names every field the judge could not score in the item's error", async () => {
    const { judge } = scriptedJudge(() => gaveUp("judge failed after 2 attempts: timed out after 100 ms"));
    const judged = metrics("report:\n  method: average\n  fields:\n    title: {method: exact_match}\n    Analysis: {}\n");
    const ev = createReportEvaluator({ name: "report", judge, metrics: judged });
    const r = await evaluateItem(ev, item({}));
    expect(r).toMatchObject({ status: "error", score: null, reason: "1 field(s) could not be scored" });
    expect(r.error).toMatch(/^1 field\(s\) could not be scored: report\.Analysis: Evaluation failed: metric returned None/);
    expect(r.details).not.toBeNull();
  });
});
