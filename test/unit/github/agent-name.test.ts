/**
 * One rule for an agent name, wherever it comes from: the issue form's field and
 * `submit --agent` (scripts/commands/agent-option.ts) take and refuse the same names.
 */
import { describe, expect, it } from "vitest";
import { MAX_AGENT_NAME_CHARS, parseAgentName, parseIssueForm, renderIssueFormBody } from "@/lib/github/issue-form";
import { CliError } from "@/scripts/commands/cli-errors";
import { agentOptionOrFail } from "@/scripts/commands/agent-option";

const form = (agentName: string) => {
  const r = parseIssueForm(
    renderIssueFormBody({ agentName, maintainer: "m", models: "gpt-x", description: "d", zipUrl: "https://github.com/o/r/releases/download/v1/b.zip"}),
  );
  return r.ok ? { ok: true as const, name: r.submission.agentName } : { ok: false as const, expected: r.problems.find((p) => p.field === "agentName")?.expected };
};

describe("the agent name's rule", () => {
  const cases: [string, string, { ok: true; name: string } | { ok: false; expected: string }][] = [
    ["a plain name", "my-agent v2", { ok: true, name: "my-agent v2" }],
    ["spaces around it, trimmed", "  spaced  ", { ok: true, name: "spaced" }],
    ["exactly the limit", "x".repeat(MAX_AGENT_NAME_CHARS), { ok: true, name: "x".repeat(MAX_AGENT_NAME_CHARS) }],
    ["one past the limit", "x".repeat(MAX_AGENT_NAME_CHARS + 1), { ok: false, expected: `expected at most ${MAX_AGENT_NAME_CHARS} characters` }],
    ["100,000 characters", "x".repeat(100_000), { ok: false, expected: `expected at most ${MAX_AGENT_NAME_CHARS} characters` }],
    ["a right-to-left override", "evil\u202egpj.exe", { ok: false, expected: "expected no control or bidirectional-override characters" }],
    ["an escape sequence", "a\u001b[2Jb", { ok: false, expected: "expected no control or bidirectional-override characters" }],
    ["two lines", "one\ntwo", { ok: false, expected: "expected a single line" }],
    ["only spaces", "   ", { ok: false, expected: "expected a value (this field is required)" }],
  ];

  it.each(cases)("%s: the same answer as the issue form's field", (_what, name, expected) => {
    expect(parseAgentName(name)).toEqual(expected);
    // The form's body cannot carry a newline inside its field, nor an empty one (it reads "_No response_").
    if (!name.includes("\n")) expect(form(name)).toEqual(expected);
  });

  it("submit --agent: the trimmed name, or a usage error (exit 2) saying what the form expects", () => {
    expect(agentOptionOrFail("  spaced  ")).toBe("spaced");
    let err: unknown;
    try {
      agentOptionOrFail("x".repeat(100_000));
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(CliError);
    expect(err).toMatchObject({ exitCode: 2, message: `--agent: expected at most ${MAX_AGENT_NAME_CHARS} characters (the issue form's limits for the agent name; got 100000 characters)` });
  });
});
