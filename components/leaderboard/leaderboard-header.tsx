/** Title, version switch, last-updated time and how ranks work (server component). */
import Link from "next/link";
import type { BenchmarkInfo, BenchmarkLink } from "@/lib/queries/types";
import { fmtDateTime } from "./format";

const pillClass = (current: boolean) =>
  `rounded-md border px-2 py-0.5 focus-visible:outline focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-sky-600 ${
    current
      ? "border-sky-600 bg-sky-50 font-medium text-sky-900 dark:border-sky-500 dark:bg-sky-950 dark:text-sky-100"
      : "border-slate-300 hover:bg-slate-50 dark:border-slate-600 dark:hover:bg-slate-800"
  }`;

export function LeaderboardHeader({ benchmark, updatedAt, linkBenchmark, benchmarks = [] }: { benchmark: BenchmarkInfo; updatedAt: string | null; linkBenchmark: boolean; benchmarks?: BenchmarkLink[] }) {
  const versionHref = (v: string) => {
    const p = new URLSearchParams();
    if (linkBenchmark) p.set("benchmark", benchmark.slug);
    p.set("version", v);
    return `/?${p.toString()}`;
  };
  return (
    <header className="flex flex-col gap-3">
      {benchmarks.length > 1 ? (
        <nav aria-label="Leaderboards">
          <ul className="flex flex-wrap gap-1 text-sm">
            {benchmarks.map((b) => (
              <li key={b.slug}>
                <Link href={b.isDefault ? "/" : `/?benchmark=${encodeURIComponent(b.slug)}`} aria-current={b.slug === benchmark.slug ? "page" : undefined} className={pillClass(b.slug === benchmark.slug)}>
                  {b.title}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
      ) : null}
      <div className="flex flex-wrap items-baseline gap-x-4 gap-y-2">
        <h1 className="text-2xl font-bold tracking-tight sm:text-3xl">{benchmark.title}</h1>
        {benchmark.versions.length > 1 ? (
          <nav aria-label="Benchmark version">
            <ul className="flex flex-wrap gap-1 text-sm">
              {benchmark.versions.map((v) => {
                const current = v === benchmark.version;
                return (
                  <li key={v}>
                    <Link
                      href={versionHref(v)}
                      aria-current={current ? "page" : undefined}
                      className={pillClass(current)}
                    >
                      v{v}
                    </Link>
                  </li>
                );
              })}
            </ul>
          </nav>
        ) : (
          <span className="rounded-md border border-slate-300 px-2 py-0.5 text-sm text-slate-600 dark:border-slate-600 dark:text-slate-400">v{benchmark.version}</span>
        )}
      </div>
      {benchmark.description && <p className="max-w-3xl text-slate-700 dark:text-slate-300">{benchmark.description}</p>}
      <p className="max-w-3xl text-sm text-slate-600 dark:text-slate-400">
        Every entry is scored on our server from its raw outputs. <strong className="font-semibold text-slate-800 dark:text-slate-200">Rank</strong> is the compare page&apos;s
        verdict: an entry ranks one below every entry that the paired test on the same items finds significantly better (95%), directly or through a chain of such entries, so
        entries no significant difference separates share a rank (shown as <span className="font-mono">=2</span>). The ± of each score is the entry&apos;s own interval: two can
        overlap while the paired difference is significant. Sorting by another column never renumbers the rank.{" "}
        <Link href={linkBenchmark ? `/about?benchmark=${encodeURIComponent(benchmark.slug)}` : "/about"} className="text-sky-800 underline hover:no-underline dark:text-sky-300">
          How scoring works
        </Link>
      </p>
      {updatedAt && (
        <p className="text-xs text-slate-500 dark:text-slate-400">
          Last updated <time dateTime={updatedAt}>{fmtDateTime(updatedAt)}</time>
        </p>
      )}
    </header>
  );
}
