/**
 * The database: benchmarks and their versions, submissions, scoring runs with per-item
 * results and capability/domain scores, the judge verdict cache, a durable job table and an
 * append-only audit log. Ranking and filtering fields are real columns; only verdict detail
 * lives in JSON.
 */
import { index, integer, primaryKey, real, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import type { StatusCounts } from "../lib/aggregate/aggregate";
import type { CostSummary } from "../lib/aggregate/cost";
import type { TrialStats } from "../lib/aggregate/trials";
import type { RunIntegrity } from "../lib/scoring/integrity-flags";
import type { RunManifest } from "../lib/scoring/manifest";
import type { CalibrationReport } from "../lib/aggregate/calibration-report";
import type { RunItemSummary } from "../lib/queries/types";
import type { CachedGrade } from "../lib/judges/grade-cache";
import type { RecordedJudge } from "../lib/judges/judge-settings";
import type { GradeKind } from "../lib/judges/grader";
import type { Decision, DisputedRequest, MemberGrade, PanelRule } from "../lib/judges/panel-grader";
import type { FunnelBucket, ItemResult, ItemStage, ItemStatus } from "../lib/scoring/item-result";
import type { ScorerName } from "../lib/benchmark/spec";
import type { PolicyOutcome } from "../lib/scoring/verdict";

const createdAt = () => integer({ mode: "timestamp_ms" }).notNull();

export const benchmarks = sqliteTable("benchmarks", {
  id: integer().primaryKey({ autoIncrement: true }),
  slug: text().notNull().unique(),
  title: text().notNull(),
  description: text().notNull().default(""),
  isDefault: integer({ mode: "boolean" }).notNull().default(false),
  createdAt: createdAt(),
});

export const benchmarkVersions = sqliteTable(
  "benchmark_versions",
  {
    id: integer().primaryKey({ autoIncrement: true }),
    benchmarkId: integer()
      .notNull()
      .references(() => benchmarks.id),
    version: text().notNull(),
    /** The benchmark folder (benchmark.yaml + groundtruth/) this version is read from. */
    root: text().notNull(),
    /** The parsed benchmark.yaml, for pages (capability labels, descriptions, weights). */
    spec: text({ mode: "json" }).notNull().$type<Record<string, unknown>>(),
    /**
     * The version's files by content (relative path → sha256) in the storage port, so a worker
     * on another host can lay the folder out in its cache; null for versions read only from `root`.
     */
    files: text({ mode: "json" }).$type<Record<string, string>>(),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("benchmark_versions_unique").on(t.benchmarkId, t.version)],
);

export const SUBMISSION_STATES = ["received", "validating", "invalid", "queued", "scoring", "error", "scored", "approved", "published", "rejected", "withdrawn"] as const;
export type SubmissionState = (typeof SUBMISSION_STATES)[number];

export const submissions = sqliteTable(
  "submissions",
  {
    id: integer().primaryKey({ autoIncrement: true }),
    benchmarkVersionId: integer()
      .notNull()
      .references(() => benchmarkVersions.id),
    agentName: text().notNull(),
    models: text({ mode: "json" }).notNull().$type<string[]>(),
    maintainer: text().notNull().default(""),
    description: text().notNull().default(""),
    links: text({ mode: "json" }).notNull().$type<Record<string, string>>(),
    /** How maintainers reach the submitter (the issue form's contact). Private: never on a public page. */
    contact: text().notNull().default(""),
    agentType: text().notNull().default(""),
    /** The issue form's additional notes, for reviewers. */
    notes: text().notNull().default(""),
    source: text({ enum: ["local", "github", "demo"] }).notNull(),
    /** Where it came from: a path, or an issue URL. */
    sourceRef: text().notNull(),
    bundlePath: text().notNull(),
    bundleSha256: text().notNull(),
    /**
     * A folder bundle's files by content (relative path → sha256) in the storage port, so a
     * worker on another host can lay it out; null for a ZIP (stored whole, by bundleSha256).
     */
    bundleFiles: text({ mode: "json" }).$type<Record<string, string>>(),
    isDemo: integer({ mode: "boolean" }).notNull().default(false),
    state: text({ enum: SUBMISSION_STATES }).notNull(),
    validationReport: text({ mode: "json" }).$type<Record<string, unknown>>(),
    /** The run shown on pages: the latest completed one. */
    currentRunId: integer(),
    /** Bumped when the submitter replaces the bundle (an edited issue with a new ZIP link). */
    revision: integer().notNull().default(1),
    /**
     * When the current bundle's content was received: at ingestion, and again at each revision
     * that changes the bundle. It decides which of two matching entries came first (a revision
     * keeps its submission id, so the id cannot). Migration 0010 filled it in for older rows; a
     * row written without it reads as `createdAt`.
     */
    bundleReceivedAt: integer({ mode: "timestamp_ms" }),
    createdAt: createdAt(),
    updatedAt: createdAt(),
  },
  (t) => [uniqueIndex("submissions_bundle_unique").on(t.benchmarkVersionId, t.bundleSha256), index("submissions_state").on(t.state)],
);

export const scoringRuns = sqliteTable(
  "scoring_runs",
  {
    id: integer().primaryKey({ autoIncrement: true }),
    submissionId: integer()
      .notNull()
      .references(() => submissions.id),
    judgeKind: text({ enum: ["rules", "literal", "openai", "panel"] }).notNull(),
    judgeModel: text(),
    judgeId: text(),
    /** The judge as the one factory resolved it when the run was scored (never its key). */
    judge: text({ mode: "json" }).$type<RecordedJudge>(),
    replayMode: text({ enum: ["mcp", "recorded", "none"] }).notNull(),
    verified: integer({ mode: "boolean" }).notNull().default(false),
    /** `superseded`: closed unpublished because its submission was withdrawn, rejected or rescored under it. */
    status: text({ enum: ["queued", "running", "completed", "failed", "superseded"] }).notNull(),
    progressDone: integer().notNull().default(0),
    progressTotal: integer().notNull().default(0),
    overallScore: real(),
    overallCiLow: real(),
    overallCiHigh: real(),
    complete: integer({ mode: "boolean" }),
    /** Latency, tokens and dollars the bundle reported (not part of the score). */
    cost: text({ mode: "json" }).$type<CostSummary>(),
    /** What decides the run's numbers, for `verify` (bundle, benchmark content, judge, version, verdict digest). */
    manifest: text({ mode: "json" }).$type<RunManifest>(),
    /** What a maintainer should look at before approving (duplicates, unsupported answers, canaries), with the unsupported-answer shares. */
    flags: text({ mode: "json" }).$type<RunIntegrity>(),
    /** Trials in the bundle (`trial_1/ … trial_k/`); 1 for a plain bundle. */
    trials: integer().notNull().default(1),
    trialStats: text({ mode: "json" }).$type<TrialStats>(),
    /** What the completed run's items add up to (funnel, trajectory and evaluator means), stored at completion so no page parses every item to show it. */
    itemSummary: text({ mode: "json" }).$type<RunItemSummary>(),
    /** The run's overall resampled on its version's bootstrap plan, stored at completion so the board ranks without reading items (lib/queries/resampled-entries.ts). */
    overallResamples: text(),
    error: text(),
    createdAt: createdAt(),
    startedAt: integer({ mode: "timestamp_ms" }),
    finishedAt: integer({ mode: "timestamp_ms" }),
  },
  (t) => [index("scoring_runs_submission").on(t.submissionId)],
);

export const itemResults = sqliteTable(
  "item_results",
  {
    id: integer().primaryKey({ autoIncrement: true }),
    runId: integer()
      .notNull()
      .references(() => scoringRuns.id),
    capability: text().notNull(),
    domain: text().notNull(),
    uuid: text().notNull(),
    /** Which trial of the bundle (1 for a plain bundle). */
    trial: integer().notNull().default(1),
    weight: real().notNull(),
    score: real().notNull(),
    status: text().notNull().$type<ItemStatus>(),
    stage: text().notNull().$type<ItemStage>(),
    scorer: text().notNull().default("waterfall").$type<ScorerName>(),
    /** Where the item ended in the funnel, computed once by the engine. */
    bucket: text().notNull().default("not_scored").$type<FunnelBucket>(),
    exactPassed: integer({ mode: "boolean" }).notNull().default(false),
    /** Waterfall items only: the policy verdict of the last scored turn. */
    policy: text().$type<PolicyOutcome>(),
    /** The whole ItemResult (verdicts, turns, evidence), for the item view. */
    result: text({ mode: "json" }).notNull().$type<ItemResult>(),
    /** A hash of the agent's normalised answer and tool calls, for finding resubmitted outputs. */
    fingerprint: text(),
  },
  (t) => [
    uniqueIndex("item_results_unique").on(t.runId, t.capability, t.uuid, t.trial),
    index("item_results_filter").on(t.runId, t.capability, t.domain, t.stage),
    index("item_results_fingerprint").on(t.fingerprint),
    // Every summary column of a run's items, so what the entry and compare pages read per run
    // (funnel, outcomes, lost points, filter values, the items compared) comes from the index
    // alone: without it each read loads every item's row, its stored result included (~1.5-5 KB).
    index("item_results_summary").on(t.runId, t.capability, t.uuid, t.trial, t.domain, t.weight, t.score, t.status, t.stage, t.scorer, t.bucket, t.exactPassed),
  ],
);

export const capabilityScores = sqliteTable(
  "capability_scores",
  {
    runId: integer()
      .notNull()
      .references(() => scoringRuns.id),
    capability: text().notNull(),
    score: real().notNull(),
    ciLow: real().notNull(),
    ciHigh: real().notNull(),
    submitted: integer({ mode: "boolean" }).notNull(),
    nItems: integer().notNull(),
    nMissing: integer().notNull(),
    nError: integer().notNull(),
    nPolicyUnchecked: integer().notNull(),
    statusCounts: text({ mode: "json" }).notNull().$type<StatusCounts>(),
  },
  (t) => [primaryKey({ columns: [t.runId, t.capability] })],
);

export const domainScores = sqliteTable(
  "domain_scores",
  {
    runId: integer()
      .notNull()
      .references(() => scoringRuns.id),
    capability: text().notNull(),
    domain: text().notNull(),
    score: real().notNull(),
    nItems: integer().notNull(),
  },
  (t) => [primaryKey({ columns: [t.runId, t.capability, t.domain] })],
);

/** The grade cache: a rescore with the same judge and prompts asks no model. */
export const gradeCache = sqliteTable("grade_cache", {
  key: text().primaryKey(),
  grade: text({ mode: "json" }).notNull().$type<CachedGrade>(),
  createdAt: createdAt(),
});

export const jobs = sqliteTable(
  "jobs",
  {
    id: integer().primaryKey({ autoIncrement: true }),
    kind: text({ enum: ["score"] }).notNull(),
    runId: integer()
      .notNull()
      .references(() => scoringRuns.id),
    state: text({ enum: ["queued", "running", "done", "failed"] }).notNull(),
    attempts: integer().notNull().default(0),
    lockedBy: text(),
    /**
     * The lease: a random token set by each claim. Every write the worker makes for the job is
     * conditional on it, so a worker whose lease was taken over (stale heartbeat) writes nothing.
     */
    leaseToken: text(),
    heartbeatAt: integer({ mode: "timestamp_ms" }),
    lastError: text(),
    createdAt: createdAt(),
    updatedAt: createdAt(),
  },
  (t) => [index("jobs_state").on(t.state), index("jobs_run").on(t.runId)],
);

/**
 * The details of an audit row that puts an entry on the board (`→ published`): the run shown
 * and its overall, and the run and overall of the entry's previous publication (null for the
 * first), so the changelog can say "rescored 80.1 → 82.3" without rereading old runs.
 */
export interface PublicationDetails {
  runId: number | null;
  overall: number | null;
  previousRunId: number | null;
  previousOverall: number | null;
  /** Set on a restore: the state the submission was withdrawn from. */
  restoredFrom?: SubmissionState;
}

export const auditLog = sqliteTable(
  "audit_log",
  {
    id: integer().primaryKey({ autoIncrement: true }),
    at: createdAt(),
    actor: text().notNull(),
    action: text().notNull(),
    submissionId: integer().references(() => submissions.id),
    fromState: text(),
    toState: text(),
    reason: text().notNull().default(""),
    details: text({ mode: "json" }).$type<Record<string, unknown>>(),
  },
  (t) => [index("audit_log_submission").on(t.submissionId)],
);

/**
 * A submission issue on GitHub and what Agentboard has done with it: the body it last
 * processed, the comments it has read, and its one status comment.
 */
export const githubIssues = sqliteTable(
  "github_issues",
  {
    id: integer().primaryKey({ autoIncrement: true }),
    repo: text().notNull(),
    number: integer().notNull(),
    /** Null until the form parses and a bundle is ingested. */
    submissionId: integer().references(() => submissions.id),
    author: text().notNull(),
    /** sha256 of the issue body last processed; an edit with a new hash is a new revision. */
    bodySha256: text(),
    /** The ZIP link of the current revision. */
    zipUrl: text(),
    /** The bot's status comment, edited in place (GitHub ids pass 2^31: a bigint on Postgres). */
    commentId: integer(),
    /** What the status comment and labels last said (a hash), so unchanged status is not re-sent. */
    postedHash: text(),
    /** Why the last revision could not be processed (form or download problems), for the comment. */
    problem: text(),
    /** Comments with ids up to this one have been read for slash commands. */
    lastCommentId: integer().notNull().default(0),
    createdAt: createdAt(),
    updatedAt: createdAt(),
  },
  (t) => [uniqueIndex("github_issues_unique").on(t.repo, t.number), index("github_issues_submission").on(t.submissionId)],
);

/** Webhook deliveries: the id makes a redelivery a no-op; the payload waits here until processed. */
export const githubDeliveries = sqliteTable(
  "github_deliveries",
  {
    deliveryId: text().primaryKey(),
    event: text().notNull(),
    payload: text({ mode: "json" }).notNull().$type<Record<string, unknown>>(),
    status: text({ enum: ["pending", "done", "failed", "ignored"] }).notNull(),
    /** Failed deliveries are retried a few times before they stay failed. */
    attempts: integer().notNull().default(0),
    error: text(),
    receivedAt: createdAt(),
    processedAt: integer({ mode: "timestamp_ms" }),
    /** Who is processing it: a pending delivery is claimed (token, time) by one worker at a time. */
    leaseToken: text(),
    leasedAt: integer({ mode: "timestamp_ms" }),
  },
  (t) => [index("github_deliveries_status").on(t.status)],
);

/**
 * Named leases for work that must run in one place at a time across workers and hosts: an
 * intake pass over a repository, the handling of one issue (its status comment). Taken by
 * one conditional write, renewed by the holder, free once expired.
 */
export const leases = sqliteTable("leases", {
  name: text().primaryKey(),
  holder: text().notNull(),
  token: text().notNull(),
  expiresAt: integer({ mode: "timestamp_ms" }).notNull(),
});

/** Maintainer sessions, shared by every web replica: sign-out deletes the row. */
export const adminSessions = sqliteTable(
  "admin_sessions",
  {
    nonce: text().primaryKey(),
    expiresAt: integer({ mode: "timestamp_ms" }).notNull(),
    createdAt: createdAt(),
  },
  (t) => [index("admin_sessions_expires").on(t.expiresAt)],
);

/** Failed sign-ins per client key, shared by every web replica (limits in app/admin/failure-limiter.ts). */
export const signInFailures = sqliteTable(
  "sign_in_failures",
  {
    id: integer().primaryKey({ autoIncrement: true }),
    clientKey: text().notNull(),
    at: integer({ mode: "timestamp_ms" }).notNull(),
  },
  (t) => [index("sign_in_failures_key").on(t.clientKey, t.at), index("sign_in_failures_at").on(t.at)],
);

/**
 * A judge's agreement with a benchmark version's labelled cases (`agentboard calibrate`), one
 * per (judge, prompt-template hashes, benchmark version): a newer report for the same key
 * replaces the older. The headline (pooled pass/fail: n, accuracy, κ and their intervals) is in
 * columns for /about and the publication gate (`judge.minKappa`); the whole report in JSON.
 */
export const judgeCalibrations = sqliteTable(
  "judge_calibrations",
  {
    id: integer().primaryKey({ autoIncrement: true }),
    benchmarkVersionId: integer()
      .notNull()
      .references(() => benchmarkVersions.id),
    /** `openai:<model>` or `rules`: as scoring runs name their judge. */
    judgeId: text().notNull(),
    /** sha256 of the judge's prompt-template hashes (canonical JSON), as the run manifest records them. */
    promptDigest: text().notNull(),
    endpoint: text({ enum: ["none", "local", "remote"] }).notNull(),
    /** Judged cases with pass/fail labels, pooled over every stage and capability. */
    n: integer().notNull(),
    accuracy: real(),
    accuracyLow: real(),
    accuracyHigh: real(),
    kappa: real(),
    kappaLow: real(),
    kappaHigh: real(),
    /** Every case of the set, and those the judge could not judge. */
    cases: integer().notNull(),
    unjudged: integer().notNull(),
    report: text({ mode: "json" }).notNull().$type<CalibrationReport>(),
    calibratedAt: integer({ mode: "timestamp_ms" }).notNull(),
    storedAt: createdAt(),
  },
  (t) => [uniqueIndex("judge_calibrations_key").on(t.benchmarkVersionId, t.judgeId, t.promptDigest)],
);

/**
 * Grades a judge panel disagreed on, one row per grade key (lib/judges/panel-grader.ts
 * `decisionKey`: the same request from any submission has the same key), with what was asked
 * (private: it holds the reference), each judge's grade, and a maintainer's decision once made.
 */
export const gradeDisputes = sqliteTable("grade_disputes", {
  key: text().primaryKey(),
  kind: text().notNull().$type<GradeKind>(),
  benchmarkVersionId: integer()
    .notNull()
    .references(() => benchmarkVersions.id),
  capability: text().notNull(),
  rule: text().notNull().$type<PanelRule>(),
  request: text({ mode: "json" }).notNull().$type<DisputedRequest>(),
  members: text({ mode: "json" }).notNull().$type<MemberGrade[]>(),
  createdAt: createdAt(),
  /** The decision: pass/fail, or a score for graded stages; null until a maintainer decides. */
  decisionOutcome: text().$type<Decision["outcome"]>(),
  decisionScore: real(),
  decidedBy: text(),
  decidedAt: integer({ mode: "timestamp_ms" }),
  decisionReason: text(),
});

/** Which runs asked a disputed grade: a decision re-aggregates each of them. */
export const gradeDisputeRuns = sqliteTable(
  "grade_dispute_runs",
  {
    key: text()
      .notNull()
      .references(() => gradeDisputes.key),
    runId: integer()
      .notNull()
      .references(() => scoringRuns.id),
  },
  (t) => [primaryKey({ columns: [t.key, t.runId] }), index("grade_dispute_runs_run").on(t.runId)],
);

export type SubmissionRow = typeof submissions.$inferSelect;
export type ScoringRunRow = typeof scoringRuns.$inferSelect;
export type AuditRow = typeof auditLog.$inferSelect;
