/**
 * The bot's one status comment per submission issue, and its state label. Both are derived
 * from the database alone, so they can be re-rendered at any time and only re-sent when
 * they change.
 */
import { createHash } from "node:crypto";
import { and, desc, eq, inArray } from "drizzle-orm";
import type { Db } from "../../db/client";
import { auditLog, benchmarkVersions, capabilityScores, scoringRuns, submissions, type SubmissionState } from "../../db/schema";
import type { BenchmarkSpec } from "../benchmark/spec";
import { escapeMarkdown } from "../github/issue-form";
import { renderReportMarkdown, type ValidationReport } from "../validate/report";

export const STATUS_MARKER = "<!-- agentboard:status -->";
export const LABEL_PREFIX = "agentboard: ";
const NEEDS_CHANGES = "needs changes";

const LABEL_COLORS: Record<string, string> = {
  received: "c5def5",
  validating: "c5def5",
  invalid: "d93f0b",
  [NEEDS_CHANGES]: "d93f0b",
  queued: "fbca04",
  scoring: "fbca04",
  error: "b60205",
  scored: "0e8a16",
  approved: "0e8a16",
  published: "5319e7",
  rejected: "b60205",
  withdrawn: "cccccc",
};

export interface IssueStatus {
  issueAuthor: string;
  /** A form or download problem with the latest edit, if any. */
  problem: string | null;
  submission: {
    id: number;
    agentName: string;
    revision: number;
    state: SubmissionState;
    validation: ValidationReport | null;
    run: { status: string; progressDone: number; progressTotal: number; error: string | null } | null;
    overall: { score: number; ciLow: number; ciHigh: number; complete: boolean } | null;
    capabilities: { label: string; score: number | null; ciLow: number; ciHigh: number }[];
    /** The reason given with the latest rejection or withdrawal. */
    reason: string | null;
    detailUrl: string;
  } | null;
}

export function statusLabel(status: IssueStatus): { name: string; color: string } {
  const key = status.submission?.state ?? NEEDS_CHANGES;
  return { name: `${LABEL_PREFIX}${key}`, color: LABEL_COLORS[key] ?? "ededed" };
}

/** Reads what the comment shows for one issue. */
export function loadIssueStatus(db: Db, issue: { author: string; problem: string | null; submissionId: number | null }, publicUrl: string): IssueStatus {
  if (issue.submissionId === null) return { issueAuthor: issue.author, problem: issue.problem, submission: null };
  const sub = db.select().from(submissions).where(eq(submissions.id, issue.submissionId)).get();
  if (!sub) return { issueAuthor: issue.author, problem: issue.problem, submission: null };
  // The run in progress when there is one, else the one pages show.
  const latest = db.select().from(scoringRuns).where(eq(scoringRuns.submissionId, sub.id)).orderBy(desc(scoringRuns.id)).get();
  const shown = sub.currentRunId ? db.select().from(scoringRuns).where(eq(scoringRuns.id, sub.currentRunId)).get() : undefined;
  const run = latest && (latest.status === "queued" || latest.status === "running" || !shown) ? latest : shown;
  const spec = benchmarkSpecOf(db, sub.benchmarkVersionId);
  const scores = shown ? db.select().from(capabilityScores).where(eq(capabilityScores.runId, shown.id)).all() : [];
  const reasonRow = db
    .select({ reason: auditLog.reason })
    .from(auditLog)
    .where(and(eq(auditLog.submissionId, sub.id), inArray(auditLog.toState, ["rejected", "withdrawn"])))
    .orderBy(desc(auditLog.id))
    .get();
  return {
    issueAuthor: issue.author,
    problem: issue.problem,
    submission: {
      id: sub.id,
      agentName: sub.agentName,
      revision: sub.revision,
      state: sub.state,
      validation: (sub.validationReport as unknown as ValidationReport | null) ?? null,
      run: run ? { status: run.status, progressDone: run.progressDone, progressTotal: run.progressTotal, error: run.error } : null,
      overall: shown && shown.overallScore !== null ? { score: shown.overallScore, ciLow: shown.overallCiLow ?? 0, ciHigh: shown.overallCiHigh ?? 0, complete: shown.complete ?? false } : null,
      capabilities: (spec?.capabilities ?? []).map((c) => {
        const s = scores.find((x) => x.capability === c.id);
        return { label: c.label, score: s?.submitted ? s.score : null, ciLow: s?.ciLow ?? 0, ciHigh: s?.ciHigh ?? 0 };
      }),
      reason: reasonRow?.reason || null,
      detailUrl: `${publicUrl}/submissions/${sub.id}`,
    },
  };
}

function benchmarkSpecOf(db: Db, versionId: number): BenchmarkSpec | null {
  const row = db.select({ spec: benchmarkVersions.spec }).from(benchmarkVersions).where(eq(benchmarkVersions.id, versionId)).get();
  return row ? (row.spec as unknown as BenchmarkSpec) : null;
}

const pct = (x: number) => (x * 100).toFixed(1);

function scoreTable(s: NonNullable<IssueStatus["submission"]>): string[] {
  const rows = ["| Capability | Score | 95% CI |", "|---|---:|---:|"];
  for (const c of s.capabilities) rows.push(c.score === null ? `| ${escapeMarkdown(c.label)} | not submitted | |` : `| ${escapeMarkdown(c.label)} | ${pct(c.score)} | ${pct(c.ciLow)}–${pct(c.ciHigh)} |`);
  if (s.overall) rows.push(`| **Overall**${s.overall.complete ? "" : " (incomplete)"} | **${pct(s.overall.score)}** | ${pct(s.overall.ciLow)}–${pct(s.overall.ciHigh)} |`);
  return rows;
}

const HEADLINES: Record<SubmissionState, string> = {
  received: "📥 Received",
  validating: "🔎 Validating",
  invalid: "❌ The bundle did not pass validation",
  queued: "⏳ Valid, queued for scoring",
  scoring: "⚙️ Scoring",
  error: "⚠️ Scoring failed",
  scored: "✅ Scored: waiting for a maintainer's review",
  approved: "✅ Approved",
  published: "🏆 Published on the leaderboard",
  rejected: "🚫 Rejected",
  withdrawn: "↩️ Withdrawn",
};

export function renderStatusComment(status: IssueStatus): string {
  const out: string[] = [STATUS_MARKER];
  const s = status.submission;
  if (!s) {
    out.push("### Agentboard: ✏️ needs changes", "", status.problem ?? "Waiting for a valid submission form.", "");
    out.push("Edit the issue to fix this; Agentboard reads the new version by itself.");
    return out.join("\n") + "\n";
  }
  out.push(`### Agentboard: ${HEADLINES[s.state]}`, "");
  out.push(`**${escapeMarkdown(s.agentName)}** · submission [#${s.id}](${s.detailUrl}) · revision ${s.revision}`, "");
  if (status.problem) out.push(`> ⚠️ The latest edit could not be used, so the revision above stands: ${status.problem.replace(/\n+/g, " ")}`, "");
  if (s.state === "scoring" || s.state === "queued") {
    const r = s.run;
    if (r && r.progressTotal > 0) out.push(`Progress: ${r.progressDone} / ${r.progressTotal} dialogues (${Math.floor((100 * r.progressDone) / r.progressTotal)}%)`, "");
  }
  if (s.state === "error" && s.run?.error) out.push(`Error: ${escapeMarkdown(s.run.error)}`, "");
  if ((s.state === "rejected" || s.state === "withdrawn") && s.reason) out.push(`Reason: ${escapeMarkdown(s.reason)}`, "");
  if (s.state === "invalid" && s.validation) {
    out.push(renderReportMarkdown(s.validation, { maxErrors: 20, maxWarnings: 5 }).replace(/^## /gm, "#### "), "Fix the bundle, upload it again and edit the issue's ZIP link.", "");
  }
  if (s.overall) out.push(...scoreTable(s), "", `Details per capability, domain and item: ${s.detailUrl}`, "");
  if (s.state === "scored") out.push("Maintainers: comment `/approve`, `/reject <reason>` or `/rescore`. The author may `/withdraw`.", "");
  return out.join("\n").trimEnd() + "\n";
}

/** What the comment and label say, as a short hash: unchanged status is not sent again. */
export function statusHash(body: string, label: string): string {
  return createHash("sha256").update(body).update("\0").update(label).digest("hex").slice(0, 32);
}
