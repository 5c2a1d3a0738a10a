/**
 * The deterministic trajectory comparison (the agent's tool calls against the ground truth's):
 * per capability on the detail page, per item on the item page. A diagnostic, not a score.
 */
import type { ReactNode } from "react";
import type { TrajectoryCallView, TrajectoryRow, TrajectoryView } from "@/lib/queries/types";
import { ColumnHeaders } from "@/components/common/column-headers";
import { formatFraction } from "@/components/common/format";
import { JsonBlock } from "@/components/common/json-block";
import { ScrollTable } from "@/components/common/scroll-table";
import { codeClass, rowClass, tableClass, tdClass, theadClass } from "@/components/common/styles";

const maybe = (x: number | null) => (x === null ? "—" : formatFraction(x));

export function TrajectoryTable({ rows }: { rows: TrajectoryRow[] }) {
  return (
    <ScrollTable label="Trajectory diagnostic per capability">
      <table className={`${tableClass} min-w-[36rem]`}>
        <caption className="sr-only">Tool-call comparison with the ground truth, per capability; not part of the ranking</caption>
        <thead className={theadClass}>
          <tr>
            <ColumnHeaders labels={["Capability", "Items", "Trajectory", "Tool names F1", "Parameters F1", "Exact"]} />
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr key={r.capability} className={rowClass}>
              <td className={tdClass}>{r.label}</td>
              <td className={`${tdClass} tabular-nums`}>{r.n}</td>
              <td className={`${tdClass} tabular-nums font-semibold`}>{formatFraction(r.score)}</td>
              <td className={`${tdClass} tabular-nums`}>{formatFraction(r.toolNamesF1)}</td>
              <td className={`${tdClass} tabular-nums`}>{maybe(r.paramsF1)}</td>
              <td className={`${tdClass} tabular-nums`}>{formatFraction(r.exactShare)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </ScrollTable>
  );
}

/** A parameter's name as code, inside a sentence. */
const param = (k: string) => <code className={`${codeClass} break-all`}>{k}</code>;

/** What the line says of the agent's call, one sentence per parameter that differed, went missing or was extra. */
function verdictText(c: TrajectoryCallView): { key: string; text: ReactNode }[] {
  const plain = (text: string) => [{ key: text, text }];
  if (c.verdict === "as_expected") return plain("as expected");
  if (c.verdict === "not_expected") return plain("not expected: no expected call pairs with it");
  if (c.verdict === "not_made") return plain("expected, not made by the agent");
  const out = [
    ...c.differed.map((k) => ({ key: `differed ${k}`, text: <>the value of parameter {param(k)} differed</> })),
    ...c.missing.map((k) => ({ key: `missing ${k}`, text: <>parameter {param(k)} was left out</> })),
    ...c.extra.map((k) => ({ key: `extra ${k}`, text: <>parameter {param(k)} was not expected</> })),
  ];
  return out.length ? out : plain("parameters differed");
}

const TONE: Record<TrajectoryCallView["verdict"], string> = {
  as_expected: "text-emerald-700 dark:text-emerald-400",
  differed: "text-amber-800 dark:text-amber-300",
  not_expected: "text-red-700 dark:text-red-400",
  not_made: "text-red-700 dark:text-red-400",
};
const ICON: Record<TrajectoryCallView["verdict"], string> = { as_expected: "✓", differed: "≠", not_expected: "✗", not_made: "∅" };

/** Each of the agent's calls with what differed from the expected call paired with it; the expected side only where it is public. */
function CallPairs({ t }: { t: TrajectoryView }) {
  const calls = t.calls ?? [];
  const showsExpected = calls.some((c) => c.expected !== null);
  return (
    <div className="space-y-2">
      {calls.length === 0 ? <p className="text-slate-600 dark:text-slate-400">The agent made no tool call in this turn.</p> : null}
      <ol className="space-y-3" aria-label="The agent's calls against the expected ones">
        {calls.map((c, i) => (
          <li key={i} className={`grid gap-2 rounded-md border border-slate-200 p-3 dark:border-slate-800 ${showsExpected ? "md:grid-cols-2" : ""}`}>
            <div className="min-w-0 space-y-1">
              <p>
                {c.call ? (
                  <>
                    <span className="text-slate-500 dark:text-slate-400">Call {c.call.index + 1}:</span> <span className={`${codeClass} break-all`}>{c.call.name}</span>
                  </>
                ) : (
                  <span className="text-slate-500 dark:text-slate-400">No call by the agent</span>
                )}
              </p>
              <ul className={`space-y-0.5 ${TONE[c.verdict]}`}>
                {verdictText(c).map((v) => (
                  <li key={v.key} className="break-words">
                    <span aria-hidden="true">{ICON[c.verdict]} </span>
                    {v.text}
                  </li>
                ))}
              </ul>
              {c.call ? <JsonBlock value={c.call.arguments} label={`Arguments of the agent's call ${c.call.index + 1}`} /> : null}
            </div>
            {c.expected ? (
              <div className="min-w-0 space-y-1">
                <p>
                  <span className="text-slate-500 dark:text-slate-400">Expected:</span> <span className={`${codeClass} break-all`}>{c.expected.name}</span>
                </p>
                <JsonBlock value={c.expected.arguments} label={`Arguments of the expected call paired with line ${i + 1}`} />
              </div>
            ) : null}
          </li>
        ))}
      </ol>
      {t.callCount !== undefined && t.callCount > calls.length ? (
        <p className="text-slate-600 dark:text-slate-400">
          The first {calls.length} of {t.callCount.toLocaleString("en-US")} lines are shown.
        </p>
      ) : null}
      {t.notMade > 0 && !showsExpected ? (
        <p className="text-red-700 dark:text-red-400">
          <span aria-hidden="true">∅ </span>
          {t.notMade === 1 ? "An expected call was not made" : `${t.notMade} expected calls were not made`} (which ones is ground truth, not shown on this benchmark).
        </p>
      ) : null}
    </div>
  );
}

/** The numbers, then each call side by side; the summary names the expected tools, so the query layer leaves it null unless public. */
export function TrajectoryItem({ t }: { t: TrajectoryView }) {
  const facts: [string, string][] = [
    ["Trajectory", formatFraction(t.score)],
    ["Tool names F1", formatFraction(t.toolNamesF1)],
    ["Parameters F1", maybe(t.paramsF1)],
    ["Order", maybe(t.order)],
    ["Same calls as the ground truth", t.exact ? "yes" : "no"],
  ];
  return (
    <div className="space-y-4 text-sm">
      <dl className="grid grid-cols-[auto_1fr] gap-x-4 gap-y-1">
        {facts.map(([k, v]) => (
          <div key={k} className="contents">
            <dt className="text-slate-600 dark:text-slate-400">{k}</dt>
            <dd className="tabular-nums">{v}</dd>
          </div>
        ))}
      </dl>
      {t.calls ? <CallPairs t={t} /> : <p className="text-slate-600 dark:text-slate-400">This run was scored before calls were paired one by one; a rescore shows which call or parameter differed.</p>}
      {t.summary ? <p className="text-slate-700 dark:text-slate-300">{t.summary}</p> : null}
    </div>
  );
}
