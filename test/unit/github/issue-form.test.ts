import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import {
  DEFAULT_MAX_BODY_CHARS,
  SUBMISSION_CHECKLIST,
  SUBMISSION_FORM,
  SUBMISSION_LABEL,
  describeProblem,
  parseIssueForm,
  renderFormProblems,
  renderIssueFormBody,
  type FormProblem,
  type IssueFormValues,
  type IssueSubmission,
  type SubmissionField,
} from "../../../lib/github/issue-form";

const repo = path.resolve(import.meta.dirname, "../../..");

const VALUES: IssueFormValues = {
  agentName: "planner-executor-v2",
  maintainer: "Jane Doe, Example Labs",
  models: ["gpt-4.1", "meta-llama/Llama-3.3-70B-Instruct"],
  description: "Plans first, then calls tools.\n\nUses a retriever for capability 4.",
  metadata: { code: "https://github.com/example/agent", temperature: 0 },
  zipUrl: "https://github.com/example/agent/releases/download/v1/outputs.zip",
  zipContents: "capability_1_bi_apis/cider_house.json",
};

function ok(body: string): IssueSubmission {
  const result = parseIssueForm(body);
  if (!result.ok) throw new Error(`expected a valid form, got: ${result.problems.map(describeProblem).join("; ")}`);
  return result.submission;
}

function problems(body: string): string[] {
  const result = parseIssueForm(body);
  if (result.ok) throw new Error("expected problems, the form parsed");
  return result.problems.map(describeProblem);
}

/** A body with one section's text replaced (or the section removed when `text` is null). */
function withSection(field: SubmissionField, text: string | null, base = renderIssueFormBody(VALUES)): string {
  const label = SUBMISSION_FORM[field].label;
  const sections = base.split(/\n(?=### )/);
  const out = sections.flatMap((s) => (s.startsWith(`### ${label}\n`) ? (text === null ? [] : [`### ${label}\n\n${text}\n`]) : [s]));
  return out.join("\n");
}

describe("parseIssueForm", () => {
  it("reads every field of a well-formed body", () => {
    expect(ok(renderIssueFormBody(VALUES))).toEqual({
      agentName: "planner-executor-v2",
      maintainer: "Jane Doe, Example Labs",
      models: ["gpt-4.1", "meta-llama/Llama-3.3-70B-Instruct"],
      description: "Plans first, then calls tools.\n\nUses a retriever for capability 4.",
      metadata: { code: "https://github.com/example/agent", temperature: 0 },
      zipUrl: "https://github.com/example/agent/releases/download/v1/outputs.zip",
      zipContents: "capability_1_bi_apis/cider_house.json",
      contact: "",
      agentType: "",
      notes: "",
      checklist: SUBMISSION_CHECKLIST.map((label) => ({ label, checked: true })),
    });
  });

  it("reads a body exactly as GitHub renders the form", () => {
    const body = [
      "### Agent name",
      "",
      "react-baseline",
      "",
      "### Maintainer or organisation",
      "",
      "Example Labs",
      "",
      "### Models used",
      "",
      "- gpt-4.1, gpt-4.1-mini",
      "- gpt-4.1",
      "",
      "### Description",
      "",
      "A ReAct loop.",
      "",
      "### Metadata JSON",
      "",
      "```json",
      '{"framework": "langgraph", "version": "0.4"}',
      "```",
      "",
      "### ZIP link",
      "",
      "https://example.org/outputs.zip",
      "",
      "### ZIP contents",
      "",
      "_No response_",
      "",
      "### Checklist",
      "",
      "- [X] one",
      "- [x] two",
    ].join("\n");
    const s = ok(body);
    expect(s.models).toEqual(["gpt-4.1", "gpt-4.1-mini"]);
    expect(s.metadata).toEqual({ framework: "langgraph", version: "0.4" });
    expect(s.zipContents).toBe("");
    expect(s.checklist).toEqual([
      { label: "one", checked: true },
      { label: "two", checked: true },
    ]);
  });

  it("treats CRLF and CR line endings like LF", () => {
    const lf = renderIssueFormBody(VALUES);
    expect(ok(lf.replace(/\n/g, "\r\n"))).toEqual(ok(lf));
    expect(ok(lf.replace(/\n/g, "\r"))).toEqual(ok(lf));
  });

  it("leaves optional fields empty when their sections are missing or say _No response_", () => {
    const body = withSection("zipContents", null, withSection("metadata", "_No response_"));
    const s = ok(body);
    expect(s.metadata).toEqual({});
    expect(s.zipContents).toBe("");
  });

  it("names every missing required field by its label", () => {
    expect(problems("")).toEqual([
      "Agent name: expected a value (this field is required)",
      "Maintainer or organisation: expected a value (this field is required)",
      "Models used: expected a value (this field is required)",
      "Description: expected a value (this field is required)",
      "ZIP link: expected a value (this field is required)",
      "Checklist: expected the checklist, with every item ticked",
    ]);
  });

  it("treats _No response_ in a required field as missing", () => {
    expect(problems(withSection("agentName", "_No response_"))).toEqual(["Agent name: expected a value (this field is required)"]);
    expect(problems(withSection("models", "_No response_"))).toEqual([
      "Models used: expected at least one model name (one per line or separated by commas)",
    ]);
  });

  it.each([
    ["http://example.org/outputs.zip", "ZIP link: expected an https URL"],
    ["ftp://example.org/outputs.zip", "ZIP link: expected an https URL"],
    ["outputs.zip", "ZIP link: expected an https URL"],
    ["javascript:alert(1)", "ZIP link: expected an https URL"],
    ["https://user:secret@example.org/outputs.zip", "ZIP link: expected an https URL without credentials"],
    ["https://example.org/a.zip https://example.org/b.zip", "ZIP link: expected an https URL (a single link, no spaces)"],
  ])("rejects the ZIP link %s", (link, message) => {
    expect(problems(withSection("zipUrl", link))).toEqual([message]);
  });

  it("accepts a ZIP link in angle brackets and normalises it", () => {
    expect(ok(withSection("zipUrl", "<https://Example.org/a%20b.zip>")).zipUrl).toBe("https://example.org/a%20b.zip");
  });

  it("locates a metadata JSON syntax error by line and column", () => {
    const json = '{\n  "a": 1\n  "b": 2\n}';
    expect(problems(withSection("metadata", "```json\n" + json + "\n```"))).toEqual([
      "Metadata JSON: line 3 column 3: expected ',' or '}' after a property",
    ]);
  });

  it("locates a truncated metadata JSON", () => {
    expect(problems(withSection("metadata", '```json\n{"a": [1, 2\n```'))).toEqual(["Metadata JSON: line 1 column 12: expected ',' or ']'"]);
  });

  it("accepts unfenced metadata JSON and refuses JSON that is not an object", () => {
    expect(ok(withSection("metadata", '{"x": true}')).metadata).toEqual({ x: true });
    expect(problems(withSection("metadata", "```json\n[1, 2]\n```"))).toEqual(["Metadata JSON: expected a JSON object, got an array"]);
    expect(problems(withSection("metadata", "```json\n\"text\"\n```"))).toEqual(["Metadata JSON: expected a JSON object, got a string"]);
    expect(problems(withSection("metadata", "```json\nnull\n```"))).toEqual(["Metadata JSON: expected a JSON object, got null"]);
  });

  it("requires every checklist item to be ticked and names the ones that are not", () => {
    const body = withSection("checklist", "- [X] The ZIP link is public\n- [ ] No personal data\n- [ ] Validator run");
    expect(problems(body)).toEqual(['Checklist: expected every item to be ticked; not ticked: "No personal data", "Validator run"']);
  });

  it("splits models on commas and lines, drops bullets and duplicates", () => {
    expect(ok(withSection("models", "* gpt-4.1,  claude-x \n\n- gpt-4.1\nqwen/Qwen3-32B")).models).toEqual(["gpt-4.1", "claude-x", "qwen/Qwen3-32B"]);
  });

  it("refuses a multi-line agent name and hidden control characters", () => {
    expect(problems(withSection("agentName", "first\nsecond"))).toEqual(["Agent name: expected a single line"]);
    expect(problems(withSection("agentName", "safe\u202Eexe.fdp"))).toEqual(["Agent name: expected no control or bidirectional-override characters"]);
    expect(problems(withSection("maintainer", "a\u0007b"))).toEqual(["Maintainer or organisation: expected no control or bidirectional-override characters"]);
  });

  it("enforces length limits per field", () => {
    expect(problems(withSection("agentName", "x".repeat(101)))).toEqual(["Agent name: expected at most 100 characters"]);
    expect(ok(withSection("agentName", "x".repeat(100))).agentName).toHaveLength(100);
  });

  it("ignores extra sections", () => {
    const body = "### Preamble\n\nhello\n\n" + renderIssueFormBody(VALUES) + "\n### Additional notes\n\nnothing\n";
    expect(ok(body)).toEqual(ok(renderIssueFormBody(VALUES)));
  });

  it("does not take a heading inside a code fence for a section", () => {
    const s = ok(withSection("description", "Before\n\n```md\n### ZIP link\n\nhttps://evil.example/x.zip\n```\nAfter"));
    expect(s.zipUrl).toBe(VALUES.zipUrl);
    expect(s.description).toBe("Before\n\n```md\n### ZIP link\n\nhttps://evil.example/x.zip\n```\nAfter");
  });

  it("takes the first of two sections with the same heading", () => {
    const body = renderIssueFormBody(VALUES) + "\n### ZIP link\n\nhttps://second.example/x.zip\n";
    expect(ok(body).zipUrl).toBe(VALUES.zipUrl);
  });

  it("reads headings case-insensitively and accepts VAKRA's own labels", () => {
    const body = [
      "### Agent Name\n\nvakra-agent",
      "### Maintainer\n\nIBM",
      "### Model Used\n\ngpt-4.1 ",
      "### Agent Description\n\nA VAKRA-templated issue.",
      "### Output ZIP File Link\n\nhttps://example.org/v.zip",
      "### ZIP Contents Description\n\n_No response_",
      "### Validation Checklist\n\n- [X] Every JSON file in the archive parses",
      "### Additional Notes\n\n_No response_",
    ].join("\n\n");
    const s = ok(body);
    expect(s).toMatchObject({ agentName: "vakra-agent", maintainer: "IBM", models: ["gpt-4.1"], zipUrl: "https://example.org/v.zip", metadata: {} });
  });

  it("keeps script tags as data", () => {
    const s = ok(withSection("agentName", "<script>alert(1)</script>"));
    expect(s.agentName).toBe("<script>alert(1)</script>");
  });

  it("refuses a 1 MB body unread: only its length is looked at (timed by npm run bench:hot-paths)", () => {
    const body = renderIssueFormBody({ ...VALUES, description: "a".repeat(1_048_576) });
    // A String object behind a proxy records every property the parser touches.
    const touched = new Set<PropertyKey>();
    const watched = new Proxy(new String(body), {
      get(target, key) {
        touched.add(key);
        const value = Reflect.get(target, key, target) as unknown;
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    const result = parseIssueForm(watched as unknown as string);
    expect([...touched]).toEqual(["length"]);
    expect(result).toEqual({
      ok: false,
      problems: [{ field: "body", label: "Issue body", expected: `expected at most ${DEFAULT_MAX_BODY_CHARS} characters, got ${body.length}` }],
    });
  });

  it("parses a body at the size cap, hostile whitespace included (timed by npm run bench:hot-paths)", () => {
    const filler = " ".repeat(DEFAULT_MAX_BODY_CHARS - 3_000);
    const body = withSection("metadata", "```json\n{\"a\":" + filler + "1}\n```");
    expect(body.length).toBeLessThanOrEqual(DEFAULT_MAX_BODY_CHARS);
    expect(problems(body)).toEqual(["Metadata JSON: expected at most 20000 characters of JSON"]);
    const many = withSection("description", "### x\n".repeat(40_000)); // 40k headings
    expect(parseIssueForm(many).ok).toBe(false);
  });

  it("honours a custom body cap", () => {
    expect(parseIssueForm("x".repeat(11), { maxBodyChars: 10 })).toMatchObject({ ok: false, problems: [{ field: "body" }] });
  });
});

describe("renderFormProblems", () => {
  const problem = (expected: string): FormProblem => ({ field: "checklist", label: "Checklist", expected });

  it("lists each problem with its label in bold", () => {
    const text = renderFormProblems([{ field: "zipUrl", label: "ZIP link", expected: "expected an https URL" }]);
    expect(text).toBe("The submission form has a problem. Please edit the issue to fix it:\n\n- **ZIP link**: expected an https URL\n");
  });

  it("escapes markup and mentions copied from the issue", () => {
    const result = parseIssueForm(withSection("checklist", "- [ ] <script>alert('x')</script> ping @org/team [link](https://evil.example)"));
    expect(result.ok).toBe(false);
    const text = renderFormProblems(result.ok ? [] : result.problems);
    expect(text).not.toContain("<script");
    expect(text).toContain("&lt;script&gt;");
    expect(text).not.toMatch(/@org/);
    expect(text).not.toContain("](https://");
  });

  it("caps the list and says how many were left out", () => {
    const text = renderFormProblems(Array.from({ length: 5 }, (_, i) => problem(`p${i}`)), { max: 2 });
    expect(text.match(/^- /gm)).toHaveLength(3);
    expect(text).toContain("…and 3 more");
    expect(text).toContain("problems. Please edit the issue to fix them");
  });
});

describe("the issue template", () => {
  interface TemplateField {
    type: string;
    id?: string;
    attributes: { label?: string; render?: string; options?: { label: string; required?: boolean }[] };
    validations?: { required?: boolean };
  }
  const template = parseYaml(readFileSync(path.join(repo, ".github/ISSUE_TEMPLATE/leaderboard_submission.yml"), "utf8")) as {
    name: string;
    description: string;
    labels: string[];
    body: TemplateField[];
  };
  const fields = template.body.filter((f) => f.type !== "markdown");

  it("parses as YAML and marks submissions with the label", () => {
    expect(template.name).toBeTruthy();
    expect(template.description).toBeTruthy();
    expect(template.labels).toContain(SUBMISSION_LABEL);
  });

  it("gives every field a unique id and label", () => {
    const ids = fields.map((f) => f.id);
    expect(ids.every((id) => typeof id === "string" && /^[a-z0-9_-]+$/.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    const labels = fields.map((f) => f.attributes.label?.toLowerCase());
    expect(new Set(labels).size).toBe(labels.length);
  });

  it("has the parser's fields, in order, with the same ids, labels and required flags", () => {
    // A checkbox group is required through its options, other fields through `validations`.
    const required = (f: TemplateField) =>
      f.type === "checkboxes" ? (f.attributes.options ?? []).every((o) => o.required === true) : (f.validations?.required ?? false);
    expect(fields.map((f) => ({ id: f.id, label: f.attributes.label, required: required(f) }))).toEqual(
      Object.values(SUBMISSION_FORM).map((s) => ({ id: s.id, label: s.label, required: s.required })),
    );
  });

  it("lists the checklist items the renderer uses, all required", () => {
    const checklist = fields.find((f) => f.type === "checkboxes");
    expect(checklist?.attributes.options?.map((o) => o.label)).toEqual([...SUBMISSION_CHECKLIST]);
    expect(checklist?.attributes.options?.every((o) => o.required === true)).toBe(true);
  });

  it("round-trips a body rendered from its own labels through the parser", () => {
    // Sample answers by field id; rendered the way GitHub renders each field type.
    const answers: Record<string, string> = {
      agent_name: "<b>round-trip</b> agent",
      maintainer: "Example Labs",
      models: "gpt-4.1\nclaude-x",
      description: "Line one.\nLine two.",
      metadata: '{"seed": 7, "links": {"code": "https://example.org"}}',
      zip_url: "https://example.org/rt.zip",
      zip_contents: "",
      contact: "ops@example.org",
      agent_type: "Tool-using",
      notes: "",
    };
    const body = fields
      .map((f) => {
        const label = f.attributes.label!;
        if (f.type === "checkboxes") return `### ${label}\n\n${f.attributes.options!.map((o) => `- [X] ${o.label}`).join("\n")}`;
        const answer = answers[f.id!];
        if (answer === undefined) throw new Error(`no sample answer for field ${f.id}`);
        const value = answer === "" ? "_No response_" : f.attributes.render ? "```" + f.attributes.render + "\n" + answer + "\n```" : answer;
        return `### ${label}\n\n${value}`;
      })
      .join("\n\n");
    expect(ok(body)).toEqual({
      agentName: "<b>round-trip</b> agent",
      maintainer: "Example Labs",
      models: ["gpt-4.1", "claude-x"],
      description: "Line one.\nLine two.",
      metadata: { seed: 7, links: { code: "https://example.org" } },
      zipUrl: "https://example.org/rt.zip",
      zipContents: "",
      contact: "ops@example.org",
      agentType: "Tool-using",
      notes: "",
      checklist: SUBMISSION_CHECKLIST.map((label) => ({ label, checked: true })),
    });
  });
});
