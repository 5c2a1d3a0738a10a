import type { Metadata } from "next";
import Link from "next/link";
import { maintainerSignedIn } from "@/app/admin/maintainer";
import { PageHeader } from "@/components/common/page-header";
import { Pagination } from "@/components/common/pagination";
import { firstParam, parseId, parsePage, queryString, type SearchParams } from "@/components/common/search-params";
import { linkClass } from "@/components/common/styles";
import { getChangelogPage } from "@/lib/queries/changelog";
import { pageDb } from "@/lib/queries/db";
import { ChangelogList } from "./changelog-list";

export const dynamic = "force-dynamic";

export const metadata: Metadata = { title: "Changelog" };

const PAGE_SIZE = 50;

export default async function ChangelogPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const params = await searchParams;
  const page = parsePage(firstParam(params, "page"));
  const entry = parseId(firstParam(params, "entry"));
  // Maintainers see the scores of entries that are not public and can open every entry.
  const maintainer = await maintainerSignedIn();
  const log = await getChangelogPage(await pageDb(), { page, pageSize: PAGE_SIZE, entry, maintainer });
  const named = entry !== null ? (log.rows[0] ? `${log.rows[0].agent} (#${entry})` : `#${entry}`) : null;

  return (
    <div>
      <PageHeader
        title={named ? `Changelog of ${named}` : "Changelog"}
        lede={
          <>
            What changed on the leaderboard, newest first: entries published, rescored (old → new overall), restored, withdrawn or rejected (with the reason), or taken off the board for a
            rescore. Scores are shown for entries on the board now. The steps in between (validation, queueing, scoring) are on the{" "}
            <Link href="/queue" className={linkClass}>
              queue
            </Link>{" "}
            and in each entry&apos;s status timeline.
          </>
        }
      >
        <p className="flex flex-wrap gap-x-4 gap-y-1 text-sm">
          {entry !== null ? (
            <Link href="/changelog" className={linkClass}>
              Show every entry
            </Link>
          ) : null}
          {maintainer ? (
            <Link href={`/admin/log${queryString({ entry })}`} className={linkClass}>
              Full audit log (maintainers)
            </Link>
          ) : null}
        </p>
      </PageHeader>
      {log.rows.length === 0 ? (
        <p className="text-slate-700 dark:text-slate-300">{entry !== null ? "No changes of this entry yet." : "No changes yet."}</p>
      ) : (
        <ChangelogList events={log.rows} linkAll={maintainer} />
      )}
      {log.total > PAGE_SIZE ? (
        <div className="mt-4">
          <Pagination page={log.page} pageSize={log.pageSize} total={log.total} noun="change" hrefFor={(n) => `/changelog${queryString({ entry, page: n > 1 ? n : undefined })}`} />
        </div>
      ) : null}
    </div>
  );
}
