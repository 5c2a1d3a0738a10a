/**
 * A published entry's official rank, as its benchmark version's board shows it (the board's own
 * read, memoised per data version: the entry page adds no ranking of its own), and the board's URL.
 */
import type { Db } from "../../db/client";
import { getLeaderboard } from "./leaderboard";

export interface EntryRank {
  rank: number;
  /** Entries sharing the rank, this one included (2 or more: tied). */
  sharedBy: number;
  /** Entries on the board. */
  of: number;
  /** The board of the entry's benchmark version. */
  boardHref: string;
}

/** The board's URL for a benchmark version. */
export function boardHref(benchmark: string, version: string): string {
  return `/?${new URLSearchParams({ benchmark, version }).toString()}`;
}

/** null when the entry is not on that board (not published). */
export async function entryRank(db: Db, entry: { id: number; benchmark: string; version: string }): Promise<EntryRank | null> {
  const board = await getLeaderboard(db, { benchmark: entry.benchmark, version: entry.version });
  const mine = board?.entries.find((e) => e.id === entry.id);
  if (!board || !mine) return null;
  return { rank: mine.rank, sharedBy: board.entries.filter((e) => e.rank === mine.rank).length, of: board.entries.length, boardHref: boardHref(entry.benchmark, entry.version) };
}
