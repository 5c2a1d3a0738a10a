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
import type { Diagnostic } from "../formats/diagnostic";
import { commentLines, commentText, fitComment } from "../github/comment-text";
import { FLAG_KIND_LABELS, storedFlags, type IntegrityFlagKind } from "../scoring/integrity-flags";
import type { ValidationReport } from "../validate/report";
import { publicationHold } from "./publication-hold";

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
  /** A form, download or processing problem with the latest edit, if any: plain text, one item a line (neutralised when shown). */
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
    /** The shown run's integrity flags, each saying what triggered it (absent: none). */
    flags?: { kind: IntegrityFlagKind; message: string }[];
    /** Approved but not published: why (its judge's calibration falls short of `judge.minKappa`; absent: nothing holds it). */
    held?: string | null;
  } | null;
}

export function statusLabel(status: IssueStatus): { name: string; color: string } {
  const key = status.submission?.state ?? NEEDS_CHANGES;
  return { name: `${LABEL_PREFIX}${key}`, color: LABEL_COLORS[key] ?? "ededed" };
}

/** Reads what the comment shows for one issue. */
export async function loadIssueStatus(db: Db, issue: { author: string; problem: string | null; submissionId: number | null }, publicUrl: string): Promise<IssueStatus> {
  if (issue.submissionId === null) return { issueAuthor: issue.author, problem: issue.problem, submission: null };
  const [sub] = await db.select().from(submissions).where(eq(submissions.id, issue.submissionId)).limit(1);
  if (!sub) return { issueAuthor: issue.author, problem: issue.problem, submission: null };
  // The run in progress when there is one, else the one pages show.
  const [latest] = await db.select().from(scoringRuns).where(eq(scoringRuns.submissionId, sub.id)).orderBy(desc(scoringRuns.id)).limit(1);
  const [shown] = sub.currentRunId ? await db.select().from(scoringRuns).where(eq(scoringRuns.id, sub.currentRunId)).limit(1) : [];
  const run = latest && (latest.status === "queued" || latest.status === "running" || !shown) ? latest : shown;
  const spec = await benchmarkSpecOf(db, sub.benchmarkVersionId);
  const scores = shown ? await db.select().from(capabilityScores).where(eq(capabilityScores.runId, shown.id)) : [];
  const [reasonRow] = await db
    .select({ reason: auditLog.reason })
    .from(auditLog)
    .where(and(eq(auditLog.submissionId, sub.id), inArray(auditLog.toState, ["rejected", "withdrawn"])))
    .orderBy(desc(auditLog.id))
    .limit(1);
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
      // Stored scores are 0–100; the comment's figures are shares (0–1) it prints as percentages.
      overall: shown && shown.overallScore !== null ? { score: shown.overallScore / 100, ciLow: (shown.overallCiLow ?? 0) / 100, ciHigh: (shown.overallCiHigh ?? 0) / 100, complete: shown.complete ?? false } : null,
      capabilities: (spec?.capabilities ?? []).map((c) => {
        const s = scores.find((x) => x.capability === c.id);
        return { label: c.label, score: s?.submitted ? s.score / 100 : null, ciLow: (s?.ciLow ?? 0) / 100, ciHigh: (s?.ciHigh ?? 0) / 100 };
      }),
      reason: reasonRow?.reason || null,
      detailUrl: `${publicUrl}/submissions/${sub.id}`,
      flags: storedFlags(shown?.flags).map((f) => ({ kind: f.kind, message: f.message })),
      held: sub.state === "approved" ? await publicationHold(db, sub.id) : null,
    },
  };
}

async function benchmarkSpecOf(db: Db, versionId: number): Promise<BenchmarkSpec | null> {
  const [row] = await db.select({ spec: benchmarkVersions.spec }).from(benchmarkVersions).where(eq(benchmarkVersions.id, versionId)).limit(1);
  return row ? (row.spec as unknown as BenchmarkSpec) : null;
}

const pct = (x: number) => (x * 100).toFixed(1);

/** How much of each submitted value a status comment shows; the detail page has the rest. */
const SHOWN = { name: 200, label: 100, text: 1_000, problem: 1_000, problemLines: 30, where: 200, message: 400, errors: 20, warnings: 5, gaps: 20, flags: 10 } as const;

const text = (value: unknown, maxChars: number = SHOWN.text) => commentText(value, { maxChars });
/** A code of our own, in a code span when it is one (a code span shows escapes literally). */
const codeName = (value: unknown) => (typeof value === "string" && /^[a-z0-9_]{1,60}$/.test(value) ? `\`${value}\`` : text(value, 60));

function scoreTable(s: NonNullable<IssueStatus["submission"]>): string[] {
  const rows = ["| Capability | Score | 95% CI |", "|---|---:|---:|"];
  for (const c of s.capabilities) rows.push(c.score === null ? `| ${text(c.label, SHOWN.label)} | not submitted | |` : `| ${text(c.label, SHOWN.label)} | ${pct(c.score)} | ${pct(c.ciLow)}–${pct(c.ciHigh)} |`);
  if (s.overall) rows.push(`| **Overall**${s.overall.complete ? "" : " (incomplete)"} | **${pct(s.overall.score)}** | ${pct(s.overall.ciLow)}–${pct(s.overall.ciHigh)} |`);
  return rows;
}

/** The integrity flags, each with what triggered it; a message may name another entry's agent, so it is neutralised. */
function flagsSection(flags: readonly { kind: IntegrityFlagKind; message: string }[]): string[] {
  const shown = flags.slice(0, SHOWN.flags);
  const out = [`#### ⚑ Integrity flags (${flags.length})`, "", "A maintainer reviews these before approving:", ""];
  for (const f of shown) out.push(`- **${FLAG_KIND_LABELS[f.kind] ?? text(f.kind, 40)}**: ${text(f.message, SHOWN.message)}`);
  if (flags.length > shown.length) out.push(`- … and ${flags.length - shown.length} more flag(s)`);
  return out;
}

/** One diagnostic: its code, where it is (file, record, uuid, JSON path) and what is wrong, all inert. */
function diagnosticLine(d: Partial<Diagnostic>): string {
  const where = [text(d.file ?? "", SHOWN.where)];
  if (typeof d.record === "number") where.push(`record ${d.record}`);
  if (d.uuid) where.push(`(uuid ${text(d.uuid, SHOWN.where)})`);
  if (d.path) where.push(`at ${text(d.path, SHOWN.where)}`);
  return `- ${codeName(d.code)} ${where.join(" ")}: ${text(d.message ?? "", SHOWN.message)}`;
}

/**
 * The validation report as the comment shows it: every string in it may come from the bundle
 * (file names, uuids, JSON paths, messages quoting values), so all of it goes through
 * `commentText`. A stored report may be of an older shape: nothing is assumed present.
 */
function validationSection(r: ValidationReport): string[] {
  const summary = r.summary ?? { errors: 0, warnings: 0, dialogues: 0 };
  const errors = Array.isArray(r.errors) ? r.errors : [];
  const warnings = Array.isArray(r.warnings) ? r.warnings : [];
  const out = [`#### Validation: ${r.valid ? "✅ valid" : "❌ invalid"}`, "", `${Number(summary.dialogues) || 0} dialogues read · ${Number(summary.errors) || 0} error(s), ${Number(summary.warnings) || 0} warning(s)`];
  const totalErrors = Number(summary.errors) || errors.length;
  if (totalErrors > 0) {
    out.push("", `#### Errors (${totalErrors})`, "");
    const shown = errors.slice(0, SHOWN.errors);
    for (const d of shown) out.push(diagnosticLine(d));
    if (totalErrors > shown.length) out.push(`- … and ${totalErrors - shown.length} more error(s)`);
  }
  const totalWarnings = Number(summary.warnings) || 0;
  if (totalWarnings > 0) {
    out.push("", `#### Warnings (${totalWarnings})`, "");
    const codes = Object.entries(r.warningCounts ?? {}).sort((a, b) => b[1] - a[1]).slice(0, 20);
    if (codes.length) out.push(codes.map(([c, n]) => `${codeName(c)} ×${Number(n) || 0}`).join(" · "), "");
    const shown = warnings.slice(0, SHOWN.warnings);
    for (const d of shown) out.push(diagnosticLine(d));
    if (totalWarnings > shown.length) out.push(`- … and ${totalWarnings - shown.length} more warning(s)`);
  }
  const gaps: string[] = [];
  for (const [id, c] of Object.entries(r.coverage ?? {})) {
    if (!c?.submitted) continue;
    for (const [domain, d] of Object.entries(c.domains ?? {})) if (d.missing > 0) gaps.push(`${text(id, SHOWN.label)}/${text(domain, SHOWN.label)}: ${Number(d.missing) || 0} missing`);
  }
  if (gaps.length) {
    out.push("", "Missing predictions count as 0 (not an error):", "");
    for (const g of gaps.slice(0, SHOWN.gaps)) out.push(`- ${g}`);
    if (gaps.length > SHOWN.gaps) out.push(`- … and ${gaps.length - SHOWN.gaps} more domain(s) with gaps`);
  }
  return out;
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

/**
 * The status comment. Every submitted value in it is neutralised (lib/github/comment-text.ts)
 * and the whole is cut to fit GitHub's comment limit, with a link to the detail page.
 */
export function renderStatusComment(status: IssueStatus): string {
  const out: string[] = [STATUS_MARKER];
  const s = status.submission;
  const problem = commentLines(status.problem, { maxChars: SHOWN.problem, maxLines: SHOWN.problemLines });
  if (!s) {
    out.push("### Agentboard: ✏️ needs changes", "");
    const [first, ...rest] = problem.length ? problem : ["Waiting for a valid submission form."];
    out.push(first!, "");
    if (rest.length) out.push(...rest.map((l) => `- ${l}`), "");
    out.push("Edit the issue to fix this; Agentboard reads the new version by itself.");
    return fitComment(out.join("\n") + "\n");
  }
  out.push(`### Agentboard: ${HEADLINES[s.state] ?? text(s.state, 40)}`, "");
  out.push(`**${text(s.agentName, SHOWN.name)}** · submission [#${s.id}](${s.detailUrl}) · revision ${s.revision}`, "");
  if (problem.length) out.push(`> ⚠️ The latest edit could not be used, so the revision above stands: ${problem.join("; ")}`, "");
  if (s.state === "scoring" || s.state === "queued") {
    const r = s.run;
    if (r && r.progressTotal > 0) out.push(`Progress: ${r.progressDone} / ${r.progressTotal} dialogues (${Math.floor((100 * r.progressDone) / r.progressTotal)}%)`, "");
  }
  if (s.state === "error" && s.run?.error) out.push(`Error: ${text(s.run.error)}`, "");
  if ((s.state === "rejected" || s.state === "withdrawn") && s.reason) out.push(`Reason: ${text(s.reason)}`, "");
  if (s.state === "invalid" && s.validation) {
    out.push(...validationSection(s.validation), "", "Fix the bundle, upload it again and edit the issue's ZIP link.", "");
  }
  if (s.overall) out.push(...scoreTable(s), "", `Details per capability, domain and item: ${s.detailUrl}`, "");
  if (s.overall && s.flags?.length) out.push(...flagsSection(s.flags), "");
  if (s.state === "approved" && s.held) out.push(`Not published yet: ${text(s.held)}`, "");
  if (s.state === "scored") out.push("Maintainers: comment `/approve`, `/reject <reason>` or `/rescore`. The author may `/withdraw`.", "");
  if (s.state === "withdrawn") out.push("Maintainers can undo this: comment `/restore`.", "");
  return fitComment(out.join("\n").trimEnd() + "\n", { fullReportUrl: s.detailUrl });
}

/** What the comment and label say, as a short hash: unchanged status is not sent again. */
export function statusHash(body: string, label: string): string {
  return createHash("sha256").update(body).update("\0").update(label).digest("hex").slice(0, 32);
}
