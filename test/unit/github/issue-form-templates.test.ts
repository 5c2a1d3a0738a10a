/**
 * Issues written with other benchmarks' templates: VAKRA's older `submission_template.yml`
 * (label agent-submission: contact, agent type) and its current `leaderboard_submission.yml`
 * (label benchmark-output-submission: Model(s) Used, no contact), read through the alias table;
 * problems named as the submitter's form shows them.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parseIssueForm, type IssueFormResult } from "@/lib/github/issue-form";

const fixture = (name: string) => readFileSync(path.join(import.meta.dirname, "../../fixtures/github", name), "utf8");
/** VAKRA's older form (submission_template.yml, agent-submission), with every field filled. */
const VAKRA = fixture("vakra-agent-submission.md").replace("{{ZIP_URL}}", "https://github.com/example/harbor/releases/download/v1/outputs.zip");
/** VAKRA's current form (leaderboard_submission.yml, benchmark-output-submission). */
const VAKRA_CURRENT = fixture("vakra-benchmark-output-submission.md");

function problems(r: IssueFormResult) {
  if (r.ok) throw new Error("expected problems");
  return r.problems.map((p) => `${p.label}: ${p.expected}`);
}

describe("VAKRA's issue templates", () => {
  it("reads every field of VAKRA's older template, contact, type and notes included", () => {
    const r = parseIssueForm(VAKRA);
    if (!r.ok) throw new Error(JSON.stringify(r.problems));
    expect(r.submission).toMatchObject({
      agentName: "harbor-react-agent",
      maintainer: "Harbor Evaluation Team",
      contact: "harbor-team@example.org",
      models: ["gpt-4.1 / llama-405b"],
      agentType: "Tool-using",
      metadata: { framework: "LangGraph", tools: ["search", "calculator"], latency_ms: 1200 },
      zipUrl: "https://github.com/example/harbor/releases/download/v1/outputs.zip",
      notes: "Run with temperature 0.",
    });
    expect(r.submission.checklist.map((c) => c.checked)).toEqual([true, true, true, true]);
  });

  it("reads VAKRA's current template (Model(s) Used, no contact)", () => {
    const r = parseIssueForm(VAKRA_CURRENT);
    if (!r.ok) throw new Error(JSON.stringify(r.problems));
    expect(r.submission).toMatchObject({ models: ["gpt-4.1"], contact: "", agentType: "", notes: "", metadata: {} });
  });

  it("matches headings whatever their case and punctuation", () => {
    const body = VAKRA.replace("### Model Used", "### MODELS USED:").replace("### ZIP File Link", "### zip-file link").replace("### Agent Name", "###   agent  name ");
    const r = parseIssueForm(body);
    expect(r.ok && [r.submission.agentName, r.submission.models[0], r.submission.zipUrl]).toEqual(["harbor-react-agent", "gpt-4.1 / llama-405b", "https://github.com/example/harbor/releases/download/v1/outputs.zip"]);
  });

  it("names every missing or malformed field as the submitter's form shows it", () => {
    const body = VAKRA.replace("harbor-react-agent", "_No response_")
      .replace("https://github.com/example/harbor/releases/download/v1/outputs.zip", "ftp://example.org/x.zip")
      .replace('"latency_ms": 1200', '"latency_ms": ')
      .replace("- [X] We ran the agent ourselves first", "- [ ] We ran the agent ourselves first")
      .replace("### Maintainer\n\nHarbor Evaluation Team\n\n", "");
    expect(problems(parseIssueForm(body))).toEqual([
      "Agent Name: expected a value (this field is required)",
      "Maintainer or organisation: expected a value (this field is required)",
      "Metadata (JSON): line 5 column 1: expected a value (string, number, object, array, true, false or null)",
      "ZIP File Link: expected an https URL",
      'Validation Checklist: expected every item to be ticked; not ticked: "We ran the agent ourselves first"',
    ]);
  });

  it("bounds the new fields", () => {
    expect(problems(parseIssueForm(VAKRA.replace("harbor-team@example.org", "x".repeat(201))))).toEqual(["Maintainer Contact: expected at most 200 characters"]);
    expect(problems(parseIssueForm(VAKRA.replace("Run with temperature 0.", "n".repeat(5_001))))).toEqual(["Additional Notes: expected at most 5000 characters"]);
    expect(problems(parseIssueForm(VAKRA.replace("Tool-using", "Tool\u202eusing")))).toEqual(["Agent Type: expected no control or bidirectional-override characters"]);
  });
});
