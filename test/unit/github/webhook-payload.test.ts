import { describe, expect, it } from "vitest";
import { readWebhookPayload, type WebhookReading } from "../../../lib/github/webhook-payload";

// Shaped like GitHub's deliveries (abridged): extra fields are there to be ignored.
const issueJson = () => ({
  id: 2001,
  node_id: "I_kwDOA",
  number: 7,
  title: "[Submission]: planner",
  body: "### Agent name\n\nplanner",
  state: "open",
  html_url: "https://github.com/bench-org/bench/issues/7",
  labels: [{ id: 1, name: "leaderboard-submission", color: "ededed", default: false }, { id: 2, name: "agentboard: queued" }],
  user: { login: "sub-mitter", id: 42, type: "User", site_admin: false },
  created_at: "2026-11-22T10:00:00Z",
  updated_at: "2026-11-22T10:05:00Z",
  comments: 1,
});

const envelope = (over: Record<string, unknown> = {}) => ({
  action: "opened",
  repository: { id: 9, full_name: "bench-org/bench", private: false },
  sender: { login: "sub-mitter" },
  issue: issueJson(),
  ...over,
});

const commentJson = () => ({
  id: 5001,
  body: "/approve",
  html_url: "https://github.com/bench-org/bench/issues/7#issuecomment-5001",
  user: { login: "maintainer-1", type: "User" },
  created_at: "2026-11-22T11:00:00Z",
  updated_at: "2026-11-22T11:00:00Z",
  author_association: "MEMBER",
});

function reason(r: WebhookReading): string {
  if (r.ok) throw new Error(`expected a refusal, got ${JSON.stringify(r.delivery)}`);
  return r.reason;
}

describe("readWebhookPayload", () => {
  it("maps an issues delivery onto the REST client's types", () => {
    expect(readWebhookPayload("issues", envelope())).toEqual({
      ok: true,
      delivery: {
        event: "issues",
        action: "opened",
        repo: { owner: "bench-org", repo: "bench" },
        issue: {
          number: 7,
          title: "[Submission]: planner",
          body: "### Agent name\n\nplanner",
          state: "open",
          labels: ["leaderboard-submission", "agentboard: queued"],
          author: "sub-mitter",
          htmlUrl: "https://github.com/bench-org/bench/issues/7",
          createdAt: "2026-11-22T10:00:00Z",
          updatedAt: "2026-11-22T10:05:00Z",
        },
      },
    });
  });

  it("maps an issue_comment delivery with its comment and the author's account type", () => {
    const r = readWebhookPayload("issue_comment", envelope({ action: "created", comment: { ...commentJson(), user: { login: "agentboard[bot]", type: "Bot" } } }));
    expect(r.ok && r.delivery.event === "issue_comment" ? r.delivery.comment : null).toEqual({
      id: 5001,
      body: "/approve",
      author: "agentboard[bot]",
      authorType: "Bot",
      htmlUrl: "https://github.com/bench-org/bench/issues/7#issuecomment-5001",
      createdAt: "2026-11-22T11:00:00Z",
      updatedAt: "2026-11-22T11:00:00Z",
    });
    expect(r.ok && r.delivery.issue.number).toBe(7);
  });

  it("fills what a sparse delivery leaves out, and reads labels given as names", () => {
    const r = readWebhookPayload("issues", envelope({ issue: { number: 3, body: null, labels: ["leaderboard-submission", { name: "" }], user: null } }));
    expect(r.ok && r.delivery.issue).toEqual({ number: 3, title: "", body: "", state: "open", labels: ["leaderboard-submission"], author: null, htmlUrl: "", createdAt: "", updatedAt: "" });
  });

  it("reads a closed issue as closed and any other state as open", () => {
    const state = (s: string) => {
      const r = readWebhookPayload("issues", envelope({ issue: { ...issueJson(), state: s } }));
      return r.ok ? r.delivery.issue.state : reason(r);
    };
    expect([state("closed"), state("open"), state("reopened")]).toEqual(["closed", "open", "open"]);
  });

  it("keeps the action as sent, for the intake to decide on", () => {
    const r = readWebhookPayload("issues", envelope({ action: "deleted" }));
    expect(r.ok && r.delivery.action).toBe("deleted");
  });

  it("refuses events other than issues and issue comments", () => {
    expect(reason(readWebhookPayload("ping", { zen: "Keep it logically awesome." }))).toMatch(/"ping" event is not handled/);
    expect(reason(readWebhookPayload("pull_request", envelope()))).toMatch(/not handled/);
  });

  it("refuses pull requests, whose comments arrive as issue comments", () => {
    const pr = { ...issueJson(), pull_request: { url: "https://api.github.com/repos/bench-org/bench/pulls/7" } };
    expect(reason(readWebhookPayload("issue_comment", envelope({ action: "created", issue: pr, comment: commentJson() })))).toMatch(/pull request/);
  });

  it("names the field that is missing or of the wrong type", () => {
    expect(reason(readWebhookPayload("issues", "not an object"))).toMatch(/^payload/);
    expect(reason(readWebhookPayload("issues", envelope({ repository: undefined })))).toMatch(/^payload\.repository/);
    expect(reason(readWebhookPayload("issues", envelope({ action: 1 })))).toMatch(/^payload\.action/);
    expect(reason(readWebhookPayload("issues", envelope({ issue: { ...issueJson(), number: "7" } })))).toMatch(/^payload\.issue\.number/);
    expect(reason(readWebhookPayload("issues", envelope({ issue: { ...issueJson(), number: -1 } })))).toMatch(/^payload\.issue\.number/);
    expect(reason(readWebhookPayload("issues", envelope({ issue: { ...issueJson(), labels: [7] } })))).toMatch(/^payload\.issue\.labels/);
    expect(reason(readWebhookPayload("issue_comment", envelope({ action: "created" })))).toMatch(/^comment/);
    expect(reason(readWebhookPayload("issue_comment", envelope({ action: "created", comment: { ...commentJson(), id: 1.5 } })))).toMatch(/^comment\.id/);
  });

  it("refuses a repository name that is not owner/name", () => {
    for (const full_name of ["bench", "bench-org/bench/extra", "../bench", ""]) {
      expect(reason(readWebhookPayload("issues", envelope({ repository: { full_name } })))).toMatch(/repository\.full_name/);
    }
  });
});
