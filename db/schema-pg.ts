/**
 * The same database on Postgres (hosted mode). One design with db/schema.ts, kept equal by
 * test/unit/db/schema-lockstep.test.ts: same tables, columns, nullability, keys and indexes.
 *
 * Queries are written once, against db/schema.ts, and drizzle's pg dialect renders them for
 * Postgres. So each column stores what the shared codecs write: times as epoch milliseconds
 * (bigint, read back as numbers: db/client.ts sets the parser), JSON as text, booleans as
 * booleans (Postgres reads the 1/0 the codec sends), reals as double precision.
 */
import { bigint, boolean, doublePrecision, index, integer, pgTable, primaryKey, text, uniqueIndex } from "drizzle-orm/pg-core";

const millis = () => bigint({ mode: "number" });
const createdAt = () => millis().notNull();
const id = () => integer().primaryKey().generatedByDefaultAsIdentity();

export const benchmarks = pgTable("benchmarks", {
  id: id(),
  slug: text().notNull().unique(),
  title: text().notNull(),
  description: text().notNull().default(""),
  isDefault: boolean().notNull().default(false),
  createdAt: createdAt(),
});

export const benchmarkVersions = pgTable(
  "benchmark_versions",
  {
    id: id(),
    benchmarkId: integer()
      .notNull()
      .references(() => benchmarks.id),
    version: text().notNull(),
    root: text().notNull(),
    spec: text().notNull(),
    files: text(),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("benchmark_versions_unique").on(t.benchmarkId, t.version)],
);

export const submissions = pgTable(
  "submissions",
  {
    id: id(),
    benchmarkVersionId: integer()
      .notNull()
      .references(() => benchmarkVersions.id),
    agentName: text().notNull(),
    models: text().notNull(),
    maintainer: text().notNull().default(""),
    description: text().notNull().default(""),
    links: text().notNull(),
    contact: text().notNull().default(""),
    agentType: text().notNull().default(""),
    notes: text().notNull().default(""),
    source: text().notNull(),
    sourceRef: text().notNull(),
    bundlePath: text().notNull(),
    bundleSha256: text().notNull(),
    bundleFiles: text(),
    isDemo: boolean().notNull().default(false),
    state: text().notNull(),
    validationReport: text(),
    currentRunId: integer(),
    revision: integer().notNull().default(1),
    /**
     * When the current bundle's content was received: at ingestion, and again at each revision
     * that changes the bundle. It decides which of two matching entries came first (a revision
     * keeps its submission id, so the id cannot). Migration 0010 filled it in for older rows; a
     * row written without it reads as `createdAt`.
     */
    bundleReceivedAt: millis(),
    createdAt: createdAt(),
    updatedAt: createdAt(),
  },
  (t) => [uniqueIndex("submissions_bundle_unique").on(t.benchmarkVersionId, t.bundleSha256), index("submissions_state").on(t.state)],
);

export const scoringRuns = pgTable(
  "scoring_runs",
  {
    id: id(),
    submissionId: integer()
      .notNull()
      .references(() => submissions.id),
    judgeKind: text().notNull(),
    judgeModel: text(),
    judgeId: text(),
    judge: text(),
    replayMode: text().notNull(),
    verified: boolean().notNull().default(false),
    status: text().notNull(),
    progressDone: integer().notNull().default(0),
    progressTotal: integer().notNull().default(0),
    overallScore: doublePrecision(),
    overallCiLow: doublePrecision(),
    overallCiHigh: doublePrecision(),
    complete: boolean(),
    cost: text(),
    manifest: text(),
    flags: text(),
    trials: integer().notNull().default(1),
    trialStats: text(),
    itemSummary: text(),
    overallResamples: text(),
    error: text(),
    createdAt: createdAt(),
    startedAt: millis(),
    finishedAt: millis(),
  },
  (t) => [index("scoring_runs_submission").on(t.submissionId)],
);

export const itemResults = pgTable(
  "item_results",
  {
    id: id(),
    runId: integer()
      .notNull()
      .references(() => scoringRuns.id),
    capability: text().notNull(),
    domain: text().notNull(),
    uuid: text().notNull(),
    trial: integer().notNull().default(1),
    weight: doublePrecision().notNull(),
    score: doublePrecision().notNull(),
    status: text().notNull(),
    stage: text().notNull(),
    scorer: text().notNull().default("waterfall"),
    bucket: text().notNull().default("not_scored"),
    exactPassed: boolean().notNull().default(false),
    policy: text(),
    result: text().notNull(),
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

export const capabilityScores = pgTable(
  "capability_scores",
  {
    runId: integer()
      .notNull()
      .references(() => scoringRuns.id),
    capability: text().notNull(),
    score: doublePrecision().notNull(),
    ciLow: doublePrecision().notNull(),
    ciHigh: doublePrecision().notNull(),
    submitted: boolean().notNull(),
    nItems: integer().notNull(),
    nMissing: integer().notNull(),
    nError: integer().notNull(),
    nPolicyUnchecked: integer().notNull(),
    statusCounts: text().notNull(),
  },
  (t) => [primaryKey({ columns: [t.runId, t.capability] })],
);

export const domainScores = pgTable(
  "domain_scores",
  {
    runId: integer()
      .notNull()
      .references(() => scoringRuns.id),
    capability: text().notNull(),
    domain: text().notNull(),
    score: doublePrecision().notNull(),
    nItems: integer().notNull(),
  },
  (t) => [primaryKey({ columns: [t.runId, t.capability, t.domain] })],
);

export const gradeCache = pgTable("grade_cache", {
  key: text().primaryKey(),
  grade: text().notNull(),
  createdAt: createdAt(),
});

export const jobs = pgTable(
  "jobs",
  {
    id: id(),
    kind: text().notNull(),
    runId: integer()
      .notNull()
      .references(() => scoringRuns.id),
    state: text().notNull(),
    attempts: integer().notNull().default(0),
    lockedBy: text(),
    leaseToken: text(),
    heartbeatAt: millis(),
    lastError: text(),
    createdAt: createdAt(),
    updatedAt: createdAt(),
  },
  (t) => [index("jobs_state").on(t.state), index("jobs_run").on(t.runId)],
);

export const auditLog = pgTable(
  "audit_log",
  {
    id: id(),
    at: createdAt(),
    actor: text().notNull(),
    action: text().notNull(),
    submissionId: integer().references(() => submissions.id),
    fromState: text(),
    toState: text(),
    reason: text().notNull().default(""),
    details: text(),
  },
  (t) => [index("audit_log_submission").on(t.submissionId)],
);

export const githubIssues = pgTable(
  "github_issues",
  {
    id: id(),
    repo: text().notNull(),
    number: integer().notNull(),
    submissionId: integer().references(() => submissions.id),
    author: text().notNull(),
    bodySha256: text(),
    zipUrl: text(),
    commentId: bigint({ mode: "number" }),
    postedHash: text(),
    problem: text(),
    lastCommentId: bigint({ mode: "number" }).notNull().default(0),
    createdAt: createdAt(),
    updatedAt: createdAt(),
  },
  (t) => [uniqueIndex("github_issues_unique").on(t.repo, t.number), index("github_issues_submission").on(t.submissionId)],
);

export const githubDeliveries = pgTable(
  "github_deliveries",
  {
    deliveryId: text().primaryKey(),
    event: text().notNull(),
    payload: text().notNull(),
    status: text().notNull(),
    attempts: integer().notNull().default(0),
    error: text(),
    receivedAt: createdAt(),
    processedAt: millis(),
    leaseToken: text(),
    leasedAt: millis(),
  },
  (t) => [index("github_deliveries_status").on(t.status)],
);

export const leases = pgTable("leases", {
  name: text().primaryKey(),
  holder: text().notNull(),
  token: text().notNull(),
  expiresAt: millis().notNull(),
});

export const adminSessions = pgTable(
  "admin_sessions",
  {
    nonce: text().primaryKey(),
    expiresAt: millis().notNull(),
    createdAt: createdAt(),
  },
  (t) => [index("admin_sessions_expires").on(t.expiresAt)],
);

export const signInFailures = pgTable(
  "sign_in_failures",
  {
    id: id(),
    clientKey: text().notNull(),
    at: millis().notNull(),
  },
  (t) => [index("sign_in_failures_key").on(t.clientKey, t.at), index("sign_in_failures_at").on(t.at)],
);

export const judgeCalibrations = pgTable(
  "judge_calibrations",
  {
    id: id(),
    benchmarkVersionId: integer()
      .notNull()
      .references(() => benchmarkVersions.id),
    judgeId: text().notNull(),
    promptDigest: text().notNull(),
    endpoint: text().notNull(),
    n: integer().notNull(),
    accuracy: doublePrecision(),
    accuracyLow: doublePrecision(),
    accuracyHigh: doublePrecision(),
    kappa: doublePrecision(),
    kappaLow: doublePrecision(),
    kappaHigh: doublePrecision(),
    cases: integer().notNull(),
    unjudged: integer().notNull(),
    report: text().notNull(),
    calibratedAt: millis().notNull(),
    storedAt: createdAt(),
  },
  (t) => [uniqueIndex("judge_calibrations_key").on(t.benchmarkVersionId, t.judgeId, t.promptDigest)],
);

export const gradeDisputes = pgTable("grade_disputes", {
  key: text().primaryKey(),
  kind: text().notNull(),
  benchmarkVersionId: integer()
    .notNull()
    .references(() => benchmarkVersions.id),
  capability: text().notNull(),
  rule: text().notNull(),
  request: text().notNull(),
  members: text().notNull(),
  createdAt: createdAt(),
  decisionOutcome: text(),
  decisionScore: doublePrecision(),
  decidedBy: text(),
  decidedAt: millis(),
  decisionReason: text(),
});

export const gradeDisputeRuns = pgTable(
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
