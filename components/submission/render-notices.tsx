/** What a maintainer sees above an entry that is not public, and anyone above shortened values. */
import Link from "next/link";
import { Notice } from "@/components/common/notice";
import { linkClass } from "@/components/common/styles";

export function PrivateEntryNotice({ state }: { state: string }) {
  return (
    <Notice title="Not public">
      This entry is {state}, not published: only signed-in maintainers can open this page. The public queue lists it by name and state only.
    </Notice>
  );
}

/** Shown when values were cut to the page limits; maintainers get a link to the larger limits. */
export function TruncationNotice({ truncated, full, fullHref, maintainer }: { truncated: number; full: boolean; fullHref: string; maintainer: boolean }) {
  if (truncated === 0) return null;
  return (
    <Notice>
      {full ? "Some values are still too long to show whole and are shortened." : "Some long values on this page are shortened."}
      {maintainer && !full ? (
        <>
          {" "}
          <Link href={fullHref} className={linkClass} prefetch={false}>
            Show all
          </Link>
        </>
      ) : null}
    </Notice>
  );
}
