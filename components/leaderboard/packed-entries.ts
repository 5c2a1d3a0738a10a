/**
 * The board's entries as the page ships them to the browser: one array per entry, in a fixed
 * field order, with numbers cut to what any view shows or sorts by. The objects' keys repeated
 * for every entry (and escaped again inside the page's data stream) were most of the page's
 * weight on a big board. Pure and browser-safe: the page packs, the board unpacks once.
 */
import type { EntryCost, LeaderboardEntry, ScoreCell } from "@/lib/queries/types";
import { INTEGRITY_FLAG_KINDS } from "@/lib/scoring/integrity-flags";

/** A capability cell: score and interval, or 0 when the capability was not submitted. */
type PackedCell = [score: number, ciLow: number, ciHigh: number] | 0;

type PackedEntry = [
  id: number,
  rank: number,
  agent: string,
  models: string[],
  maintainer: string,
  overall: [score: number, ciLow: number, ciHigh: number],
  /** complete | verified << 1 | partial << 2 | demo << 3 | flagged << 4, then one bit per integrity flag kind from << 5 */
  bits: number,
  capabilities: PackedCell[],
  coverage: number,
  /** Epoch milliseconds. */
  date: number,
  cost: [costUsd: number | null, totalTokens: number | null, latencyMedianS: number | null, latencyP95S: number | null],
  trials: number,
  /** pass^k: the overall, then each capability's (null where it has none); 0 for an entry of one trial. */
  passK: [overall: number, ...capabilities: (number | null)[]] | 0,
  /** The entry's own links as [name, href] pairs; left out when it has none. */
  links?: [name: string, href: string][],
];

export interface PackedEntries {
  /** Capability ids, in the order of each entry's cells. */
  capabilities: string[];
  entries: PackedEntry[];
}

/** Scores, intervals and shares to 4 decimals (views show 1, sorts need no more); dollars and seconds to 6 significant digits; tokens whole. */
const score = (x: number) => Math.round(x * 1e4) / 1e4;
const figure = (x: number | null) => (x === null ? null : Number(x.toPrecision(6)));

const cellOf = (c: ScoreCell | undefined): PackedCell => (c?.submitted ? [score(c.score), score(c.ciLow), score(c.ciHigh)] : 0);

export function packEntries(entries: readonly LeaderboardEntry[], capabilityIds: readonly string[]): PackedEntries {
  return {
    capabilities: [...capabilityIds],
    entries: entries.map((e) => [
      e.id,
      e.rank,
      e.agent,
      e.models,
      e.maintainer,
      [score(e.overall.score), score(e.overall.ciLow), score(e.overall.ciHigh)],
      (e.overall.complete ? 1 : 0) |
        (e.badges.verified ? 2 : 0) |
        (e.badges.partial ? 4 : 0) |
        (e.badges.demo ? 8 : 0) |
        (e.badges.flagged ? 16 : 0) |
        INTEGRITY_FLAG_KINDS.reduce((b, k, i) => (e.flags.includes(k) ? b | (32 << i) : b), 0),
      capabilityIds.map((id) => cellOf(e.capabilities[id])),
      score(e.coverage),
      Date.parse(e.date),
      [figure(e.cost.costUsd), e.cost.totalTokens, figure(e.cost.latencyMedianS), figure(e.cost.latencyP95S)],
      e.trials,
      e.passK ? [score(e.passK.overall), ...capabilityIds.map((id) => (id in e.passK!.capabilities ? score(e.passK!.capabilities[id]!) : null))] : 0,
      ...(e.links?.length ? [e.links.map((l): [string, string] => [l.name, l.href])] : []),
    ] as PackedEntry),
  };
}

const NOT_SUBMITTED: ScoreCell = Object.freeze({ score: 0, ciLow: 0, ciHigh: 0, submitted: false });

export function unpackEntries(packed: PackedEntries): LeaderboardEntry[] {
  return packed.entries.map(([id, rank, agent, models, maintainer, overall, bits, cells, coverage, date, cost, trials, passK, links]) => {
    const capabilities: Record<string, ScoreCell> = {};
    packed.capabilities.forEach((cap, i) => {
      const c = cells[i];
      capabilities[cap] = c ? { score: c[0], ciLow: c[1], ciHigh: c[2], submitted: true } : NOT_SUBMITTED;
    });
    const [costUsd, totalTokens, latencyMedianS, latencyP95S] = cost;
    const entryCost: EntryCost = { costUsd, totalTokens, latencyMedianS, latencyP95S };
    return {
      id,
      rank,
      agent,
      models,
      maintainer,
      overall: { score: overall[0], ciLow: overall[1], ciHigh: overall[2], submitted: true, complete: (bits & 1) !== 0 },
      capabilities,
      coverage,
      date: new Date(date).toISOString(),
      badges: { verified: (bits & 2) !== 0, partial: (bits & 4) !== 0, demo: (bits & 8) !== 0, flagged: (bits & 16) !== 0 },
      cost: entryCost,
      flags: INTEGRITY_FLAG_KINDS.filter((_, i) => (bits & (32 << i)) !== 0),
      trials,
      passK: passK ? { overall: passK[0], capabilities: Object.fromEntries(packed.capabilities.flatMap((cap, i) => (passK[i + 1] == null ? [] : [[cap, passK[i + 1]!]]))) } : null,
      ...(links?.length ? { links: links.map(([name, href]) => ({ name, href })) } : {}),
    };
  });
}
