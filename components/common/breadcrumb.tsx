import Link from "next/link";
import { linkClass } from "./styles";

/** A breadcrumb trail; the last item is the current page. */
export function Breadcrumb({ trail, current }: { trail: { href: string; label: string }[]; current: string }) {
  return (
    <nav aria-label="Breadcrumb" className="text-sm text-slate-600 dark:text-slate-400">
      {trail.map((t) => (
        <span key={t.href}>
          <Link href={t.href} className={linkClass}>
            {t.label}
          </Link>
          <span aria-hidden="true"> / </span>
        </span>
      ))}
      <span aria-current="page">{current}</span>
    </nav>
  );
}
