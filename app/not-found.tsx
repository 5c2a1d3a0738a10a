import type { Metadata } from "next";
import Link from "next/link";
import { linkClass } from "@/components/common/styles";

export const metadata: Metadata = { title: "Not found", robots: { index: false } };

export default function NotFound() {
  return (
    <div className="max-w-2xl space-y-4 py-10">
      <p className="text-sm font-medium text-slate-600 dark:text-slate-400">404</p>
      <h1 className="text-2xl font-semibold tracking-tight">Not found</h1>
      <p className="text-slate-700 dark:text-slate-300">There is no page, entry or item at this address. It may have been withdrawn, or the link has a typo.</p>
      <ul className="flex flex-wrap gap-x-6 gap-y-2 text-sm">
        <li>
          <Link href="/" className={linkClass}>
            Leaderboard
          </Link>
        </li>
        <li>
          <Link href="/queue" className={linkClass}>
            All submissions
          </Link>
        </li>
        <li>
          <Link href="/changelog" className={linkClass}>
            Changelog
          </Link>
        </li>
      </ul>
    </div>
  );
}
