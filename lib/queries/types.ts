/** Plain data the pages render: no database types cross this line. */
import type { EvaluatorEvidence, FunnelBucket, ItemResult, ItemStage, ItemStatus, ScorerName, TrajectoryDiagnostic } from "../scoring/item-result";
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
  badges: { verified: boolean; partial: boolean; demo: boolean };
  cost: EntryCost;
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
  } | null;
  capabilities: (ScoreCell & { id: string; label: string; scorer: string; nItems: number; nMissing: number; nError: number; nPolicyUnchecked: number })[];
  domains: { capability: string; domain: string; score: number; nItems: number }[];
  funnel: Funnel | null;
  /** Per capability: the deterministic trajectory comparison, a diagnostic outside the ranking. */
  trajectory: TrajectoryRow[];
  /** Per evaluator capability (qa, trajectory, report): what its evaluator reported beyond the score. */
  evaluators: EvaluatorRow[];
  timeline: TimelineEvent[];
  validation: { errors: number; warnings: number; warningCounts: Record<string, number>; firstErrors: { code: string; file: string; path?: string; message: string }[] } | null;
}

export interface ItemFilters {
  capability?: string;
  domain?: string;
  stage?: ItemStage;
  status?: ItemStatus;
  page?: number;
  pageSize?: number;
}

/** A row of the item table: the stored result's summary columns. */
export type ItemRow = Pick<ItemResult, "capability" | "domain" | "uuid" | "weight" | "score" | "status" | "stage"> & {
  /** Waterfall items only. */
  policy: PolicyOutcome | null;
};

export interface ItemPage {
  rows: ItemRow[];
  total: number;
  page: number;
  pageSize: number;
  facets: { capabilities: string[]; domains: string[]; stages: string[]; statuses: string[] };
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

/** An item's trajectory diagnostic; its summary names the expected calls, so it is null unless public. */
export type TrajectoryView = Omit<TrajectoryDiagnostic, "summary"> & { summary: string | null };

export interface ItemDetail extends ItemRow {
  scorer: ScorerName;
  bucket: FunnelBucket;
  /** Public: why this score. */
  reason: string;
  /** Private: null unless the benchmark shows its ground truth. */
  detail: string | null;
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

export interface ReviewRow {
  id: number;
  agent: string;
  state: string;
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
}

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
  overall: ScoreCell;
  capabilities: Record<string, ScoreCell>;
  domains: Record<string, Record<string, number>>;
}

export interface PairedComparison {
  a: number;
  b: number;
  scope: string;
  diff: number;
  ciLow: number;
  ciHigh: number;
  significant: boolean;
  nItems: number;
}

export interface Comparison {
  benchmark: BenchmarkInfo;
  entries: ComparedEntry[];
  /** Each entry against the first, per capability (and `overall`). */
  differences: PairedComparison[];
  domains: string[];
}
