/** The metrics tree: parsing, sections, skips, discovery, missing-field penalty, errors, VLM sub-score. */
import { describe, expect, it } from "vitest";
import type { EvalItem } from "@/lib/formats/eval-dataset";
import { parseMetricsYaml, type MetricNode } from "@/lib/formats/eval-metrics";
import type { Grade, Grader } from "@/lib/scoring/judges/grader";
import { createRulesGrader } from "@/lib/scoring/judges/rules-grader";
import { evaluateItem } from "@/lib/scoring/evaluators/evaluator";
import { DEFAULT_DISCOVERY_TEMPLATE, DEFAULT_FIELD_TEMPLATE } from "@/lib/scoring/evaluators/prompts";
import { createReportEvaluator } from "@/lib/scoring/evaluators/report-evaluator";
import { scoreReportTree, type FieldScore } from "@/lib/scoring/evaluators/report-tree";
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

const opts = (judge: Grader, penalizeMissingFields = false) => ({ judge, fieldTemplate: DEFAULT_FIELD_TEMPLATE, discoveryTemplate: DEFAULT_DISCOVERY_TEMPLATE, penalizeMissingFields });
const child = (f: FieldScore, ...names: string[]) => names.reduce<FieldScore>((acc, n) => acc.fields![n]!, f);

describe("metrics YAML", () => {
  it("defaults sections to average and leaves to llm_judge", () => {
    const root = metrics("report:\n  fields:\n    Title: {method: exact_match}\n    Summary:\n      allow_dynamic_field_discovery: true\n    Analysis:\n");
    expect(root.method).toBe("average");
    expect(root.fields.map((f) => [f.path, f.method, f.discovery])).toEqual([
      ["report.Title", "exact_match", false],
      ["report.Summary", "average", true],
      ["report.Analysis", "llm_judge", false],
    ]);
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
    expect(errs("report:\n  method: llm_judge\n  fields: {T: {}}")).toEqual(['m.yaml: report: a section with fields must use "average" (method "llm_judge" would score the whole section and ignore its fields)']);
    expect(errs("report:\n  fields: {T: {method: f1, penalize_missing_fields: true}}")).toEqual(['m.yaml: report.T: "penalize_missing_fields" applies to sections only']);
    expect(errs("report: [")[0]).toMatch(/^m\.yaml: invalid YAML/);
  });
});

describe("report tree", () => {
  const tree = metrics(`
report:
  fields:
    title: {method: exact_match}
    Summary:
      fields:
        Camera: {method: exact_match}
        Time: {method: regex}
        Vehicles: {method: f1}
        Notes: {method: non_empty}
    Analysis: {description: what the footage shows}
`);
  const reference = { title: "T", Summary: { Camera: "cam-07", Time: "08:4\\d", Vehicles: "forklift, truck", Notes: "n" }, Analysis: "The worker stepped back." };

  it("averages each section over its scored fields, by hand", async () => {
    const { judge, grades } = scriptedJudge(() => 0.5);
    const actual = { title: "T", Summary: { Camera: "cam-7", Time: "08:43", Vehicles: "truck" }, Analysis: "He stepped back." };
    const r = await scoreReportTree(tree, reference, actual, opts(judge));
    // Summary: Camera 0, Time 1, Vehicles F1 2/3 (P 1, R 1/2), Notes 0 (absent) → (0 + 1 + 2/3 + 0) / 4.
    expect(child(r, "Summary").score).toBeCloseTo((1 + 2 / 3) / 4, 10);
    expect(child(r, "Summary", "Notes")).toMatchObject({ status: "scored", score: 0, reasoning: "the report lacks this field" });
    expect(child(r, "Analysis")).toMatchObject({ method: "llm_judge", score: 0.5 });
    expect(r.score).toBeCloseTo((1 + (1 + 2 / 3) / 4 + 0.5) / 3, 10);
    // One judge call, for the only llm_judge leaf; it carries the field, its description and both values.
    expect(grades).toHaveLength(1);
    expect(grades[0]!.messages[1]!.content).toContain("report.Analysis: what the footage shows");
    expect(grades[0]!.messages[1]!.content).toContain("He stepped back.");
  });

  it("skips fields the reference lacks instead of scoring them, and never asks the judge about empty values", async () => {
    const { judge, grades } = scriptedJudge(() => 1);
    const r = await scoreReportTree(tree, { title: "T", Summary: { Camera: "c" }, Analysis: "" }, { title: "T", Summary: { Camera: "c", Time: "x" }, Analysis: "" }, opts(judge));
    expect(child(r, "Summary", "Time")).toMatchObject({ status: "skipped", score: null, reasoning: "the reference has no value for this field" });
    expect(child(r, "Summary", "Notes")).toMatchObject({ status: "scored", score: 0 });
    expect(child(r, "Analysis")).toMatchObject({ score: 1, reasoning: "both empty" });
    // Summary: Camera 1, Notes 0 (non_empty needs no reference); Time and Vehicles skipped.
    expect(child(r, "Summary")).toMatchObject({ score: 0.5, reasoning: "mean of 2 field(s) (2 skipped)" });
    expect(grades).toHaveLength(0);
    const oneEmpty = await scoreReportTree(tree, reference, { ...reference, Analysis: "" }, opts(judge));
    expect(child(oneEmpty, "Analysis")).toMatchObject({ score: 0, reasoning: "empty in the report" });
    expect(grades).toHaveLength(0);
  });

  it("makes an invalid regex and a failing judge errors, never zeros", async () => {
    const { judge } = scriptedJudge(() => gaveUp("judge failed after 3 attempts: HTTP 500"));
    const r = await scoreReportTree(tree, { ...reference, Summary: { ...reference.Summary, Time: "08:(4" } }, reference, opts(judge));
    expect(child(r, "Summary", "Time")).toMatchObject({ status: "error", score: null });
    expect(child(r, "Summary", "Time").error).toMatch(/^invalid regular expression "08:\(4"/);
    expect(child(r, "Analysis")).toMatchObject({ status: "error", error: "judge failed after 3 attempts: HTTP 500" });
    expect(r).toMatchObject({ status: "error", score: null, error: "2 field(s) could not be scored" });
  });

  it("makes a reference section that is not fields an error, and a report section that is text a 0", async () => {
    const r = await scoreReportTree(tree, { ...reference, Summary: "text" }, reference, opts(createRulesGrader()));
    expect(child(r, "Summary")).toMatchObject({ status: "error", error: "the reference's report.Summary is text, not a section of fields" });
    const t = await scoreReportTree(tree, reference, { ...reference, Summary: "all fine" }, opts(createRulesGrader()));
    expect(child(t, "Summary")).toMatchObject({ status: "scored", score: 0 });
    expect(child(t, "Summary").reasoning).toContain("the report's report.Summary is text, not fields");
  });
});

describe("dynamic field discovery", () => {
  const tree = metrics("report:\n  fields:\n    S:\n      allow_dynamic_field_discovery: true\n      fields:\n        Camera: {method: exact_match}\n");
  const reference = { S: { Camera: "c", Severity: "high", Weather: "rain", Extra: "e" } };
  const actual = { S: { Camera: "c", Level: "High", Notes: "n" } };

  it("maps all unlisted fields in one judge call; a field with no counterpart scores 0", async () => {
    const { judge, discoveries } = scriptedJudge(() => 1, () => [
      { field: "Level", referenceField: "Severity", score: 0.9 },
      { field: "Notes", referenceField: null, score: 0.7 },
    ]);
    const r = await scoreReportTree(tree, reference, actual, opts(judge));
    expect(discoveries).toHaveLength(1);
    expect(Object.keys(discoveries[0]!.actual)).toEqual(["Level", "Notes"]);
    expect(Object.keys(discoveries[0]!.candidates)).toEqual(["Severity", "Weather", "Extra"]);
    expect(child(r, "S", "Level")).toMatchObject({ method: "llm_judge_with_field_discovery", score: 0.9, referenceField: "Severity", reference: "high" });
    expect(child(r, "S", "Notes")).toMatchObject({ score: 0, referenceField: null });
    expect(child(r, "S").score).toBeCloseTo((1 + 0.9 + 0) / 3, 10);
  });

  it("penalises reference fields nothing covers, when asked", async () => {
    const { judge } = scriptedJudge(() => 1, () => [
      { field: "Level", referenceField: "Severity", score: 1 },
      { field: "Notes", referenceField: null, score: 0 },
    ]);
    const r = await scoreReportTree(tree, reference, actual, opts(judge, true));
    expect(child(r, "S", "Weather")).toMatchObject({ method: "missing_from_report", score: 0 });
    expect(child(r, "S", "Extra")).toMatchObject({ method: "missing_from_report", score: 0 });
    expect(child(r, "S").fields!.Severity).toBeUndefined();
    // Camera 1, Level 1, Notes 0, Weather 0, Extra 0.
    expect(child(r, "S").score).toBeCloseTo(2 / 5, 10);
    const sectionOff = metrics("report:\n  fields:\n    S:\n      allow_dynamic_field_discovery: true\n      penalize_missing_fields: false\n      fields:\n        Camera: {method: exact_match}\n");
    const r2 = await scoreReportTree(sectionOff, reference, actual, opts(judge, true));
    expect(child(r2, "S").fields!.Weather).toBeUndefined();
  });

  it("turns a failed discovery call into an error on each discovered field", async () => {
    const { judge } = scriptedJudge(() => 1);
    const r = await scoreReportTree(tree, reference, actual, opts(judge));
    expect(child(r, "S", "Level")).toMatchObject({ status: "error", error: "field discovery failed: judge failed after 3 attempts: HTTP 503" });
    expect(child(r, "S", "Camera")).toMatchObject({ status: "scored", score: 1 });
    expect(r.status).toBe("error");
  });

  it("maps by name with the rules judge, and scores 0 without a call when no reference field is left", async () => {
    const rules = await scoreReportTree(tree, reference, { S: { Camera: "c", "severity ": "HIGH", weather_today: "rain" } }, opts(createRulesGrader()));
    expect(child(rules, "S", "severity ")).toMatchObject({ referenceField: "Severity", score: 1 });
    expect(child(rules, "S", "weather_today")).toMatchObject({ referenceField: "Weather", score: 1 });
    const { judge, discoveries } = scriptedJudge(() => 1, () => []);
    const r = await scoreReportTree(tree, { S: { Camera: "c" } }, actual, opts(judge));
    expect(discoveries).toHaveLength(0);
    expect(child(r, "S", "Level")).toMatchObject({ score: 0, referenceField: null });
  });
});

describe("report evaluator", () => {
  const m = metrics("report:\n  fields:\n    title: {method: exact_match}\n    Analysis: {}\n    Summary:\n      fields:\n        Camera: {method: exact_match}\n");
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
    // title 1; Analysis token F1 of "a b" vs "a b c d" = 2/3; Summary 0.
    expect(r).toMatchObject({ status: "scored", judge: "rules" });
    expect(r.score).toBeCloseTo((1 + 2 / 3 + 0) / 3, 10);
    expect(r.subScores.vlm_field).toBeCloseTo(1 / 3, 10);
    expect((r.details!.metadata as Record<string, string>).reference_file).toBe("ref.json");
  });

  it("makes unreadable references and reports errors, and refuses unknown VLM fields up front", async () => {
    const ev = createReportEvaluator({ name: "report", judge: createRulesGrader(), metrics: m });
    expect(await evaluateItem(ev, item({ referenceReport: { ok: false, error: "cannot read the reference report r.json: ENOENT", source: "r.json" } }))).toMatchObject({ status: "error", score: null, error: "cannot read the reference report r.json: ENOENT" });
    expect(await evaluateItem(ev, item({ output: { answer: "x", toolCalls: null, events: null, timestamps: [], report: null } }))).toMatchObject({ status: "error", error: "the agent's output has no report (report or report_path)" });
    expect(await evaluateItem(ev, item({ output: null }))).toMatchObject({ status: "error", error: "no agent output for this item" });
    expect(await evaluateItem(ev, item({ methods: ["qa"] }))).toMatchObject({ status: "skipped", score: null, reasoning: 'Skipped: not marked for report evaluation (evaluation_method: ["qa"])' });
    expect(() => createReportEvaluator({ name: "report", judge: createRulesGrader(), metrics: m, vlmFields: ["Analysys"] })).toThrow(/vlmFields: "Analysys" name no field of the metrics tree/);
  });

  it("names every field that could not be scored in the item's error", async () => {
    const { judge } = scriptedJudge(() => gaveUp("judge failed after 2 attempts: timed out after 100 ms"));
    const ev = createReportEvaluator({ name: "report", judge, metrics: m });
    const r = await evaluateItem(ev, item({}));
    expect(r).toMatchObject({
      status: "error",
      score: null,
      error: "1 field(s) could not be scored: report.Analysis: judge failed after 2 attempts: timed out after 100 ms",
      reason: "1 field(s) could not be scored",
    });
    expect(r.details).not.toBeNull();
  });
});
