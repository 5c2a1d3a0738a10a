/** What `/` shows when there is nothing to rank yet (server component). */
import Link from "next/link";
import type { ReactNode } from "react";

export function EmptyState({ title, heading: Heading = "h1", children }: { title: string; heading?: "h1" | "h2"; children: ReactNode }) {
  return (
    <section className="mx-auto flex max-w-xl flex-col items-center gap-3 rounded-lg border border-dashed border-slate-300 px-6 py-12 text-center dark:border-slate-700">
      <Heading className="text-xl font-semibold">{title}</Heading>
      <div className="text-slate-600 dark:text-slate-400">{children}</div>
      <div className="flex flex-wrap justify-center gap-3 text-sm">
        <Link href="/submit" className="rounded-md bg-sky-700 px-3 py-1.5 font-medium text-white hover:bg-sky-800 focus-visible:outline focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-sky-600">
          Submit an agent
        </Link>
        <Link href="/about" className="rounded-md border border-slate-300 px-3 py-1.5 hover:bg-slate-50 dark:border-slate-600 dark:hover:bg-slate-800">
          How it works
        </Link>
      </div>
    </section>
  );
}
