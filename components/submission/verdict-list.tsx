/**
 * Every waterfall stage's verdict for one item, in order: outcome, score, reason, judge,
 * cache, latency. The private detail (compared values, the judge's words) is present only
 * where the benchmark shows its ground truth.
 */
import type { VerdictView } from "@/lib/queries/types";

const STAGE_LABEL: Record<string, string> = { policy: "1. Policy", exact: "2. Exact tool response", correctness: "3. Correctness", groundedness: "4. Groundedness" };

const outcomeTone: Record<string, string> = {
  pass: "border-emerald-400 text-emerald-800 dark:border-emerald-600 dark:text-emerald-300",
  fail: "border-red-400 text-red-800 dark:border-red-600 dark:text-red-300",
  error: "border-amber-400 text-amber-800 dark:border-amber-600 dark:text-amber-300",
};

const outcomeIcon: Record<string, string> = { pass: "✓", fail: "✗", error: "!", skipped: "–" };

export function VerdictList({ verdicts }: { verdicts: VerdictView[] }) {
  if (verdicts.length === 0) return <p className="text-sm text-slate-600 dark:text-slate-400">No verdicts were recorded for this item.</p>;
  return (
    <ol className="space-y-3">
      {verdicts.map((v, i) => (
        <li key={i} className="rounded-md border border-slate-200 p-4 dark:border-slate-800">
          <div className="flex flex-wrap items-center gap-2">
            <h3 className="font-semibold">{STAGE_LABEL[v.stage] ?? v.stage}</h3>
            <span className={`inline-flex items-center gap-1 rounded border px-1.5 py-0.5 text-xs font-medium ${outcomeTone[v.outcome] ?? "border-slate-300 text-slate-700 dark:border-slate-600 dark:text-slate-300"}`}>
              <span aria-hidden="true">{outcomeIcon[v.outcome] ?? "·"}</span>
              {v.outcome}
            </span>
            {verdicts.some((x) => x.turnId !== v.turnId) ? <span className="text-xs text-slate-500 dark:text-slate-400">turn {v.turnId}</span> : null}
          </div>
          {v.reason ? <p className="mt-2 text-sm break-words whitespace-pre-wrap">{v.reason}</p> : null}
          {v.detail ? <p className="mt-1 text-sm break-words whitespace-pre-wrap text-slate-600 dark:text-slate-400">{v.detail}</p> : null}
          <dl className="mt-3 grid grid-cols-2 gap-x-4 gap-y-1 text-xs sm:grid-cols-4">
            <div>
              <dt className="text-slate-500 dark:text-slate-400">Score</dt>
              <dd className="tabular-nums">{v.score === null ? "—" : v.score}</dd>
            </div>
            <div>
              <dt className="text-slate-500 dark:text-slate-400">Judge</dt>
              <dd className="break-all">{v.judge}</dd>
            </div>
            <div>
              <dt className="text-slate-500 dark:text-slate-400">Cache hit</dt>
              <dd>{v.cacheHit ? "yes" : "no"}</dd>
            </div>
            <div>
              <dt className="text-slate-500 dark:text-slate-400">Latency</dt>
              <dd className="tabular-nums">{v.latencyMs} ms</dd>
            </div>
          </dl>
        </li>
      ))}
    </ol>
  );
}
