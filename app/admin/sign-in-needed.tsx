import Link from "next/link";
import type { ReactNode } from "react";
import { PageHeader } from "@/components/common/page-header";
import { linkClass } from "@/components/common/styles";

/** What a maintainer-only page shows a visitor who is not signed in: what it is for, and where to sign in. */
export function SignInNeeded({ title, what, children }: { title: string; what: string; children?: ReactNode }) {
  return (
    <div>
      <PageHeader title={title} />
      <p>
        {/* One text node: pages and tests read the sentence whole. */}
        {`${what} is for maintainers: `}
        <Link href="/admin" className={linkClass}>
          sign in
        </Link>
        .{children}
      </p>
    </div>
  );
}
