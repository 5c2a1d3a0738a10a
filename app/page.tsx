/** `/`: the leaderboard of a benchmark version, rendered on the server with the view from the URL. */
import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { firstParam, type SearchParams } from "@/components/common/search-params";
import { EmptyState } from "@/components/leaderboard/empty-state";
import { LeaderboardHeader } from "@/components/leaderboard/leaderboard-header";
import { packEntries } from "@/components/leaderboard/packed-entries";
import { LeaderboardView } from "@/components/leaderboard/leaderboard-view";
import { BOARD_VIEW, parseView } from "@/components/leaderboard/view-state";
import { pageDb } from "@/lib/queries/db";
import { listBenchmarks } from "@/lib/queries/benchmark-info";
import { getLeaderboard } from "@/lib/queries/leaderboard";
import { entryLinks } from "@/lib/queries/entry-links";

export const dynamic = "force-dynamic";

/** The board the URL names, or null; `asked` when the URL named a benchmark or version. */
async function load(params: SearchParams) {
  const benchmark = firstParam(params, "benchmark");
  const version = firstParam(params, "version");
  return { benchmark, board: await getLeaderboard(await pageDb(), { benchmark, version }), asked: !!(benchmark || version) };
}

export async function generateMetadata({ searchParams }: { searchParams: Promise<SearchParams> }): Promise<Metadata> {
  const { board, asked } = await load(await searchParams);
  if (!board) return { title: asked ? "Leaderboard not found" : "Leaderboard" };
  return { title: `${board.benchmark.title.slice(0, 80)} v${board.benchmark.version} · leaderboard` };
}

export default async function LeaderboardPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const params = await searchParams;
  const { benchmark, board, asked } = await load(params);

  if (!board) {
    // An unknown benchmark or version is a 404 (the not-found page links back to the board).
    if (asked) notFound();
    return (
      <EmptyState title="No benchmark yet">
        <p>No benchmark has been set up on this board, so there is nothing to rank yet.</p>
      </EmptyState>
    );
  }

  const { benchmark: info, updatedAt } = board;
  const capabilities = info.capabilities.map((c) => ({ id: c.id, label: c.label, description: c.description }));
  const db = await pageDb();
  const benchmarks = await listBenchmarks(db);
  // Each entry's own links (paper, code), when its submission gave any.
  const links = await entryLinks(db, board.entries.map((e) => e.id), { benchmark: info.slug, version: info.version });
  const entries = links.size ? board.entries.map((e) => (links.has(e.id) ? { ...e, links: links.get(e.id) } : e)) : board.entries;

  return (
    <div className="flex flex-col gap-6">
      <LeaderboardHeader benchmark={info} updatedAt={updatedAt} linkBenchmark={!!benchmark} benchmarks={benchmarks} />
      {entries.length === 0 ? (
        <EmptyState title="No published entries yet" heading="h2">
          <p>
            Be the first on the {info.title} v{info.version} leaderboard: submit your agent&apos;s outputs and we score them on the server.
          </p>
        </EmptyState>
      ) : (
        <LeaderboardView
          key={`${info.slug}@${info.version}`}
          packed={packEntries(entries, capabilities.map((c) => c.id))}
          capabilities={capabilities}
          initialView={parseView(params, capabilities.map((c) => c.id), BOARD_VIEW)}
          benchmark={info.slug}
          version={info.version}
        />
      )}
    </div>
  );
}
