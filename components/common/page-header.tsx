import type { ReactNode } from "react";

/** The h1 of a page with an optional lede and trailing actions. */
export function PageHeader({ title, lede, children }: { title: ReactNode; lede?: ReactNode; children?: ReactNode }) {
  return (
    <header className="mb-6 space-y-2">
      <h1 className="text-2xl font-semibold tracking-tight">{title}</h1>
      {lede ? <p className="max-w-3xl text-slate-700 dark:text-slate-300">{lede}</p> : null}
      {children}
    </header>
  );
}

/** A titled section; `id` doubles as an anchor and labels the region. */
export function Section({ id, title, description, children, className = "" }: { id: string; title: ReactNode; description?: ReactNode; children: ReactNode; className?: string }) {
  return (
    <section aria-labelledby={`${id}-title`} id={id} className={`scroll-mt-4 space-y-3 ${className}`}>
      <h2 id={`${id}-title`} className="text-lg font-semibold tracking-tight">
        {title}
      </h2>
      {description ? <p className="max-w-3xl text-sm text-slate-600 dark:text-slate-400">{description}</p> : null}
      {children}
    </section>
  );
}
