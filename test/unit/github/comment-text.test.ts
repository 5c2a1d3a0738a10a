/**
 * Submitted values in bot comments: every hostile value of issue 12 comes out inert (no
 * mention, link, HTML or markup survives) yet readable, and no comment exceeds GitHub's limit.
 */
import { describe, expect, it } from "vitest";
import { commentLines, commentText, COMMENT_MAX_CHARS, fitComment, GITHUB_COMMENT_LIMIT, VALUE_MAX_CHARS } from "@/lib/github/comment-text";
import { renderStatusComment, type IssueStatus } from "@/lib/submissions/github-status";
import type { ValidationReport } from "@/lib/validate/report";

/** What a reader sees once GitHub has rendered the Markdown: escapes and zero-width spaces gone, entities decoded. */
const shown = (md: string) =>
  md
    .replace(/\\([!-/:-@[-`{-~])/g, "$1")
    .replace(/\u200b/g, "")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&amp;/g, "&");

/** Things GitHub would turn into mentions, references, links, HTML or formatting. */
const ACTIVE: [string, RegExp][] = [
  ["a user or team mention", /(^|[^\w`])@[A-Za-z0-9][\w-]*(\/[\w-]+)?/],
  ["an issue reference", /(^|[^\w&])#\d/],
  ["an autolink", /\b[a-z][a-z0-9+.-]*:\/\/|\bwww\./i],
  ["an inline or reference link", /(^|[^\\])\[[^\]]*(^|[^\\])\]\(/],
  ["an HTML tag", /<[a-z!/]/i],
  ["emphasis", /(^|[^\\])\*\*|(^|[^\\])__(?=\S)|(^|[^\\])~~/],
  ["a code span or fence", /(^|[^\\])`/],
  ["a heading or block at the start", /^(#|>|[-+*] |\d+[.)] )/],
  ["math", /(^|[^\\])\$/],
];

function expectInert(md: string): void {
  for (const [what, pattern] of ACTIVE) expect(pattern.test(md), `${what} in ${JSON.stringify(md.slice(0, 200))}`).toBe(false);
}

const HOSTILE = [
  "@octocat @github/security please look",
  "[click](https://evil.example/login)",
  "see https://evil.example/reset and www.evil.example and <https://evil.example>",
  "**bold** __bold__ *em* _em_ ~~gone~~",
  '<img src=x onerror="alert(1)"> <script>alert(1)</script> <!-- hidden -->',
  "`code` ``` fenced ``` ~~~",
  "# Heading\n> quote\n- item\n1. item\n| a | b |\n|---|---|",
  "![img](https://evil.example/x.png) [ref]: https://evil.example",
  "fixes #1 and bench-org/bench#2 and GH-3, mail admin@evil.example",
  "$\\frac{1}{0}$ and $$x$$",
  "javascript:alert(1) data:text/html,<b>x</b>",
];

describe("commentText", () => {
  it.each(HOSTILE)("neutralises %j and still shows what was written", (value) => {
    const md = commentText(value);
    expectInert(md);
    expect(md).not.toContain("\n");
    // The reader sees the words written, only without their effect.
    expect(shown(md).replace(/\s+/g, " ")).toBe(value.replace(/\s+/g, " ").trim());
  });

  it("breaks @-mentions with a zero-width space and never an escape GitHub would ignore", () => {
    expect(commentText("@octocat @github/security")).toBe("@\u200boctocat @\u200bgithub/security");
  });

  it("replaces bidirectional overrides and drops control characters", () => {
    const md = commentText("evil\u202Egpj.exe\u0000\u0007 x\u2066y\u2069");
    expect(md).not.toMatch(/[\u202a-\u202e\u2066-\u2069\u0000-\u0008]/);
    expect(md).toBe("evil\ufffdgpj.exe x\ufffdy\ufffd");
  });

  it("keeps intraword underscores readable but escapes emphasis", () => {
    expect(commentText("host_not_allowed")).toBe("host_not_allowed");
    expect(commentText("_em_")).toBe("\\_em\\_");
  });

  it("caps a 70,000-character value and says how much was left out", () => {
    const md = commentText("d".repeat(70_000));
    expect(md.length).toBeLessThan(VALUE_MAX_CHARS + 40);
    expect(md).toContain(`(${(70_000 - VALUE_MAX_CHARS).toLocaleString("en-US")} more characters)`);
    expect(commentText("🙂".repeat(400), { maxChars: 101 })).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])/); // no half emoji
  });

  it("keeps each line of a multi-line value inert and caps the count", () => {
    const lines = commentLines(Array.from({ length: 40 }, (_, i) => `@user${i} [x](https://e.example)`).join("\n"), { maxLines: 5 });
    expect(lines).toHaveLength(6);
    for (const l of lines) expectInert(l);
    expect(lines.at(-1)).toContain("35 more");
  });
});

describe("fitComment", () => {
  it("leaves a short comment alone", () => {
    expect(fitComment("hello\n")).toBe("hello\n");
  });

  it("cuts a long comment at a line, closes an open fence and links the full report", () => {
    const body = "intro\n```\n" + "line of a long code block\n".repeat(5_000);
    const fitted = fitComment(body, { maxChars: 10_000, fullReportUrl: "https://board.example/submissions/9" });
    expect(fitted.length).toBeLessThanOrEqual(10_000);
    expect(fitted).toContain("https://board.example/submissions/9");
    expect(fitted.split("\n").filter((l) => l.startsWith("```")).length % 2).toBe(0);
    expect(fitComment("x".repeat(200_000)).length).toBeLessThanOrEqual(COMMENT_MAX_CHARS);
    expect(COMMENT_MAX_CHARS).toBeLessThan(GITHUB_COMMENT_LIMIT);
  });
});

describe("the status comment with hostile submitted values", () => {
  const domain = "d".repeat(70_000);
  const hostile = HOSTILE.join(" ");
  const errors = Array.from({ length: 25 }, (_, i) => ({
    severity: "error" as const,
    code: "unknown_domain",
    file: `output/capability_1/${i === 0 ? domain : hostile}.json`,
    record: i,
    uuid: hostile,
    path: `$[${i}].domain`,
    message: `unknown domain "${i === 0 ? domain : hostile}" with status "${hostile}"`,
  }));
  const validation = {
    valid: false,
    benchmark: { slug: "demo", version: "1" },
    bundle: { sha256: null, kind: "zip", files: 3 },
    summary: { dialogues: 25, errors: 25, warnings: 1 },
    errors,
    warnings: [{ ...errors[1]!, severity: "warning" as const, code: hostile }],
    warningCounts: { [hostile]: 1 },
    coverage: { [hostile]: { submitted: true, domains: { [domain]: { missing: 1, expected: 1, predicted: 0, missingUuids: [hostile] } } } },
  } as unknown as ValidationReport;
  const status = (over: Partial<NonNullable<IssueStatus["submission"]>>): IssueStatus => ({
    issueAuthor: "sub",
    problem: `${hostile}\n${domain}`,
    submission: { id: 7, agentName: hostile + domain, revision: 1, state: "invalid", validation, run: { status: "failed", progressDone: 0, progressTotal: 0, error: hostile + domain }, overall: null, capabilities: [{ label: hostile, score: null, ciLow: 0, ciHigh: 0 }], reason: hostile + domain, detailUrl: "https://board.example/submissions/7", ...over },
  });

  it.each(["invalid", "error", "rejected"] as const)("stays under GitHub's limit and inert when %s", (state) => {
    const c = renderStatusComment(status({ state }));
    expect(c.length).toBeLessThan(GITHUB_COMMENT_LIMIT);
    // Only our own link and markup: the one link is the detail page.
    const body = c.replace("[#7](https://board.example/submissions/7)", "").replace(/^<!-- agentboard:status -->$/m, "").replace(/^#{3,4} .*$/gm, "").replace(/\*\*(?=[^*\s\\])|(?<=[^*\s\\])\*\*/g, "");
    expect(body).not.toMatch(/@[A-Za-z]/);
    expect(body).not.toMatch(/https?:\/\/(?!board\.example)/);
    expect(body).not.toMatch(/<[a-z!/]/i);
    expect(body).not.toMatch(/(^|[^\\])\[[^\]]*\]\(/);
    expect(body).not.toMatch(/www\./);
  });

  it("shows a problem without a submission as inert lines", () => {
    const c = renderStatusComment({ issueAuthor: "sub", problem: `ZIP link: the bundle could not be downloaded (http_status): HTTP 404 from https://evil.example/@octocat\n${hostile}`, submission: null });
    expect(c).toContain("needs changes");
    expect(c).toContain("http_status");
    expect(c).not.toMatch(/@[A-Za-z]/);
    expect(c).not.toMatch(/https?:\/\//);
    expect(c.length).toBeLessThan(GITHUB_COMMENT_LIMIT);
  });
});
