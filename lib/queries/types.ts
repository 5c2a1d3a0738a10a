/** Plain data the pages render: no database types cross this line. */
import type { CostSummary } from "../aggregate/cost";
import type { TrialStats } from "../aggregate/trials";
import type { EvaluatorEvidence, FunnelBucket, ItemResult, ItemStage, ItemStatus, TrajectoryDiagnostic } from "../scoring/item-result";
import type { ScorerName } from "../benchmark/spec";
import type { IntegrityFlagKind } from "../scoring/integrity-flags";
import type { RunManifest } from "../scoring/manifest";
import type { OutcomeId } from "../scoring/outcome";
import type { PolicyOutcome, StageName, VerdictOutcome } from "../scoring/verdict";

export interface CapabilityInfo {
  id: string;
  label: string;
  description: string;
  directory: string;
  multiSourceWeight: number;
  policies: boolean;
  /** `waterfall`, or the evaluator that scores it: `qa`, `trajectory`, `report`. */
  scorer: string;
}

/** A benchmark on this board, for the switch between leaderboards. */
export interface BenchmarkLink {
  slug: string;
  title: string;
  isDefault: boolean;
}

export interface BenchmarkInfo {
  slug: string;
  title: string;
  description: string;
  version: string;
  versions: string[];
  capabilities: CapabilityInfo[];
  compat: string;
  retrieverTools: string[];
  exactMatchWindow: number;
  /** Whether the public may see the ground truth, and so the private half of every verdict. */
  /** `judge.minKappa`: the κ an LLM judge's stored calibration must show before a run it graded is published; null without one. */
  judgeMinKappa: number | null;
  showGroundTruth: boolean;
}

export interface ScoreCell {
  score: number;
  ciLow: number;
  ciHigh: number;
  submitted: boolean;
}

export interface LeaderboardEntry {
  id: number;
  rank: number;
  agent: string;
  models: string[];
  maintainer: string;
  overall: ScoreCell & { complete: boolean };
  capabilities: Record<string, ScoreCell>;
  /** Share of ground-truth items the entry predicted, 0-1. */
  coverage: number;
  date: string;
  /** `flagged`: its current run carries an integrity flag. */
  badges: { verified: boolean; partial: boolean; demo: boolean; flagged: boolean };
  cost: EntryCost;
  /** The kinds of integrity flag its current run carries (the entry page says what triggered each). */
  flags: IntegrityFlagKind[];
  /** Trials the bundle held (`trial_1/ … trial_k/`); 1 for a plain bundle. Scores are the mean over them. */
  trials: number;
  /** pass^k in points (items solved in all k trials, weighted), overall and per capability; null unless k > 1. */
  passK: { overall: number; capabilities: Record<string, number> } | null;
  /** The submission's own links (paper, code, …), http(s) only, for the board (entry-links.ts); absent when it gave none. */
  links?: EntryLink[];
}

export interface EntryLink {
  name: string;
  href: string;
}

/** What an entry cost to run, as its bundle reported it (never part of a score); null when unknown. */
export interface EntryCost {
  /** Seconds per item (dialogue or evaluator output). */
  latencyMedianS: number | null;
  latencyP95S: number | null;
  totalTokens: number | null;
  costUsd: number | null;
}

export interface Leaderboard {
  benchmark: BenchmarkInfo;
  entries: LeaderboardEntry[];
  updatedAt: string | null;
}

export interface TimelineEvent {
  at: string;
  actor: string;
  action: string;
  fromState: string | null;
  toState: string | null;
  reason: string;
}

export interface Funnel {
  total: number;
  notScored: number;
  policy: number;
  exactPassed: number;
  correctnessFailed: number;
  groundednessFailed: number;
  passed: number;
}

export interface SubmissionDetail {
  id: number;
  agent: string;
  models: string[];
  maintainer: string;
  description: string;
  links: Record<string, string>;
  source: string;
  sourceRef: string;
  bundleSha256: string;
  state: string;
  isDemo: boolean;
  createdAt: string;
  benchmark: BenchmarkInfo;
  run: {
    id: number;
    status: string;
    judge: string;
    replay: string;
    verified: boolean;
    progressDone: number;
    progressTotal: number;
    overall: (ScoreCell & { complete: boolean }) | null;
    finishedAt: string | null;
    /** Trials the bundle held; the scores are the mean over them. */
    trials: number;
    /** Per-trial scores, their spread and pass^k; null for runs scored before trials were kept. */
    trialStats: TrialStats | null;
    /** Latency, tokens and dollars; null for runs scored before costs were recorded. */
    cost: CostSummary | null;
  } | null;
  capabilities: (ScoreCell & { id: string; label: string; scorer: string; nItems: number; nMissing: number; nError: number; nPolicyUnchecked: number; statusCounts: Partial<Record<ItemStatus, number>> })[];
  domains: { capability: string; domain: string; score: number; nItems: number }[];
  funnel: Funnel | null;
  /** Per capability: the deterministic trajectory comparison, a diagnostic outside the ranking. */
  trajectory: TrajectoryRow[];
  /** Per evaluator capability (qa, trajectory, report): what its evaluator reported beyond the score. */
  evaluators: EvaluatorRow[];
  timeline: TimelineEvent[];
  validation: { errors: number; warnings: number; warningCounts: Record<string, number>; firstErrors: { code: string; file: string; path?: string; message: string }[] } | null;
  /** The shown run's integrity flags and unsupported-answer shares; null when it has none stored. */
  integrity: IntegrityView | null;
  /** What decides the shown run's numbers (lib/scoring/manifest.ts), for `agentboard verify`; null before a run completes or for runs scored before manifests. */
  manifest: RunManifest | null;
}

/** One integrity flag as pages show it: what triggered it, in words and numbers. */
export interface IntegrityFlagView {
  kind: IntegrityFlagKind;
  message: string;
  capability: string | null;
  share: number | null;
  count: number | null;
  of: number | null;
  threshold: number | null;
  /** Duplicates: the other entry (linked only when published). */
  other: { id: number; agent: string; published: boolean } | null;
  /** The items that triggered it, at most a page's worth (`count` is exact). */
  items: { capability: string; uuid: string; trial?: number }[];
  inMetadata: boolean;
}

export interface IntegrityView {
  flags: IntegrityFlagView[];
  /** Per capability: correct answers the replayed calls do not support; `applies` false for evaluator capabilities. */
  unsupportedAnswers: {
    threshold: number | null;
    capabilities: { id: string; label: string; applies: boolean; unsupported: number; scored: number; share: number | null; flagged: boolean }[];
  };
}

export type ItemSortKey = "item" | "trial" | "capability" | "domain" | "question" | "answer" | "reason" | "outcome" | "weight" | "score";
export type SortDir = "asc" | "desc";

export interface ItemFilters {
  capability?: string;
  domain?: string;
  /** A run of k trials: only this trial's items (1-based). On the item page, the trial of the item shown. */
  trial?: number;
  outcome?: OutcomeId;
  /** Only items that lost points: a score below 1 (missing items and errors included). */
  lost?: boolean;
  /** Default: capability, domain, item id, trial. Ties always break on capability, domain, item id, trial. */
  sort?: ItemSortKey;
  dir?: SortDir;
  page?: number;
  pageSize?: number;
}

/** An item's identity and summary columns, as stored. */
export type ItemSummary = Pick<ItemResult, "capability" | "domain" | "uuid" | "trial" | "weight" | "score" | "status" | "stage"> & {
  /** Waterfall items only. */
  policy: PolicyOutcome | null;
};

/** A row of the item table: the summary columns and, cut to a table's length (ending "…" when cut), what was asked, answered and why. */
export interface ItemRow extends ItemSummary {
  question: string;
  answer: string;
  /** Public: never quotes the ground truth. */
  reason: string;
  /** Private: null unless the benchmark shows its ground truth. */
  detail: string | null;
}

export interface ItemPage {
  rows: ItemRow[];
  total: number;
  page: number;
  pageSize: number;
  /** `trials`: the trials the run holds (one entry, 1, for a plain bundle). */
  facets: { capabilities: string[]; domains: string[]; outcomes: OutcomeId[]; trials: number[] };
}

/** Where an item stands in a filtered, sorted list: 1-based, with its neighbours. */
export interface ItemPosition {
  index: number;
  total: number;
  prev: Pick<ItemSummary, "capability" | "uuid" | "trial"> | null;
  next: Pick<ItemSummary, "capability" | "uuid" | "trial"> | null;
}

export interface VerdictView {
  stage: StageName;
  turnId: number;
  outcome: VerdictOutcome;
  score: number | null;
  /** Public: never quotes the ground truth. */
  reason: string;
  /** Private: null unless the benchmark shows its ground truth. */
  detail: string | null;
  judge: string;
  cacheHit: boolean;
  latencyMs: number;
}

export interface TrajectoryRow {
  capability: string;
  label: string;
  /** Items with a comparison (a scored turn). */
  n: number;
  score: number;
  toolNamesF1: number;
  paramsF1: number | null;
  exactShare: number;
}

/**
 * One line of an item's trajectory diagnostic. The agent's call is its own (public); what was
 * expected is ground truth: `expected` is null, and an expected call the agent did not make
 * is only counted, unless the benchmark shows its ground truth.
 */
export interface TrajectoryCallView {
  /** The agent's call: its position in the turn (0-based), name and arguments; null for an expected call it did not make. */
  call: { index: number; name: string; arguments: unknown } | null;
  verdict: "as_expected" | "differed" | "not_expected" | "not_made";
  /** Keys of the agent's parameters whose value differs from the expected one. */
  differed: string[];
  /** Keys of expected parameters the agent left out (keys are the tool's schema, never values). */
  missing: string[];
  /** Keys the agent passed that the expected call does not have. */
  extra: string[];
  /** The expected call: null unless the ground truth is public. */
  expected: { name: string; arguments: unknown } | null;
}

/** An item's trajectory diagnostic, split: the summary names the expected calls, so it is null unless public. */
export interface TrajectoryView extends Omit<TrajectoryDiagnostic, "summary" | "pairs"> {
  summary: string | null;
  /** Per agent call, in the agent's order, then (where public) the expected calls not made; null for results stored before calls were paired. */
  calls: TrajectoryCallView[] | null;
  /** How many lines `calls` had before it was cut to a page's worth. */
  callCount?: number;
  /** Expected calls the agent did not make. */
  notMade: number;
}

export interface ItemDetail extends ItemSummary {
  scorer: ScorerName;
  bucket: FunnelBucket;
  /** Public: why this score. */
  reason: string;
  /** Private: null unless the benchmark shows its ground truth. */
  detail: string | null;
  /** The agent's scored turn was stored (false for missing items and errors, whose query is the benchmark's question). */
  hasTurn: boolean;
  query: string;
  answer: unknown;
  calls: { name: string; arguments: Record<string, unknown> }[];
  /** How many calls and responses the turn had, when the lists above were cut to a page's worth. */
  callCount?: number;
  responses: unknown[];
  responseCount?: number;
  verdicts: VerdictView[];
  trajectory: TrajectoryView | null;
  /** Evaluator capabilities: the evaluator's result for this item. */
  evaluation: EvaluationView | null;
  /** A judge panel's grades of this item: each judge's public grade, disagreement, a maintainer's decision. */
  panel: PanelGradeView[];
}

/** One panel grade as the public sees it: never the judges' private words, never the reference. */
export interface PanelGradeView {
  kind: string;
  disputed: boolean;
  /** A maintainer decided this grade. */
  decided: boolean;
  outcome: string;
  score: number | null;
  members: { judge: string; outcome: string; score: number | null; reason: string }[];
}

export interface EvaluatorRow {
  capability: string;
  label: string;
  scorer: string;
  nItems: number;
  nScored: number;
  /** Mean of each sub-score (the report's `vlm_field`) over the scored items that have it. */
  subScores: Record<string, number | null>;
}

/**
 * What the item view shows of an evaluator's result. Its reasoning, error and evidence
 * (field trees, compared calls) quote the reference: null unless the ground truth is public.
 */
export type EvaluationView = Pick<EvaluatorEvidence, "kind" | "status" | "score" | "reason" | "judge" | "latencyMs" | "subScores"> & {
  reasoning: string | null;
  error: string | null;
  details: Record<string, unknown> | null;
};

/** An item's expected answer and calls, shown only when the benchmark allows it. */
export type ItemGroundTruth = { answer: unknown; calls: { name: string; arguments: Record<string, unknown> }[] } | null;

export interface QueueRow {
  id: number;
  agent: string;
  benchmark: string;
  state: string;
  source: string;
  progress: { done: number; total: number } | null;
  updatedAt: string;
  isDemo: boolean;
}

/** A submission the worker has not finished with, in the order it takes them. */
export interface InFlightRow extends QueueRow {
  /** 1, 2, … among the runs waiting for a worker; null while running or being validated. */
  position: number | null;
  running: boolean;
  /** When its run was queued (or the submission received, before validation). */
  waitingSince: string;
  /** Time left at the run's own pace so far; null unless it has run long enough to say. */
  remainingMs: number | null;
}

export interface ReviewRow {
  id: number;
  agent: string;
  /** "Title v1.0" of the benchmark version it was submitted to. */
  benchmark: string;
  state: string;
  /** For a withdrawn entry: the state it was withdrawn from (a restore goes back there, see review.ts). */
  withdrawnFrom: string | null;
  source: string;
  sourceRef: string;
  isDemo: boolean;
  overall: number | null;
  complete: boolean;
  updatedAt: string;
  /** What the issue form told maintainers; never on a public page. */
  contact: string;
  agentType: string;
  notes: string;
  /** The current run's integrity flags, each with what triggered it. */
  flags: { kind: IntegrityFlagKind; message: string }[];
  /** Approved but not published: why (its judge's calibration falls short of `judge.minKappa`); null otherwise. */
  held: string | null;
}

/** A judge's stored calibration on a benchmark version, as /about shows it. */
export interface CalibrationSummary {
  id: number;
  judgeId: string;
  endpoint: string;
  /** Judged cases with pass/fail labels (the headline's n), of `cases` in all. */
  n: number;
  cases: number;
  accuracy: number | null;
  accuracyLow: number | null;
  accuracyHigh: number | null;
  kappa: number | null;
  kappaLow: number | null;
  kappaHigh: number | null;
  calibratedAt: string;
}

/** What a reader of the public changelog is told happened to an entry. */
export type ChangelogKind = "published" | "rescored" | "restored" | "withdrawn" | "rejected" | "unlisted";

export interface ChangelogEvent {
  /** The audit row's id: a stable key. */
  id: number;
  at: string;
  kind: ChangelogKind;
  submissionId: number;
  agent: string;
  benchmark: string;
  fromState: string | null;
  toState: string;
  /** The overall after the event and, for a rescore, before it: only for entries public now (or a maintainer). */
  overall: number | null;
  previousOverall: number | null;
  reason: string;
  actor: string;
  /** The entry is published now, so its page may be linked for everyone. */
  isPublic: boolean;
}

/** One audit row as maintainers read the full log (every internal move). */
export interface ChangelogRow {
  at: string;
  submissionId: number | null;
  agent: string | null;
  actor: string;
  action: string;
  fromState: string | null;
  toState: string | null;
  reason: string;
}

export interface ComparedEntry {
  id: number;
  agent: string;
  /** The submission's state: maintainers may compare entries that are not published. */
  state: string;
  overall: ScoreCell;
  capabilities: Record<string, ScoreCell>;
  domains: Record<string, Record<string, number>>;
}

export interface PairedComparison {
  /** The baseline (the first entry). */
  a: number;
  b: number;
  /** A capability id, or `overall`. */
  scope: string;
  /** Points: A minus B, on the same items. */
  diff: number;
  ciLow: number;
  ciHigh: number;
  /** The 95% paired-bootstrap interval excludes 0 on the side of `diff`: on `overall`, the board never gives the two one rank. */
  significant: boolean;
  nItems: number;
}

/** Items by outcome in two entries, where an item passes with full marks (score 1): counts that show where a difference comes from, not a test. */
export interface FlipCounts {
  both: number;
  aOnly: number;
  bOnly: number;
  neither: number;
}

/** Entry B against the baseline A, item by item. */
export interface FlipSummary {
  a: number;
  b: number;
  capabilities: Record<string, FlipCounts>;
  overall: FlipCounts;
}

/** One entry's result on a flipped item: only ids, statuses and scores, all public. */
export interface FlipSide {
  score: number;
  status: ItemStatus;
  /** The outcome's label in the board's vocabulary (lib/scoring/outcome.ts). */
  outcome: string;
  passed: boolean;
  /** False when the run holds no result for the item at all (it counts as missing). */
  stored: boolean;
}

export interface FlipRow {
  capability: string;
  domain: string;
  uuid: string;
  a: FlipSide;
  b: FlipSide;
}

export interface FlipFilters {
  /** Which entry is set against the baseline (default: the second). */
  entry?: number;
  capability?: string;
  domain?: string;
  /** Only the flips this entry passed. */
  passed?: number;
  page?: number;
  pageSize?: number;
}

export interface FlipPage {
  a: number;
  b: number;
  rows: FlipRow[];
  total: number;
  page: number;
  pageSize: number;
  filters: Pick<FlipFilters, "capability" | "domain" | "passed">;
}

export interface Comparison {
  benchmark: BenchmarkInfo;
  entries: ComparedEntry[];
  /** Each entry against the first, per capability and `overall`. */
  differences: PairedComparison[];
  domains: string[];
  /** Each entry against the first, item by item. */
  flips: FlipSummary[];
  /** One page of the flipped items of one pair. */
  flipPage: FlipPage;
}

/** An entry the compare page's picker offers. */
export interface PickableEntry {
  id: number;
  agent: string;
  state: string;
  overall: number;
  /** Official rank on its board; null for an entry that is not published. */
  rank: number | null;
}

/** The entries of one benchmark version a viewer may compare. */
export interface PickableGroup {
  version: string;
  entries: PickableEntry[];
}

/** What a completed run's items add up to, as the entry page shows it: stored in `scoring_runs.item_summary` when the run completes. */
export type RunItemSummary = Pick<SubmissionDetail, "funnel" | "trajectory" | "evaluators">;
