import { describe, expect, it } from "vitest";
import { renderStatusComment, STATUS_MARKER, statusHash, statusLabel, type IssueStatus } from "@/lib/submissions/github-status";
import type { ValidationReport } from "@/lib/validate/report";
import { parseSlashCommand } from "@/lib/github/slash-command";

const base = (over: Partial<NonNullable<IssueStatus["submission"]>> = {}): IssueStatus => ({
  issueAuthor: "sub",
  problem: null,
  submission: {
    id: 7,
    agentName: "agent <script>x</script>",
    revision: 1,
    state: "queued",
    validation: null,
    run: null,
    overall: null,
    capabilities: [],
    reason: null,
    detailUrl: "https://board.example/submissions/7",
    ...over,
  },
});

describe("the status comment", () => {
  it("starts with the marker and escapes the agent name", () => {
    const c = renderStatusComment(base());
    expect(c.startsWith(STATUS_MARKER)).toBe(true);
    expect(c).not.toContain("<script>");
    expect(c).toContain("&lt;script&gt;");
  });

  it("shows scoring progress as a fraction and a percentage", () => {
    const c = renderStatusComment(base({ state: "scoring", run: { status: "running", progressDone: 250, progressTotal: 1000, error: null } }));
    expect(c).toContain("Progress: 250 / 1000 dialogues (25%)");
  });

  it("shows the capability table with CIs, missing capabilities and the overall", () => {
    const c = renderStatusComment(
      base({
        state: "scored",
        overall: { score: 0.5, ciLow: 0.4, ciHigh: 0.6, complete: false },
        capabilities: [
          { label: "API chaining", score: 0.75, ciLow: 0.7, ciHigh: 0.8 },
          { label: "Tool | selection", score: null, ciLow: 0, ciHigh: 0 },
        ],
      }),
    );
    expect(c).toContain("| API chaining | 75.0 | 70.0–80.0 |");
    expect(c).toContain("| Tool \\| selection | not submitted | |");
    expect(c).toContain("| **Overall** (incomplete) | **50.0** | 40.0–60.0 |");
    expect(c).toContain("/approve");
  });

  it("puts validation errors first and caps them", () => {
    const errors = Array.from({ length: 30 }, (_, i) => ({ severity: "error" as const, code: "duplicate_uuid", file: "c1/a.json", record: i, message: `dup ${i}` }));
    const validation = { valid: false, benchmark: { slug: "demo", version: "1" }, bundle: { sha256: "ab".repeat(32), kind: "zip", files: 3 }, summary: { dialogues: 30, errors: 30, warnings: 0 }, errors, warnings: [], warningCounts: {}, coverage: {} } as unknown as ValidationReport;
    const c = renderStatusComment(base({ state: "invalid", validation }));
    expect(c.indexOf("Errors (30)")).toBeGreaterThan(0);
    expect(c).toContain("dup 19");
    expect(c).not.toContain("dup 20");
    expect(c).toContain("10 more error(s)");
  });

  it("gives the reason of a rejection and a form problem without a submission", () => {
    expect(renderStatusComment(base({ state: "rejected", reason: "uses *ground truth*" }))).toContain("Reason: uses \\*ground truth\\*");
    const none: IssueStatus = { issueAuthor: "sub", problem: "ZIP link: expected an https URL", submission: null };
    expect(renderStatusComment(none)).toContain("needs changes");
    expect(statusLabel(none).name).toBe("agentboard: needs changes");
  });

  it("lists the integrity flags under the scores, each neutralised, and none without a score", () => {
    const flags = [
      { kind: "duplicate" as const, message: "100% of this entry's answered items (9 of 9) carry the same answers and tool calls as entry #3 (@octocat <b>x</b>), submitted before it." },
      { kind: "canary" as const, message: "A canary string of this benchmark appears in the submitted text of 1 item." },
    ];
    const scored = { state: "scored" as const, overall: { score: 0.5, ciLow: 0.4, ciHigh: 0.6, complete: true }, flags };
    const c = renderStatusComment(base(scored));
    expect(c).toContain("#### ⚑ Integrity flags (2)");
    expect(c.indexOf("Integrity flags")).toBeGreaterThan(c.indexOf("**Overall**"));
    expect(c).toContain("- **duplicate**: 100% of this entry's answered items");
    expect(c).toContain("- **canary**: A canary string of this benchmark appears");
    expect(c).not.toContain("@octocat");
    expect(c).not.toContain("<b>");
    expect(renderStatusComment(base({ ...scored, flags: [] }))).not.toContain("Integrity flags");
    expect(renderStatusComment(base({ flags }))).not.toContain("Integrity flags");
  });

  it("hashes body and label together", () => {
    expect(statusHash("a", "x")).not.toBe(statusHash("a", "y"));
    expect(statusHash("a", "x")).toBe(statusHash("a", "x"));
  });
});

describe("slash commands", () => {
  it("reads the first non-blank line only", () => {
    expect(parseSlashCommand("\n  /approve  ")).toEqual({ name: "approve" });
    expect(parseSlashCommand("/Reject too short\nsecond line")).toEqual({ name: "reject", reason: "too short\nsecond line" });
    expect(parseSlashCommand("/withdraw")).toEqual({ name: "withdraw", reason: "" });
    expect(parseSlashCommand("/restore the harness bug is fixed")).toEqual({ name: "restore", reason: "the harness bug is fixed" });
    expect(parseSlashCommand("/restored")).toBeNull();
    expect(parseSlashCommand("> /approve")).toBeNull();
    expect(parseSlashCommand("LGTM\n/approve")).toBeNull();
    expect(parseSlashCommand("/approved")).toBeNull();
    expect(parseSlashCommand("/deploy now")).toBeNull();
  });
});
