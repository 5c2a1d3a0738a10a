/** The link /submit gives to the repository's submission issue form, and the setting it comes from. */
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { issueFormUrl, ISSUE_TEMPLATE_FILE, MAX_PREFILL_CHARS } from "@/lib/github/issue-form-url";
import { submissionFormRepo } from "@/lib/submissions/github-settings";

const template = parse(readFileSync(path.resolve(import.meta.dirname, "../../../.github/ISSUE_TEMPLATE", ISSUE_TEMPLATE_FILE), "utf8")) as { title: string; labels: string[]; body: { id?: string; type: string }[] };

describe("issueFormUrl", () => {
  it("opens the template with its title and label", () => {
    expect(issueFormUrl("bench-org/bench.v2")).toBe("https://github.com/bench-org/bench.v2/issues/new?template=leaderboard_submission.yml&title=%5BSubmission%5D%3A+&labels=leaderboard-submission");
    const url = new URL(issueFormUrl({ owner: "o", repo: "r" })!);
    expect(url.searchParams.get("title")).toBe(template.title);
    expect(url.searchParams.get("labels")).toBe(template.labels.join(","));
  });

  it("prefills fields by the template's own ids", () => {
    const url = new URL(issueFormUrl("o/r", { agentName: "planner v2", maintainer: "Ada Lab", models: "gpt-x\nllama-y", zipUrl: "https://example.org/out.zip?x=1&y=2" })!);
    expect(url.searchParams.get("title")).toBe("[Submission]: planner v2");
    expect(Object.fromEntries([...url.searchParams].filter(([k]) => !["template", "title", "labels"].includes(k)))).toEqual({
      agent_name: "planner v2",
      maintainer: "Ada Lab",
      models: "gpt-x\nllama-y",
      zip_url: "https://example.org/out.zip?x=1&y=2",
    });
    const ids = new Set(template.body.flatMap((f) => (f.id ? [f.id] : [])));
    for (const key of ["agent_name", "maintainer", "models", "zip_url"]) expect(ids.has(key), key).toBe(true);
  });

  it("keeps hostile values inside their own parameter, cut and without control characters", () => {
    const url = new URL(issueFormUrl("o/r", { agentName: "x&labels=admin#frag", notes: `a\u0000b\u001bc${"n".repeat(5000)}` })!);
    expect(url.hash).toBe("");
    expect(url.searchParams.getAll("labels")).toEqual(["leaderboard-submission"]);
    expect(url.searchParams.get("agent_name")).toBe("x&labels=admin#frag");
    const notes = url.searchParams.get("notes")!;
    expect(notes.startsWith("abc")).toBe(true);
    expect(notes.length).toBe(MAX_PREFILL_CHARS);
    // Fields a form cannot prefill, and keys that are not fields, are left out.
    const odd = new URL(issueFormUrl("o/r", { checklist: "x", ["__proto__" as "notes"]: "y", toString: "z" } as never)!);
    expect([...odd.searchParams.keys()]).toEqual(["template", "title", "labels"]);
  });

  it("builds no link from a repository name that is not owner/name", () => {
    for (const bad of ["", "owner", "owner/", "/repo", "a/b/c", "../repo", "owner/..", "owner/.", "-owner/repo", "own er/repo", "owner/re po", "evil.example/x", "https://github.com/o/r", "owner/repo?x=1", "owner/repo#x", "javascript:alert(1)//x", "o\n/r", `${"a".repeat(40)}/r`, "owner/repo\u202e"]) {
      expect(issueFormUrl(bad), JSON.stringify(bad)).toBeNull();
    }
    expect(issueFormUrl({ owner: "evil.example", repo: "x" })).toBeNull();
  });
});

describe("submissionFormRepo", () => {
  it("reads GITHUB_REPOSITORY, and says whether it is unset or not a repository name", () => {
    expect(submissionFormRepo({ GITHUB_REPOSITORY: " bench-org/bench " })).toEqual({ repo: { owner: "bench-org", repo: "bench" }, problem: null });
    expect(submissionFormRepo({})).toEqual({ repo: null, problem: "unset" });
    expect(submissionFormRepo({ GITHUB_REPOSITORY: "  " })).toEqual({ repo: null, problem: "unset" });
    expect(submissionFormRepo({ GITHUB_REPOSITORY: "https://evil.example/o/r" })).toEqual({ repo: null, problem: "invalid" });
  });
});
