"use client";
import Link from "next/link";
import { useEffect } from "react";

/** The fallback when a page throws: say so plainly and offer a retry (re-fetches the segment). */
export default function ErrorPage({ error, retry }: { error: unknown; retry: () => void }) {
  useEffect(() => {
    console.error(error);
  }, [error]);
  const digest = error instanceof Error && "digest" in error && typeof error.digest === "string" ? error.digest : null;
  return (
    <div role="alert" className="max-w-2xl space-y-4 py-10">
      <h1 className="text-2xl font-semibold tracking-tight">Something went wrong</h1>
      <p className="text-slate-700 dark:text-slate-300">This page could not be shown. It may be a passing problem: try again, or go back to the leaderboard.</p>
      {digest ? <p className="text-xs text-slate-500 dark:text-slate-400">Reference: {digest}</p> : null}
      <div className="flex flex-wrap items-center gap-4">
        <button
          type="button"
          onClick={() => retry()}
          className="rounded-md bg-sky-700 px-3 py-1.5 text-sm font-medium text-white hover:bg-sky-800 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-sky-600 dark:bg-sky-700 dark:hover:bg-sky-600"
        >
          Try again
        </button>
        <Link href="/" className="text-sm text-sky-700 underline underline-offset-2 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-sky-600 dark:text-sky-400">
          Leaderboard
        </Link>
      </div>
    </div>
  );
}
