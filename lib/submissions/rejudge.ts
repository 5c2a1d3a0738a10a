/**
 * Changing a board's judge without surprises: every published entry of a benchmark version is
 * graded again by another judge, through the one scoring entry point (score-bundle.ts) and the
 * grade cache, and nothing is written but cached grades: no run, no score, no state, no audit
 * row, so the public board does not move. What comes back is each entry's published numbers
 * beside the new ones, both boards' ranks (the board's own rule: lib/aggregate/rank.ts) and
 * Kendall's τ-b between the two rankings.
 *
 * Each entry is scored as its rescore would be (the worker's score-job.ts): the version's
 * benchmark as registered, the bundle as received (laid out from the storage when this host
 * lacks it), the replay mode of the run the board shows. An entry whose bundle or benchmark can
 * no longer be read, or that no longer validates, is reported and skipped; a judge that fails
 * leaves that entry's items unjudged and the entry incomplete. Neither stops the others.
 *
 * `queueRejudged` then hands the entries to the existing rescore (review.ts `rescore`): a new
 * run per entry with the new judge's kind and model, scored by a worker, published again only
 * when a maintainer approves it, as every rescore is.
 */
import { inArray } from "drizzle-orm";
import type { Db } from "../../db/client";
import { scoringRuns, submissions } from "../../db/schema";
import { rankEntries } from "../aggregate/rank";
import { kendallTauB } from "../aggregate/kendall-tau";
import { scoreBundle } from "../aggregate/score-bundle";
import { itemKey } from "../benchmark/item-key";
import type { Grader } from "../judges/grader";
import type { RecordedJudge } from "../judges/judge-settings";
import type { ReplayMode } from "../replay/replay-port";
import { isUnjudged, type ItemResult } from "../scoring/item-result";
import { getLeaderboard } from "../queries/leaderboard";
import { itemScoresOf, resampleRun, versionPlan, type ItemScore } from "../queries/resampled-entries";
import { benchmarkOfVersion } from "./benchmarks";
import { localBundle } from "./bundle-storage";
import { rescore, type Actor } from "./review";
import type { RunSpec } from "./runs";
import type { ScoringDeps } from "./score-job";
import { TransitionError } from "./transitions";

export interface RejudgeDeps {
  /** The other judge, from the one factory, with the database's grade cache. */
  grader: Grader;
  /** That judge as resolved (recorded in the results it produces, never stored here). */
  judge: RecordedJudge;
  /** How the worker scores (scoring-deps.ts): replay ports, storage, validation budgets, version, clock. */
  scoring: Pick<ScoringDeps, "replayFor" | "storage" | "validationLimits" | "agentboard" | "now">;
  /** Items graded of all the entries: the total is what their published runs hold (an entry that fails counts as done). */
  onProgress?: (done: number, total: number) => void;
}

/** An entry's numbers on one side: overall and per capability (null: capability not submitted), in points. */
export interface EntryNumbers {
  overall: number;
  complete: boolean;
  capabilities: Record<string, number | null>;
}

export interface RejudgedEntry {
  id: number;
  agent: string;
  /** The board's run, and the judge it was graded with. */
  runId: number;
  publishedJudge: string | null;
  replay: ReplayMode;
  published: EntryNumbers & { rank: number };
  /** The other judge's numbers; null when the entry could not be rejudged (`failure` says why). */
  rejudged: (EntryNumbers & { unjudged: number; replayErrors: number }) | null;
  failure: string | null;
  /**
   * The entry's rank on the board as it would be: the rejudged entries with their new numbers,
   * the others kept at their published ones (they would not be rescored).
   */
  rank: number;
}

export interface RejudgeReport {
  benchmark: { slug: string; title: string; version: string };
  capabilities: { id: string; label: string }[];
  judge: RecordedJudge;
  entries: RejudgedEntry[];
  /**
   * Kendall's τ-b between the board's order and the order under the other judge, by overall
   * score and by the board's ranks; null when undefined (fewer than two entries, or every entry
   * tied on one side). Entries not rejudged count at their published numbers on both sides.
   */
  tau: { overall: number | null; ranks: number | null };
}

export class RejudgeError extends Error {
  override readonly name = "RejudgeError";
}

/** One item once, its mean over trials: what the board's ranks read (resampled-entries.ts itemScoresOf). */
function itemScores(items: readonly ItemResult[]): ItemScore[] {
  const byKey = new Map<string, ItemScore & { n: number }>();
  for (const it of items) {
    const key = itemKey(it.capability, it.uuid);
    const seen = byKey.get(key);
    if (!seen) byKey.set(key, { capability: it.capability, domain: it.domain, uuid: it.uuid, weight: it.weight, score: it.score, n: 1 });
    else {
      seen.score += it.score;
      seen.n++;
      seen.weight = Math.max(seen.weight, it.weight);
      if (it.domain < seen.domain) seen.domain = it.domain;
    }
  }
  return [...byKey.values()].map(({ n, ...s }) => ({ ...s, score: s.score / n }));
}

/** The published entries of `slug` at `version`, graded again by `deps.grader`; writes nothing but cached grades. */
export async function rejudgeBoard(db: Db, board: { slug: string; version: string }, deps: RejudgeDeps): Promise<RejudgeReport> {
  const found = await getLeaderboard(db, { benchmark: board.slug, version: board.version });
  if (!found) throw new RejudgeError(`benchmark ${board.slug} version ${board.version} is not on this board (no such benchmark or version in the database)`);
  const capabilityIds = found.benchmark.capabilities.map((c) => c.id);
  const ids = found.entries.map((e) => e.id);
  const subs = ids.length ? await db.select({ id: submissions.id, benchmarkVersionId: submissions.benchmarkVersionId, bundlePath: submissions.bundlePath, bundleSha256: submissions.bundleSha256, bundleFiles: submissions.bundleFiles, validationReport: submissions.validationReport, currentRunId: submissions.currentRunId }).from(submissions).where(inArray(submissions.id, ids)) : [];
  const subById = new Map(subs.map((s) => [s.id, s]));
  const runIds = subs.map((s) => s.currentRunId).filter((r): r is number => r !== null);
  const runs = runIds.length ? await db.select({ id: scoringRuns.id, replayMode: scoringRuns.replayMode, judgeId: scoringRuns.judgeId, items: scoringRuns.progressTotal }).from(scoringRuns).where(inArray(scoringRuns.id, runIds)) : [];
  const runById = new Map(runs.map((r) => [r.id, r]));

  const expected = found.entries.reduce((n, e) => n + (runById.get(subById.get(e.id)?.currentRunId ?? -1)?.items ?? 0), 0);
  let finished = 0;
  const rows: (Omit<RejudgedEntry, "rank"> & { items: ItemScore[] | null; submitted: Set<string> })[] = [];
  for (const e of found.entries) {
    const sub = subById.get(e.id)!;
    const run = runById.get(sub.currentRunId!)!;
    const published: RejudgedEntry["published"] = {
      overall: e.overall.score,
      complete: e.overall.complete,
      rank: e.rank,
      capabilities: Object.fromEntries(capabilityIds.map((c) => [c, e.capabilities[c]?.submitted ? e.capabilities[c]!.score : null])),
    };
    const base = { id: e.id, agent: e.agent, runId: run.id, publishedJudge: run.judgeId, replay: run.replayMode, published };
    // A bundle changed since may hold more items than its run: the total grows rather than overflow.
    const progress = deps.onProgress ? (done: number) => deps.onProgress!(finished + done, Math.max(expected, finished + done)) : undefined;
    let outcome: Awaited<ReturnType<typeof scoreBundle>>;
    try {
      const benchmark = await benchmarkOfVersion(db, sub.benchmarkVersionId, deps.scoring.storage);
      const bundlePath = deps.scoring.storage ? await localBundle(deps.scoring.storage, sub) : sub.bundlePath;
      const replay = await deps.scoring.replayFor(benchmark, run.replayMode);
      outcome = await scoreBundle(benchmark, bundlePath, {
        grader: deps.grader,
        judge: deps.judge,
        replay,
        expectSha256: sub.bundleSha256,
        ...(deps.scoring.now ? { now: deps.scoring.now } : {}),
        ...(deps.scoring.validationLimits ? { validate: { limits: deps.scoring.validationLimits } } : {}),
        ...(deps.scoring.agentboard ? { agentboard: deps.scoring.agentboard } : {}),
        ...(progress ? { onProgress: progress } : {}),
      });
    } catch (err) {
      finished += run.items;
      deps.onProgress?.(finished, expected);
      rows.push({ ...base, rejudged: null, failure: `could not be rejudged: ${err instanceof Error ? err.message : String(err)}`, items: null, submitted: new Set() });
      continue;
    }
    if (outcome.kind !== "scored") {
      finished += run.items;
      deps.onProgress?.(finished, expected);
      const failure = outcome.kind === "invalid" ? `the bundle no longer validates (${outcome.report.summary.errors} error(s))` : `the bundle changed since it was received (sha256 ${outcome.sha256.slice(0, 12)}, received ${sub.bundleSha256.slice(0, 12)})`;
      rows.push({ ...base, rejudged: null, failure, items: null, submitted: new Set() });
      continue;
    }
    const r = outcome.results;
    finished += r.items.length;
    const submitted = new Set(Object.entries(r.capabilities).filter(([, c]) => c.submitted).map(([id]) => id));
    rows.push({
      ...base,
      rejudged: {
        overall: r.overall.score,
        complete: r.overall.complete,
        capabilities: Object.fromEntries(capabilityIds.map((c) => [c, r.capabilities[c]?.submitted ? r.capabilities[c]!.score : null])),
        unjudged: r.items.filter((i) => i.status === "judge_error").length,
        replayErrors: r.items.filter((i) => isUnjudged(i) && i.status !== "judge_error").length,
      },
      failure: null,
      items: itemScores(r.items),
      submitted,
    });
  }

  // The board as it would be: rejudged entries on their new items, the others on their stored ones.
  const kept = await itemScoresOf(db, rows.filter((r) => r.items === null).map((r) => r.runId));
  const sides = rows.map((r) => {
    if (r.items) return { items: r.items, submitted: r.submitted };
    const caps = found.entries.find((e) => e.id === r.id)!.capabilities;
    return { items: kept.get(r.runId) ?? [], submitted: new Set(capabilityIds.filter((c) => caps[c]?.submitted)) };
  });
  const plan = versionPlan(capabilityIds, sides.map((s) => s.items));
  const ranks = rows.length ? rankEntries(rows.map((r, i) => ({ id: String(r.id), sample: resampleRun(plan, sides[i]!.items, sides[i]!.submitted).overall }))) : new Map<string, number>();
  const entries: RejudgedEntry[] = rows.map(({ items: _items, submitted: _submitted, ...r }) => ({ ...r, rank: ranks.get(String(r.id))! }));
  const newOverall = (e: RejudgedEntry) => (e.rejudged ? e.rejudged.overall : e.published.overall);
  return {
    benchmark: { slug: found.benchmark.slug, title: found.benchmark.title, version: found.benchmark.version },
    capabilities: found.benchmark.capabilities.map((c) => ({ id: c.id, label: c.label })),
    judge: deps.judge,
    entries,
    tau: {
      overall: kendallTauB(
        entries.map((e) => e.published.overall),
        entries.map(newOverall),
      ),
      ranks: kendallTauB(
        entries.map((e) => e.published.rank),
        entries.map((e) => e.rank),
      ),
    },
  };
}

/** Whether `queueRejudged` queues the entry: rejudged in full (every item judged and replayed). */
export function rejudgedInFull(e: RejudgedEntry): boolean {
  return e.rejudged !== null && e.rejudged.unjudged === 0 && e.rejudged.replayErrors === 0;
}

export type QueueOutcome = { id: number; runId: number } | { id: number; skipped: string };

/**
 * Queues the rescoring of the report's entries with the judge `spec` names (review.ts `rescore`:
 * a new run each, in the run's replay mode, the entry off the board until a maintainer approves
 * its new run). Only entries rejudged in full are queued: one that could not be read, or that
 * the judge left incomplete, would be taken off the board to end in error.
 */
export async function queueRejudged(db: Db, report: RejudgeReport, spec: Pick<RunSpec, "judgeKind" | "judgeModel">, who: Actor): Promise<QueueOutcome[]> {
  const out: QueueOutcome[] = [];
  for (const e of report.entries) {
    if (!rejudgedInFull(e)) {
      out.push({ id: e.id, skipped: e.failure ?? `${e.rejudged!.unjudged + e.rejudged!.replayErrors} item(s) could not be judged or replayed` });
      continue;
    }
    try {
      const runId = await rescore(db, e.id, who, { ...spec, replayMode: e.replay }, `rejudge: rescored with judge ${report.judge.id}`);
      out.push({ id: e.id, runId });
    } catch (err) {
      // Withdrawn or rejected since it was read: its state does not allow the move.
      if (err instanceof TransitionError) out.push({ id: e.id, skipped: err.message });
      else throw err;
    }
  }
  return out;
}
