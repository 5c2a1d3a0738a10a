/** Who submitted what: models, maintainer, benchmark, source, bundle hash and the run that scored it. */
import type { ReactNode } from "react";
import type { SubmissionDetail } from "@/lib/queries/types";
import { TimeStamp } from "@/components/common/time-stamp";
import { codeClass, linkClass } from "@/components/common/styles";

/** One term and its value in a details list. */
export function Row({ term, children }: { term: string; children: ReactNode }) {
  return (
    <div className="grid grid-cols-[8rem_1fr] gap-2 py-1.5 sm:grid-cols-[9rem_1fr]">
      <dt className="text-sm text-slate-600 dark:text-slate-400">{term}</dt>
      <dd className="min-w-0 text-sm break-words">{children}</dd>
    </div>
  );
}

/** Only http(s) links become anchors; anything else is shown as text. */
function safeHref(url: string): string | null {
  try {
    const u = new URL(url);
    return u.protocol === "https:" || u.protocol === "http:" ? u.toString() : null;
  } catch {
    return null;
  }
}

export function SubmissionMeta({ detail }: { detail: SubmissionDetail }) {
  const links = Object.entries(detail.links);
  const run = detail.run;
  return (
    <dl className="divide-y divide-slate-100 dark:divide-slate-800">
      <Row term="Models">{detail.models.length ? detail.models.join(", ") : "—"}</Row>
      <Row term="Maintainer">{detail.maintainer || "—"}</Row>
      <Row term="Benchmark">
        {detail.benchmark.title} v{detail.benchmark.version}
      </Row>
      <Row term="Source">
        {detail.source}
        {detail.sourceRef ? (
          <>
            {" · "}
            <span className={codeClass}>{detail.sourceRef}</span>
          </>
        ) : null}
      </Row>
      <Row term="Bundle sha256">
        <abbr title={detail.bundleSha256} className={`${codeClass} no-underline`}>
          {detail.bundleSha256.slice(0, 12)}
        </abbr>
      </Row>
      <Row term="Received">
        <TimeStamp iso={detail.createdAt} />
      </Row>
      {run ? (
        <Row term="Scoring run">
          #{run.id} · {run.status} · judge {run.judge} · replay {run.replay}
          {run.finishedAt ? (
            <>
              {" · finished "}
              <TimeStamp iso={run.finishedAt} />
            </>
          ) : null}
        </Row>
      ) : null}
      <Row term="Links">
        {links.length === 0 ? (
          "—"
        ) : (
          <ul className="space-y-0.5">
            {links.map(([name, url]) => {
              const href = safeHref(url);
              return (
                <li key={name}>
                  <span className="text-slate-600 dark:text-slate-400">{name}: </span>
                  {href ? (
                    <a href={href} rel="noopener noreferrer nofollow" className={linkClass}>
                      {url}
                    </a>
                  ) : (
                    url
                  )}
                </li>
              );
            })}
          </ul>
        )}
      </Row>
    </dl>
  );
}
