/** The published leaderboard of a benchmark version, with official ranks from the paired test (lib/aggregate/rank.ts). */
import { and, eq, inArray, isNotNull, sql, type SQL } from "drizzle-orm";
import type { Db } from "../../db/client";
import { distinctList, jsonArrayRows, jsonText, jsonValid } from "./sql-dialect";
import { capabilityScores, scoringRuns, submissions } from "../../db/schema";
import { orderByRank } from "../aggregate/rank";
import { INTEGRITY_FLAG_KINDS } from "../scoring/integrity-flags";
import { findBenchmarkVersion } from "./benchmark-info";
import { memoByDataVersion } from "./memo";
import { createClipper, PUBLIC_RENDER_LIMITS } from "./render-limits";
import { entryCost } from "./entry-cost";
import { rankRuns } from "./resampled-entries";
import type { TrialStats } from "../aggregate/trials";
import type { Leaderboard, LeaderboardEntry, ScoreCell } from "./types";

/** pass^k for the board: only where there were k > 1 trials (pass^1 is no measure of consistency). */
function entryPassK(trials: number, stats: TrialStats | null): LeaderboardEntry["passK"] {
  if (trials < 2 || !stats) return null;
  return { overall: stats.overall.passK, capabilities: Object.fromEntries(Object.entries(stats.capabilities).map(([id, c]) => [id, c.passK])) };
}

export async function getLeaderboard(db: Db, opts: { benchmark?: string; version?: string } = {}): Promise<Leaderboard | null> {
  return memoByDataVersion(db, `leaderboard\0${opts.benchmark ?? ""}\0${opts.version ?? ""}`, () => readLeaderboard(db, opts));
}

/** The distinct kinds of a run's stored flags, comma-joined, read inside the database (the entry page has what triggered each). */
function flagKindsOf(db: Db): SQL<string | null> {
  // SQLite reads an unparsable value as no flags; Postgres trusts the column (see sql-dialect.ts).
  const flags = sql`CASE WHEN ${jsonValid(db, scoringRuns.flags)} THEN ${scoringRuns.flags} ELSE '{}' END`;
  return sql<string | null>`(SELECT ${distinctList(db, jsonText(db, sql.raw("f.value"), ["kind"]))} FROM ${jsonArrayRows(db, flags, ["flags"], "f")})`;
}

async function readLeaderboard(db: Db, opts: { benchmark?: string; version?: string }): Promise<Leaderboard | null> {
  const found = await findBenchmarkVersion(db, opts.benchmark, opts.version);
  if (!found) return null;
  // Only the columns the board shows: a submission row also holds its whole validation report.
  const rows = await db
    .select({
      sub: { id: submissions.id, agentName: submissions.agentName, models: submissions.models, maintainer: submissions.maintainer, isDemo: submissions.isDemo, createdAt: submissions.createdAt },
      run: { id: scoringRuns.id, overallScore: scoringRuns.overallScore, overallCiLow: scoringRuns.overallCiLow, overallCiHigh: scoringRuns.overallCiHigh, complete: scoringRuns.complete, verified: scoringRuns.verified, finishedAt: scoringRuns.finishedAt, cost: scoringRuns.cost, trials: scoringRuns.trials, trialStats: scoringRuns.trialStats },
      flagKinds: flagKindsOf(db),
    })
    .from(submissions)
    .innerJoin(scoringRuns, eq(scoringRuns.id, submissions.currentRunId))
    .where(and(eq(submissions.benchmarkVersionId, found.version.id), eq(submissions.state, "published"), isNotNull(submissions.currentRunId)));
  const runIds = rows.map((r) => r.run.id);
  const caps = runIds.length
    ? await db
        .select({ runId: capabilityScores.runId, capability: capabilityScores.capability, score: capabilityScores.score, ciLow: capabilityScores.ciLow, ciHigh: capabilityScores.ciHigh, submitted: capabilityScores.submitted, nItems: capabilityScores.nItems, nMissing: capabilityScores.nMissing })
        .from(capabilityScores)
        .where(inArray(capabilityScores.runId, runIds))
    : [];
  const byRun = new Map<number, typeof caps>();
  for (const c of caps) byRun.set(c.runId, [...(byRun.get(c.runId) ?? []), c]);

  // Submitted names are cut to the public length, as on every other page (the board is public).
  const clip = createClipper(PUBLIC_RENDER_LIMITS);
  const entries: Omit<LeaderboardEntry, "rank">[] = rows.map(({ sub, run, flagKinds }) => {
    const kinds = (flagKinds ?? "").split(",");
    const flags = INTEGRITY_FLAG_KINDS.filter((k) => kinds.includes(k));
    const capabilities: Record<string, ScoreCell> = {};
    let items = 0;
    let predicted = 0;
    for (const c of byRun.get(run.id) ?? []) {
      capabilities[c.capability] = { score: c.score, ciLow: c.ciLow, ciHigh: c.ciHigh, submitted: c.submitted };
      items += c.nItems;
      predicted += c.nItems - c.nMissing;
    }
    return {
      id: sub.id,
      agent: clip.name(sub.agentName),
      models: clip.list(sub.models ?? []).map((m) => clip.name(String(m))),
      maintainer: clip.name(sub.maintainer),
      overall: { score: run.overallScore ?? 0, ciLow: run.overallCiLow ?? 0, ciHigh: run.overallCiHigh ?? 0, submitted: true, complete: run.complete ?? false },
      capabilities,
      coverage: items ? predicted / items : 0,
      date: (run.finishedAt ?? sub.createdAt).toISOString(),
      badges: { verified: run.verified, partial: !(run.complete ?? false), demo: sub.isDemo, flagged: flags.length > 0 },
      cost: entryCost(run.cost),
      flags,
      trials: run.trials,
      passK: entryPassK(run.trials, run.trialStats),
    };
  });
  // Ranks come from the compare page's paired test on the version's items (resampled-entries.ts).
  const submittedOf = (runId: number) => new Set((byRun.get(runId) ?? []).filter((c) => c.submitted).map((c) => c.capability));
  const runRanks = await rankRuns(db, found.version.id, found.info.capabilities.map((c) => c.id), rows.map((r) => ({ runId: r.run.id, submitted: submittedOf(r.run.id) })));
  const ranks = new Map(rows.map((r) => [String(r.sub.id), runRanks.get(r.run.id)!]));
  const ranked = orderByRank(entries.map((e) => ({ id: String(e.id), score: e.overall.score })), ranks);
  const byId = new Map(entries.map((e) => [String(e.id), e]));
  const updated = entries.map((e) => e.date).sort().at(-1) ?? null;
  return { benchmark: found.info, entries: ranked.map((r) => ({ ...byId.get(r.id)!, rank: r.rank })), updatedAt: updated };
}
