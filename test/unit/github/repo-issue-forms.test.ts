/**
 * Which issue forms are submission forms (lib/github/repo-issue-forms.ts): VAKRA's current and
 * older forms and ours are, by the ids and labels of their fields; a fork's form whose link field
 * keeps VAKRA's id under a label of its own is, and its issues are read under that label; a form
 * without a ZIP-link field, or not YAML, is named with the reason; hostile forms stay bounded.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parseIssueForm } from "@/lib/github/issue-form";
import { FORM_LIMITS, isIssueFormFile, readIssueForm, type IssueFormReading } from "@/lib/github/repo-issue-forms";

const root = path.resolve(import.meta.dirname, "../../..");
const form = (name: string) => readFileSync(path.join(root, "test/fixtures/github/forms", name), "utf8");
const OURS = readFileSync(path.join(root, ".github/ISSUE_TEMPLATE/leaderboard_submission.yml"), "utf8");

function submission(r: IssueFormReading) {
  if (r.kind !== "submission") throw new Error(`expected a submission form, got ${JSON.stringify(r)}`);
  return r.form;
}
function notice(r: IssueFormReading) {
  if (r.kind !== "unused") throw new Error(`expected a notice, got ${JSON.stringify(r)}`);
  return r.notice.problem;
}

describe("issue forms as submission forms", () => {
  it("reads VAKRA's current form (benchmark-output-submission), its older one (agent-submission) and ours, with nothing missing", () => {
    expect(submission(readIssueForm("a.yml", form("vakra-leaderboard_submission.yml")))).toMatchObject({ labels: ["benchmark-output-submission"], missing: [] });
    expect(submission(readIssueForm("b.yml", form("vakra-submission_template.yml")))).toMatchObject({ labels: ["agent-submission"], missing: [] });
    expect(submission(readIssueForm("c.yml", OURS))).toMatchObject({ labels: ["leaderboard-submission"], missing: [] });
  });

  it("maps a fork's link field by VAKRA's id, and its issues are read under the fork's label", () => {
    const fork = submission(readIssueForm("fork-results.yml", form("fork-results.yml")));
    expect(fork.labels).toEqual(["agent-results", "needs-triage"]);
    expect(fork.headings).toContainEqual(["outputsarchiveurl", "zipUrl"]);
    const body = readFileSync(path.join(root, "test/fixtures/github/fork-results-submission.md"), "utf8").replace("{{ZIP_URL}}", "https://example.org/fork.zip");
    expect(parseIssueForm(body).ok).toBe(false); // the label alone is not one the parser knows
    const read = parseIssueForm(body, { headings: new Map(fork.headings) });
    expect(read.ok && read.submission).toMatchObject({ agentName: "fork-agent", zipUrl: "https://example.org/fork.zip" });
  });

  it("names a form with labels but no ZIP-link field, one with a link field but no labels, and one that is not YAML", () => {
    expect(notice(readIssueForm("results-upload.yml", form("results-upload.yml")))).toMatch(/^labels "results-upload", "needs-triage", but no ZIP-link field \(expected a field with id "zip_url" or "zip_link", or labelled "ZIP link" or "ZIP File Link"\)/);
    expect(notice(readIssueForm("x.yml", "labels: []\nbody:\n  - type: input\n    id: zip_link\n    attributes: {label: ZIP File Link}\n"))).toMatch(/has a ZIP-link field \("ZIP File Link"\) but no labels/);
    expect(notice(readIssueForm("broken.yml", form("broken.yml")))).toMatch(/^not valid YAML: /);
    expect(notice(readIssueForm("list.yml", "- a\n- b\n"))).toMatch(/^not an issue form: at the top: /);
    expect(notice(readIssueForm("nobody.yml", "name: x\nlabels: [a]\n"))).toMatch(/^not an issue form: at body: /);
  });

  it("says which required fields a submission form lacks", () => {
    const text = "labels: [drop]\nbody:\n  - type: input\n    id: zip_link\n    attributes: {label: Link}\n";
    expect(submission(readIssueForm("min.yml", text)).missing).toEqual(["Agent name", "Maintainer or organisation", "Models used", "Description", "Checklist"]);
  });

  it("leaves alone a form without labels or a link field, config.yml and Markdown templates", () => {
    expect(readIssueForm("q.yml", "name: Question\nbody:\n  - type: textarea\n    attributes: {label: Question}\n")).toEqual({ kind: "other" });
    expect(["config.yml", "CONFIG.yaml", "bug_report.md"].map(isIssueFormFile)).toEqual([false, false, false]);
    expect(["leaderboard_submission.yml", "x.YAML"].map(isIssueFormFile)).toEqual([true, true]);
  });

  it("refuses nesting deep enough to overflow the YAML parser, before parsing, and reads a quoted bracket as text", () => {
    // Each of these, parsed, overflows the parser's stack (and under tsx ran the process out of memory).
    expect(notice(readIssueForm("dash.yml", "- ".repeat(30_000) + "x"))).toBe("not read: line 1 is indented or nested more than 120 columns deep");
    expect(notice(readIssueForm("compact.yml", "-\t".repeat(40) + "x"))).toBe("not read: line 1 opens more than 32 nested items");
    expect(notice(readIssueForm("flow.yml", "labels: [a]\nbody: " + "[".repeat(60_000)))).toBe("not read: line 2 nests more than 32 brackets");
    expect(notice(readIssueForm("map.yml", "{a: ".repeat(10_000)))).toBe("not read: line 1 nests more than 32 brackets");
    const stairs = "a:\n" + Array.from({ length: 300 }, (_, i) => " ".repeat(i + 1) + "b:").join("\n");
    expect(notice(readIssueForm("stairs.yml", stairs))).toBe("not read: line 122 is indented or nested more than 120 columns deep");
    const quoted = `labels: ['${"[".repeat(40)}', "{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{"] # [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[\nbody: []\n`;
    expect(notice(readIssueForm("quoted.yml", quoted))).toMatch(/^labels "\[{40}", "\{{40}", but no ZIP-link field/);
  });

  it("stays bounded on hostile forms: an alias bomb, an oversized file, absurd shapes", () => {
    const bomb = ["a: &a [x, x, x, x, x, x, x, x, x, x]", ...Array.from({ length: 9 }, (_, i) => `${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [*${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}]`), "labels: [x]", "body: []"].join("\n");
    expect(notice(readIssueForm("bomb.yml", bomb))).toMatch(/^not valid YAML: .*alias/i);
    expect(notice(readIssueForm("big.yml", "#".repeat(FORM_LIMITS.bytes + 1)))).toBe(`not read: ${FORM_LIMITS.bytes + 1} characters, at most ${FORM_LIMITS.bytes} are read`);
    expect(notice(readIssueForm("labels.yml", `labels: [${Array.from({ length: 101 }, (_, i) => `l${i}`).join(", ")}]\nbody: []\n`))).toMatch(/^not an issue form: at labels/);
    expect(notice(readIssueForm("type.yml", "labels: [a]\nbody:\n  - type: {nested: true}\n"))).toMatch(/^not an issue form: at body\.0\.type/);
  });
});
