/** `/`: the leaderboard of a benchmark version, rendered on the server with the view from the URL. */
import Link from "next/link";
import { LeaderboardCharts } from "@/components/charts/leaderboard-charts";
import { EmptyState } from "@/components/leaderboard/empty-state";
import { LeaderboardHeader } from "@/components/leaderboard/leaderboard-header";
import { LeaderboardTable } from "@/components/leaderboard/leaderboard-table";
import { parseView } from "@/components/leaderboard/view-state";
import { pageDb } from "@/lib/queries/db";
import { listBenchmarks } from "@/lib/queries/benchmark-info";
import { getLeaderboard } from "@/lib/queries/leaderboard";

export const dynamic = "force-dynamic";

type SearchParams = Record<string, string | string[] | undefined>;

const first = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v) || undefined;

export default async function LeaderboardPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const params = await searchParams;
  const benchmark = first(params.benchmark);
  const version = first(params.version);
  const board = getLeaderboard(pageDb(), { benchmark, version });

  if (!board) {
    return benchmark || version ? (
      <EmptyState title="No such leaderboard">
        <p>
          There is no benchmark {benchmark ? <code className="font-mono">{benchmark}</code> : null}
          {version ? (
            <>
              {" "}
              with version <code className="font-mono">{version}</code>
            </>
          ) : null}{" "}
          here. <Link href="/" className="text-sky-800 underline dark:text-sky-300">
            Open the default leaderboard
          </Link>.
        </p>
      </EmptyState>
    ) : (
      <EmptyState title="No benchmark yet">
        <p>No benchmark has been set up on this board, so there is nothing to rank yet.</p>
      </EmptyState>
    );
  }

  const { benchmark: info, entries, updatedAt } = board;
  const capabilities = info.capabilities.map((c) => ({ id: c.id, label: c.label, description: c.description }));

  return (
    <div className="flex flex-col gap-6">
      <LeaderboardHeader benchmark={info} updatedAt={updatedAt} linkBenchmark={!!benchmark} benchmarks={listBenchmarks(pageDb())} />
      {entries.length === 0 ? (
        <EmptyState title="No published entries yet" heading="h2">
          <p>
            Be the first on the {info.title} v{info.version} leaderboard: submit your agent&apos;s outputs and we score them on the server.
          </p>
        </EmptyState>
      ) : (
        <>
          <LeaderboardTable
            key={`${info.slug}@${info.version}`}
            entries={entries}
            capabilities={capabilities}
            initialView={parseView(params, capabilities.map((c) => c.id))}
            benchmark={info.slug}
            version={info.version}
          />
          <LeaderboardCharts capabilities={info.capabilities} entries={entries} />
        </>
      )}
    </div>
  );
}
